import { Box, Chip, CircularProgress, Stack, Tooltip } from '@mui/material';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import { FLOW_STATS_DEFAULT_DAYS, type FlowStats } from '@recado/contracts';
import { DateRangeFields } from '../../components/DateField.js';
import { useFlowT } from './flow-i18n.js';

/** A UTC day `YYYY-MM-DD`, `days` before `from` (the stats count UTC days). */
export const utcDay = (d: Date, days = 0) =>
  new Date(d.getTime() - days * 86_400_000).toISOString().slice(0, 10);

export const defaultStatsPeriod = (now = new Date()) => ({
  from: utcDay(now, FLOW_STATS_DEFAULT_DAYS - 1),
  to: utcDay(now),
});

/** The stats overlay's period (the shared DateField) and the runs' totals in it. */
export function StatsBar({
  period,
  onPeriod,
  stats,
  loading,
}: {
  period: { from: string; to: string };
  onPeriod(p: { from: string; to: string }): void;
  stats: FlowStats | undefined;
  loading: boolean;
}) {
  const { t } = useFlowT();
  const invalid = Boolean(period.from && period.to && period.from > period.to);
  return (
    <Box
      data-testid="flow-stats-bar"
      sx={{
        display: 'flex',
        flexWrap: 'wrap',
        alignItems: 'center',
        gap: 1.5,
        px: 2,
        py: 1,
        borderBottom: 1,
        borderColor: 'divider',
      }}
    >
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <DateRangeFields
          labels={{ from: t('stats.from'), to: t('stats.to') }}
          value={period}
          onChange={onPeriod}
          testIds={{ from: 'flow-stats-from', to: 'flow-stats-to' }}
          error={invalid}
          sx={{ width: 170 }}
        />
      </Stack>
      {loading ? <CircularProgress size={18} aria-label={t('common.loading')} /> : null}
      {stats ? (
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }} data-testid="flow-stats-runs">
          <Chip
            size="small"
            label={t('stats.started', { count: stats.runs.started })}
            data-testid="flow-stats-started"
          />
          <Chip
            size="small"
            color="success"
            variant="outlined"
            label={t('stats.completed', { count: stats.runs.completed })}
          />
          <Chip
            size="small"
            color="warning"
            variant="outlined"
            label={t('stats.droppedRuns', { count: stats.runs.dropped })}
          />
          <Chip
            size="small"
            color="error"
            variant="outlined"
            label={t('stats.failed', { count: stats.runs.failed })}
          />
        </Stack>
      ) : null}
      <Tooltip title={t('stats.help')}>
        <InfoOutlinedIcon fontSize="small" color="action" aria-label={t('stats.help')} tabIndex={0} />
      </Tooltip>
    </Box>
  );
}
