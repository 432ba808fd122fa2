import { useEffect, useState } from 'react';
import {
  Box,
  Chip,
  LinearProgress,
  Paper,
  Skeleton,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { LiveAttendant, LiveQueue } from '@recado/contracts';
import { useLive, useRoutingStats } from '../../api/presence.js';
import { PageHeader } from '../../components/PageHeader.js';
import { PresenceDot } from '../../layout/PresenceSwitch.js';

/** Re-renders every second: the waits and "since last reply" count up between the server's pushes. */
function useNow(ms = 1000) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(id);
  }, [ms]);
  return now;
}

/** 45 s, 3 min, 1 h 05 min. */
export function formatDuration(
  seconds: number,
  t: (k: string, o?: Record<string, unknown>) => string,
): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return t('live.seconds', { n: s });
  const m = Math.floor(s / 60);
  if (m < 60) return t('live.minutes', { n: m });
  return t('live.hours', { h: Math.floor(m / 60), m: String(m % 60).padStart(2, '0') });
}

function QueueCard({ q, elapsed }: { q: LiveQueue; elapsed: number }) {
  const { t } = useTranslation();
  const wait = q.waiting > 0 ? q.longestWaitSeconds + elapsed : 0;
  const id = q.queueId ?? 'none';
  return (
    <Paper
      variant="outlined"
      data-testid={`live-queue-${id}`}
      sx={{ p: 2, borderLeft: 4, borderLeftColor: q.color || 'divider', minWidth: 0 }}
    >
      <Typography noWrap sx={{ fontWeight: 600 }} title={q.name || t('live.noQueue')}>
        {q.name || t('live.noQueue')}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'baseline', mt: 1 }}>
        <Typography variant="h4" component="span" data-testid={`live-waiting-${id}`} sx={{ fontWeight: 700 }}>
          {q.waiting}
        </Typography>
        <Typography color="text.secondary">{t('live.waiting', { count: q.waiting })}</Typography>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
        {t('live.longestWait')}: <strong>{q.waiting > 0 ? formatDuration(wait, t) : '—'}</strong>
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {t('live.open')}: <strong>{q.open}</strong>
      </Typography>
      <Stack direction="row" spacing={1} sx={{ mt: 1, flexWrap: 'wrap', rowGap: 1 }}>
        <Chip
          size="small"
          color={q.slaAtRisk > 0 ? 'warning' : 'default'}
          variant={q.slaAtRisk > 0 ? 'filled' : 'outlined'}
          label={t('live.slaAtRisk', { count: q.slaAtRisk })}
        />
        {q.slaBreached > 0 && (
          <Chip size="small" color="error" label={t('live.slaBreached', { count: q.slaBreached })} />
        )}
      </Stack>
    </Paper>
  );
}

function LoadBar({ a }: { a: LiveAttendant }) {
  const { t } = useTranslation();
  const full = a.capacity !== null && a.openTickets >= a.capacity;
  const value =
    a.capacity === null ? 0 : a.capacity === 0 ? 100 : Math.min(100, (a.openTickets / a.capacity) * 100);
  return (
    <Box sx={{ minWidth: 90 }}>
      <Typography variant="body2" data-testid={`live-load-${a.userId}`}>
        {a.capacity === null
          ? t('live.loadUnlimited', { open: a.openTickets })
          : t('live.load', { open: a.openTickets, capacity: a.capacity })}
      </Typography>
      {/* No limit: no bar to fill. */}
      {a.capacity !== null && (
        <LinearProgress
          variant="determinate"
          value={value}
          color={full ? 'error' : value >= 75 ? 'warning' : 'primary'}
          aria-label={t('live.loadLabel')}
          sx={{ height: 6, borderRadius: 3, mt: 0.5 }}
        />
      )}
    </Box>
  );
}

/** #30.8 "Ao vivo": the waiting lines and the attendants, updated as they change (docs/routing.md). */
export default function LivePage() {
  const { t } = useTranslation();
  const { data, isLoading } = useLive();
  const routed = useRoutingStats();
  const now = useNow();
  const elapsed = data ? Math.max(0, (now - new Date(data.at).getTime()) / 1000) : 0;
  return (
    <Stack spacing={2} sx={{ p: { xs: 1.5, sm: 3 } }}>
      <PageHeader title={t('menu.live')}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <PresenceDot presence="online" />
          <Typography variant="body2" color="text.secondary">
            {t('live.updating')}
          </Typography>
        </Stack>
      </PageHeader>

      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('live.queues')}
      </Typography>
      <Box
        data-testid="live-queues"
        sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fill, minmax(220px, 1fr))' }}
      >
        {isLoading && [0, 1, 2].map((i) => <Skeleton key={i} variant="rounded" height={150} />)}
        {data?.queues.map((q) => (
          <QueueCard key={q.queueId ?? 'none'} q={q} elapsed={elapsed} />
        ))}
        {data && data.queues.length === 0 && (
          <Typography color="text.secondary">{t('live.noQueues')}</Typography>
        )}
      </Box>

      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('live.attendants')}
      </Typography>
      <TableContainer component={Paper} variant="outlined" sx={{ overflowX: 'auto' }}>
        <Table
          size="small"
          data-testid="live-attendants"
          sx={{ '& td, & th': { px: { xs: 1, sm: 2 } }, '& th': { whiteSpace: 'nowrap' } }}
        >
          <TableHead>
            <TableRow>
              <TableCell>{t('live.name')}</TableCell>
              <TableCell>{t('live.presence')}</TableCell>
              <TableCell>{t('live.loadColumn')}</TableCell>
              <TableCell>{t('live.lastReply')}</TableCell>
              <TableCell title={t('live.routedHelp')} sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                {t('live.routedColumn')}
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {isLoading && (
              <TableRow>
                <TableCell colSpan={5}>
                  <Skeleton />
                </TableCell>
              </TableRow>
            )}
            {data?.attendants.map((a) => (
              <TableRow key={a.userId} data-testid={`live-attendant-${a.userId}`} data-presence={a.presence}>
                <TableCell sx={{ maxWidth: 180 }}>
                  <Typography noWrap variant="body2" title={a.name}>
                    {a.name}
                  </Typography>
                </TableCell>
                <TableCell>
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <PresenceDot presence={a.presence} />
                    <Typography variant="body2" data-testid={`live-presence-${a.userId}`}>
                      {t(`presence.${a.presence}`)}
                    </Typography>
                  </Stack>
                </TableCell>
                <TableCell>
                  <LoadBar a={a} />
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  {a.secondsSinceLastReply === null
                    ? t('live.never')
                    : formatDuration(a.secondsSinceLastReply + elapsed, t)}
                </TableCell>
                <TableCell
                  data-testid={`live-routed-${a.userId}`}
                  sx={{ display: { xs: 'none', sm: 'table-cell' }, whiteSpace: 'nowrap' }}
                >
                  {routed.data?.get(a.userId)?.assigned ?? 0} · {routed.data?.get(a.userId)?.skips ?? 0}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Stack>
  );
}
