import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Paper,
  Stack,
  Tooltip,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import type { ConnectionHealth, ConnectionHealthEntry, ConnectionState } from '@recado/contracts';
import { useConnectionHealth } from '../../../api/connection-health.js';
import { useDateFormat } from '../../../i18n/format.js';
import { ConnectionStatus } from '../ConnectionStatus.js';
import { formatOutage, formatRatio, useHealthT } from './health-i18n.js';

const DAY_MS = 86_400_000;

/** The bar's colour of a state (the status column's colours). */
const colourOf = (status: string) =>
  status === 'CONNECTED'
    ? 'success.main'
    : status === 'DISCONNECTED'
      ? 'error.main'
      : status === 'qrcode' || status === 'PAIRING'
        ? 'info.main'
        : 'warning.main';

/** Thirty days as one bar: each state a stretch of its colour, unobserved time grey. */
function HealthBar({ health }: { health: ConnectionHealth }) {
  const { t } = useHealthT();
  const f = useDateFormat();
  const now = Date.now();
  const start = now - 30 * DAY_MS;
  const segments = [...health.timeline]
    .reverse()
    .map((e) => {
      const from = Math.max(new Date(e.at).getTime(), start);
      const to = Math.min(e.until ? new Date(e.until).getTime() : now, now);
      return { e, from, to };
    })
    .filter((s) => s.to > s.from);
  const first = segments[0]?.from ?? now;
  return (
    <Box>
      <Box
        role="img"
        aria-label={t('bar')}
        data-testid="health-bar"
        sx={{
          display: 'flex',
          height: 14,
          borderRadius: 1,
          overflow: 'hidden',
          bgcolor: 'action.disabledBackground',
        }}
      >
        {first > start ? <Box sx={{ flexGrow: first - start }} /> : null}
        {segments.map(({ e, from, to }) => (
          <Tooltip
            key={e.id}
            title={`${t(`connections.status.${e.status}`, { defaultValue: e.status })} · ${f.dateTime(from)} → ${f.dateTime(to)}`}
          >
            <Box
              data-status={e.status}
              sx={{ flexGrow: to - from, flexBasis: 0, minWidth: 2, bgcolor: colourOf(e.status) }}
            />
          </Tooltip>
        ))}
      </Box>
      <Stack direction="row" sx={{ justifyContent: 'space-between', mt: 0.5 }}>
        <Typography variant="caption" color="text.secondary">
          {t('barStart')}
        </Typography>
        <Typography variant="caption" color="text.secondary">
          {t('barEnd')}
        </Typography>
      </Stack>
    </Box>
  );
}

function Uptime({ label, ratio, testId }: { label: string; ratio: number | null; testId: string }) {
  const { t, i18n } = useHealthT();
  const colour =
    ratio === null
      ? 'text.secondary'
      : ratio >= 0.99
        ? 'success.main'
        : ratio >= 0.95
          ? 'warning.main'
          : 'error.main';
  return (
    <Paper variant="outlined" sx={{ p: 1.5, flex: 1, minWidth: 0 }}>
      <Typography variant="caption" color="text.secondary" component="div" noWrap>
        {label}
      </Typography>
      <Typography variant="h5" sx={{ color: colour, fontWeight: 700 }} data-testid={testId}>
        {ratio === null ? t('noData') : formatRatio(ratio, i18n.resolvedLanguage ?? i18n.language)}
      </Typography>
    </Paper>
  );
}

function TimelineRow({ e }: { e: ConnectionHealthEntry }) {
  const { t } = useHealthT();
  const f = useDateFormat();
  return (
    <Box
      data-testid="health-entry"
      data-status={e.status}
      sx={{ py: 1, borderBottom: 1, borderColor: 'divider', '&:last-child': { borderBottom: 0 } }}
    >
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}
      >
        <ConnectionStatus
          status={e.status as ConnectionState}
          reason={e.reason ? { reason: e.reason, detail: e.detail ?? undefined } : undefined}
        />
        <Typography variant="body2" color="text.secondary">
          {t('lasted', { duration: formatOutage(e.seconds) })}
        </Typography>
      </Stack>
      <Typography variant="caption" color="text.secondary" component="div">
        {e.until
          ? t('range', { from: f.dateTime(e.at), to: f.dateTime(e.until) })
          : t('since', { from: f.dateTime(e.at) })}
      </Typography>
    </Box>
  );
}

/** #33.2 A connection's health: uptime over 7 and 30 days, the 30 days as a bar, its outages and states. */
export function ConnectionHealthDialog({
  whatsapp,
  onClose,
}: {
  whatsapp: { id: number; name: string } | null;
  onClose(): void;
}) {
  const { t } = useHealthT();
  const f = useDateFormat();
  const theme = useTheme();
  const narrow = useMediaQuery(theme.breakpoints.down('sm'));
  const health = useConnectionHealth(whatsapp?.id ?? null);
  const data = health.data;
  return (
    <Dialog
      open={whatsapp !== null}
      onClose={onClose}
      fullWidth
      maxWidth="sm"
      fullScreen={narrow}
      aria-labelledby="health-title"
      data-testid="health-dialog"
    >
      <DialogTitle id="health-title" sx={{ overflowWrap: 'anywhere' }}>
        {t('title', { name: whatsapp?.name ?? '' })}
      </DialogTitle>
      <DialogContent dividers>
        {health.isError ? <Alert severity="error">{t('loadError')}</Alert> : null}
        {health.isLoading ? (
          <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
            <CircularProgress />
          </Box>
        ) : null}
        {data ? (
          <Stack spacing={2.5}>
            <Stack direction="row" spacing={1.5}>
              <Uptime label={t('uptime7d')} ratio={data.uptime['7d']} testId="uptime-7d" />
              <Uptime label={t('uptime30d')} ratio={data.uptime['30d']} testId="uptime-30d" />
            </Stack>
            <HealthBar health={data} />
            <Typography variant="body2" color="text.secondary">
              {t('threshold', { minutes: data.alertMinutes })}
            </Typography>
            <Box>
              <Typography variant="subtitle2" sx={{ mb: 1 }}>
                {t('outages')}
              </Typography>
              {data.incidents.length === 0 ? (
                <Typography variant="body2" color="text.secondary">
                  {t('noOutages')}
                </Typography>
              ) : (
                <Stack spacing={1} data-testid="health-outages">
                  {data.incidents.slice(0, 10).map((i) => (
                    <Stack
                      key={i.id}
                      direction="row"
                      spacing={1}
                      data-testid="health-outage"
                      sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 0.5 }}
                    >
                      <Typography variant="body2" sx={{ fontWeight: 600 }}>
                        {formatOutage(i.seconds)}
                      </Typography>
                      <Typography variant="body2" color="text.secondary" sx={{ flex: 1, minWidth: 140 }}>
                        {i.endedAt
                          ? t('range', { from: f.dateTime(i.startedAt), to: f.dateTime(i.endedAt) })
                          : t('since', { from: f.dateTime(i.startedAt) })}
                      </Typography>
                      {i.endedAt ? null : <Chip size="small" color="error" label={t('ongoing')} />}
                      {i.alertedAt ? <Chip size="small" variant="outlined" label={t('alerted')} /> : null}
                    </Stack>
                  ))}
                </Stack>
              )}
            </Box>
            <Box>
              <Typography variant="subtitle2">{t('timeline')}</Typography>
              {data.timeline.length === 0 ? (
                <Typography variant="body2" color="text.secondary">
                  {t('noTimeline')}
                </Typography>
              ) : (
                <Box data-testid="health-timeline">
                  {data.timeline.map((e) => (
                    <TimelineRow key={e.id} e={e} />
                  ))}
                </Box>
              )}
            </Box>
          </Stack>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
