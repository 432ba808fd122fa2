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
  Typography,
} from '@mui/material';
import type { ClosingStatLine } from '@recado/contracts';
import { useClosingStats, type DashboardRange } from '../../api/dashboard.js';
import { useClosingT } from './closing-i18n.js';

function StatTable({
  title,
  rows,
  none,
  total,
  testId,
}: {
  title: string;
  rows: ClosingStatLine[];
  /** The name of the line whose id is null (no reason / no attendant). */
  none: string;
  total: { count: number; saleValue: number };
  testId: string;
}) {
  const { t, i18n } = useClosingT();
  const money = new Intl.NumberFormat(i18n.language, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const count = new Intl.NumberFormat(i18n.language);
  return (
    <TableContainer>
      <Table size="small" data-testid={testId}>
        <TableHead>
          <TableRow>
            <TableCell>{title}</TableCell>
            <TableCell align="right">{t('dashboard.count')}</TableCell>
            <TableCell align="right">{t('dashboard.saleValue')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r) => (
            <TableRow key={r.id ?? 'none'} data-testid={`${testId}-row`} data-id={r.id ?? ''}>
              <TableCell
                sx={{ maxWidth: 200, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
              >
                {r.id === null ? <Box component="em">{none}</Box> : (r.name ?? '—')}
              </TableCell>
              <TableCell align="right" data-testid="closing-count">
                {count.format(r.count)}
              </TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }} data-testid="closing-sale">
                {money.format(r.saleValue)}
              </TableCell>
            </TableRow>
          ))}
          <TableRow>
            <TableCell sx={{ fontWeight: 600 }}>{t('dashboard.total')}</TableCell>
            <TableCell align="right" sx={{ fontWeight: 600 }}>
              {count.format(total.count)}
            </TableCell>
            <TableCell align="right" sx={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
              {money.format(total.saleValue)}
            </TableCell>
          </TableRow>
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/**
 * The dashboard's closings (#32.3, docs/productivity.md "Closing reasons"): the tickets closed in the period
 * by reason and by attendant, with the sum of their sale values.
 */
export function ClosingStatsSection({ range }: { range: DashboardRange | null }) {
  const { t } = useClosingT();
  const query = useClosingStats(range);
  const data = query.data;
  return (
    <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 }, minWidth: 0 }} data-testid="closing-stats">
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>
        {t('dashboard.title')}
      </Typography>
      {!data ? (
        <Skeleton variant="rectangular" height={80} />
      ) : data.total.count === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('dashboard.empty')}
        </Typography>
      ) : (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' } }}>
          <StatTable
            title={t('dashboard.byReason')}
            rows={data.byReason}
            none={t('noReason')}
            total={data.total}
            testId="closing-by-reason"
          />
          <StatTable
            title={t('dashboard.byAttendant')}
            rows={data.byAttendant}
            none={t('dashboard.nobody')}
            total={data.total}
            testId="closing-by-attendant"
          />
        </Box>
      )}
    </Paper>
  );
}
