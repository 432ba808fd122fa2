import {
  Box,
  Paper,
  Skeleton,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import { SLA_KINDS, type SlaAchievement } from '@recado/contracts';
import { useSlaAchievement } from '../../api/sla.js';
import { useSlaT } from './sla-i18n.js';

type Cells = SlaAchievement['total'];

function Cell({ cells, kind }: { cells: Cells; kind: (typeof SLA_KINDS)[number] }) {
  const { t, i18n } = useSlaT();
  const c = cells[kind];
  const total = c.met + c.breached;
  if (c.percent === null) return <TableCell align="right">—</TableCell>;
  const percent = new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 1 }).format(c.percent);
  return (
    <TableCell
      align="right"
      sx={{
        whiteSpace: 'nowrap',
        color: c.percent >= 90 ? 'success.main' : c.percent >= 70 ? 'warning.main' : 'error.main',
        fontWeight: 600,
      }}
      data-kind={kind}
    >
      {t('sla:dashboard.cell', { percent, met: c.met, total })}
    </TableCell>
  );
}

function AchievementTable({
  title,
  rows,
  testId,
}: {
  title: string;
  rows: { key: string; name: string; kinds: Cells }[];
  testId: string;
}) {
  const { t } = useSlaT();
  return (
    <TableContainer>
      <Table size="small" data-testid={testId}>
        <TableHead>
          <TableRow>
            <TableCell>{title}</TableCell>
            {SLA_KINDS.map((k) => (
              <TableCell key={k} align="right">
                {t(`sla:kind.${k}`)}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r) => (
            <TableRow key={r.key} data-testid={`${testId}-row`}>
              <TableCell sx={{ maxWidth: 180, overflow: 'hidden', textOverflow: 'ellipsis' }}>
                {r.name}
              </TableCell>
              {SLA_KINDS.map((k) => (
                <Cell key={k} cells={r.kinds} kind={k} />
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/**
 * The dashboard's SLA achievement (#30.5, docs/metrics.md "SLA"): per kind, the share of targets that ended in
 * the period on time, for the company, per queue and per attendant.
 */
export function SlaAchievementSection({
  range,
}: {
  range: { initialDate: string; finalDate: string; queueId?: number } | null;
}) {
  const { t } = useSlaT();
  const query = useSlaAchievement(
    range ? { from: range.initialDate, to: range.finalDate, queueId: range.queueId } : null,
  );
  const data = query.data;
  const empty = data && SLA_KINDS.every((k) => data.total[k].percent === null);
  return (
    <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 }, minWidth: 0 }} data-testid="sla-achievement">
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>
        {t('sla:dashboard.title')}
        <Tooltip title={t('sla:dashboard.help')} enterTouchDelay={0}>
          <InfoOutlinedIcon
            fontSize="inherit"
            sx={{ ml: 0.5, verticalAlign: 'middle', color: 'text.secondary', cursor: 'help' }}
            aria-label={t('sla:dashboard.help')}
            tabIndex={0}
          />
        </Tooltip>
      </Typography>
      {!data ? (
        <Skeleton variant="rectangular" height={80} />
      ) : empty ? (
        <Typography variant="body2" color="text.secondary">
          {t('sla:dashboard.none')}
        </Typography>
      ) : (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <AchievementTable
            title={t('sla:dashboard.byQueue')}
            testId="sla-by-queue"
            rows={[
              { key: 'total', name: t('sla:dashboard.total'), kinds: data.total },
              ...data.queues.map((q) => ({
                key: `q${q.queueId}`,
                name: q.queueId === null ? t('sla:dashboard.noQueue') : q.name,
                kinds: q.kinds,
              })),
            ]}
          />
          <AchievementTable
            title={t('sla:dashboard.byUser')}
            testId="sla-by-user"
            rows={data.users.map((u) => ({
              key: `u${u.userId}`,
              name: u.userId === null ? t('sla:dashboard.nobody') : u.name,
              kinds: u.kinds,
            }))}
          />
        </Box>
      )}
    </Paper>
  );
}
