import { useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  Box,
  Button,
  Link,
  MenuItem,
  Paper,
  Rating,
  Skeleton,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import {
  DASHBOARD_PERIODS,
  type ChannelKindName,
  type DashboardCounters,
  type TicketsPerChannel,
  type TicketsPerDay,
  type TicketsPerUser,
} from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import {
  dashboardKeys,
  downloadDashboardCsv,
  useDashboardCounters,
  useSourceTracking,
  useTicketsPerChannel,
  useTicketsPerDay,
  useTicketsPerUser,
  type DashboardFilter,
  type DashboardRange,
} from '../../api/dashboard.js';
import { useQueues } from '../../api/queues.js';
import { useWhatsapps } from '../../api/whatsapps.js';
import { ChannelIcon } from '../connections/ConnectionStatus.js';
import { useCompanyChannels } from '../connections/ChannelFilter.js';
import { PageHeader } from '../../components/PageHeader.js';
import { DateRangeFields } from '../../components/DateField.js';
import { formatParts, localeOf, useDateFormat } from '../../i18n/format.js';
import { SlaAchievementSection } from '../sla/SlaAchievementSection.js';
import { ClosingStatsSection } from '../closing/ClosingStatsSection.js';
import { PresenceDot } from '../../layout/PresenceSwitch.js';

/** A number in the interface language (not the browser's): "0,7" in pt and es, "0.7" in en. */
function useNumber() {
  const { i18n } = useTranslation();
  const locale = localeOf(i18n.resolvedLanguage ?? i18n.language);
  return useMemo(
    () => ({
      locale,
      /** Minutes with one decimal, or "—" when no ticket qualifies. */
      minutes: (v: number | null | undefined) =>
        v === null || v === undefined ? '—' : v.toLocaleString(locale, { maximumFractionDigits: 1 }),
      fixed: (v: number, digits: number) => v.toLocaleString(locale, { maximumFractionDigits: digits }),
    }),
    [locale],
  );
}

/** How a figure moved against the previous period: its direction and whether that is better. */
interface Delta {
  /** now − before (null when either side has no value). */
  diff: number | null;
  /** Lower is better (durations); higher is better (finished, ratings). */
  lowerIsBetter: boolean;
  /** How to print the difference. */
  show: (abs: number) => string;
}

/** The comparison line of a card: "▲ 3 vs. 20/11–26/11", coloured by whether the move is good. */
function DeltaLine({ delta, testId }: { delta: Delta; testId: string }) {
  const { t } = useTranslation();
  const { diff, lowerIsBetter, show } = delta;
  if (diff === null)
    return (
      <Typography variant="caption" color="text.secondary" data-testid={testId} component="p">
        {t('dashboard.delta.none')}
      </Typography>
    );
  const good = diff === 0 ? null : diff < 0 === lowerIsBetter;
  const arrow = diff > 0 ? '▲' : diff < 0 ? '▼' : '=';
  return (
    <Typography
      variant="caption"
      component="p"
      data-testid={testId}
      sx={{
        fontWeight: 600,
        color: good === null ? 'text.secondary' : good ? 'success.main' : 'error.main',
      }}
    >
      {diff === 0
        ? t('dashboard.delta.same')
        : t('dashboard.delta.changed', { arrow, value: show(Math.abs(diff)) })}
    </Typography>
  );
}

/** The help text of a figure: its exact definition (docs/metrics.md). */
function Help({ text }: { text: string }) {
  return (
    <Tooltip title={text} enterTouchDelay={0}>
      <InfoOutlinedIcon
        fontSize="inherit"
        sx={{ ml: 0.5, verticalAlign: 'middle', color: 'text.secondary', cursor: 'help' }}
        aria-label={text}
        tabIndex={0}
      />
    </Tooltip>
  );
}

function Section({
  title,
  help,
  children,
  testId,
}: {
  title: string;
  help?: string;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 }, minWidth: 0 }} data-testid={testId}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>
        {title}
        {help ? <Help text={help} /> : null}
      </Typography>
      {children}
    </Paper>
  );
}

function Card({
  label,
  help,
  value,
  sub,
  loading,
  testId,
  delta,
  note,
}: {
  label: string;
  help: string;
  value: ReactNode;
  sub?: ReactNode;
  loading: boolean;
  testId: string;
  /** Against the previous period of the same length. */
  delta?: Delta;
  /** A line under the label (the cards of now say they ignore the period). */
  note?: string;
}) {
  return (
    <Paper variant="outlined" sx={{ p: 1.5, minWidth: 0 }}>
      <Typography variant="body2" color="text.secondary" sx={{ minHeight: 20 }}>
        {label}
        <Help text={help} />
      </Typography>
      {note ? (
        <Typography variant="caption" color="text.secondary" component="p" data-testid={`${testId}-note`}>
          {note}
        </Typography>
      ) : null}
      {loading ? (
        <Skeleton width="60%" height={40} />
      ) : (
        <Typography variant="h4" component="p" sx={{ fontWeight: 600 }} data-testid={testId}>
          {value}
        </Typography>
      )}
      {sub && !loading ? (
        <Typography variant="caption" color="text.secondary" component="p">
          {sub}
        </Typography>
      ) : null}
      {delta && !loading ? <DeltaLine delta={delta} testId={`${testId}-delta`} /> : null}
    </Paper>
  );
}

function Empty() {
  const { t } = useTranslation();
  return (
    <Typography color="text.secondary" sx={{ py: 3, textAlign: 'center' }}>
      {t('dashboard.empty')}
    </Typography>
  );
}

/** A horizontal bar: `value` of `max`, in the primary colour on a faint track. */
function Bar({ value, max, height, sx }: { value: number; max: number; height: number; sx?: object }) {
  return (
    <Box sx={{ height, borderRadius: 1, bgcolor: 'action.hover', ...sx }} aria-hidden>
      <Box
        sx={{ height: '100%', width: `${(value / max) * 100}%`, borderRadius: 1, bgcolor: 'primary.main' }}
      />
    </Box>
  );
}

function UsersChart({ rows }: { rows: TicketsPerUser[] }) {
  const { t } = useTranslation();
  const max = Math.max(1, ...rows.map((r) => r.total));
  if (rows.length === 0) return <Empty />;
  return (
    <Stack spacing={0.75} data-testid="chart-users">
      {rows.map((r) => (
        <Box
          key={r.userId ?? 'none'}
          sx={{
            display: 'grid',
            gridTemplateColumns: 'minmax(80px, 30%) 1fr auto',
            gap: 1,
            alignItems: 'center',
          }}
        >
          <Typography variant="body2" noWrap title={r.name ?? t('dashboard.noAttendant')}>
            {r.name ?? t('dashboard.noAttendant')}
          </Typography>
          <Bar value={r.total} max={max} height={14} />
          <Typography variant="body2" sx={{ fontVariantNumeric: 'tabular-nums' }}>
            {r.total}
          </Typography>
        </Box>
      ))}
    </Stack>
  );
}

/** #34.4 Tickets per channel: created and closed in the period, open or pending now. */
function ChannelsTable({ rows }: { rows: TicketsPerChannel[] }) {
  const { t } = useTranslation();
  if (rows.length === 0) return <Empty />;
  const max = Math.max(1, ...rows.map((r) => r.created));
  return (
    <TableContainer>
      <Table size="small" sx={{ '& td, & th': { px: { xs: 0.75, sm: 2 } } }} data-testid="chart-channels">
        <TableHead>
          <TableRow>
            <TableCell>{t('dashboard.columns.channel')}</TableCell>
            <TableCell align="right">{t('dashboard.columns.created')}</TableCell>
            <TableCell align="right">{t('dashboard.columns.closed')}</TableCell>
            <TableCell align="right">{t('dashboard.columns.active')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r) => (
            <TableRow key={r.channel ?? 'none'} data-testid={`channel-row-${r.channel ?? 'none'}`}>
              <TableCell sx={{ minWidth: 0 }}>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
                  {r.channel ? <ChannelIcon channel={r.channel} size={18} tooltip={false} /> : null}
                  <Typography variant="body2" noWrap sx={{ minWidth: 64 }}>
                    {r.channel ? t(`connections.channels.${r.channel}`) : t('dashboard.noChannel')}
                  </Typography>
                  <Bar value={r.created} max={max} height={8} sx={{ flex: 1, minWidth: 24 }} />
                </Box>
              </TableCell>
              <TableCell align="right" sx={{ fontVariantNumeric: 'tabular-nums' }}>
                {r.created}
              </TableCell>
              <TableCell align="right" sx={{ fontVariantNumeric: 'tabular-nums' }}>
                {r.closed}
              </TableCell>
              <TableCell align="right" sx={{ fontVariantNumeric: 'tabular-nums' }}>
                {r.active}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** Axis steps of 1, 2 or 5 × 10ⁿ: at most four steps up to the largest value. */
function axisTicks(max: number): number[] {
  const raw = Math.max(1, max) / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p);
  const top = Math.max(step, Math.ceil(max / step) * step);
  return Array.from({ length: Math.round(top / step) + 1 }, (_v, i) => i * step);
}

/** Up to this many days, each bar carries its value above it; past it, the tooltip and the axis say it. */
const VALUES_UP_TO_DAYS = 15;
const PLOT_HEIGHT = 160;

function DaysChart({ rows }: { rows: TicketsPerDay[] }) {
  const { t } = useTranslation();
  const { lang } = useDateFormat();
  const { fixed } = useNumber();
  const ticks = axisTicks(Math.max(0, ...rows.map((r) => Math.max(r.created, r.closed))));
  const top = ticks[ticks.length - 1]!;
  if (rows.every((r) => r.created === 0 && r.closed === 0)) return <Empty />;
  // A local day (YYYY-MM-DD) in the interface's order: 27/11 (pt, es), 11/27 (en).
  const label = (d: string) =>
    formatParts(`${d}T12:00:00Z`, lang, { day: '2-digit', month: '2-digit', timeZone: 'UTC' });
  const step = Math.max(1, Math.ceil(rows.length / 6));
  const values = rows.length <= VALUES_UP_TO_DAYS;
  const bar = (value: number, color: string, testId: string) => (
    <Box
      sx={{
        flex: 1,
        minWidth: 0,
        height: '100%',
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'flex-end',
        alignItems: 'center',
      }}
    >
      {values && value > 0 ? (
        <Typography
          variant="caption"
          data-testid={`${testId}-value`}
          sx={{ lineHeight: 1.2, fontSize: 11, fontVariantNumeric: 'tabular-nums', color: 'text.primary' }}
        >
          {fixed(value, 0)}
        </Typography>
      ) : null}
      <Box
        data-testid={testId}
        sx={{
          width: '100%',
          height: `${(value / top) * 100}%`,
          bgcolor: color,
          borderRadius: '2px 2px 0 0',
        }}
      />
    </Box>
  );
  return (
    <Box data-testid="chart-days">
      <Stack direction="row" spacing={2} sx={{ mb: 1 }}>
        <Legend color="primary.main" text={t('dashboard.created')} />
        <Legend color="info.main" text={t('dashboard.closed')} />
      </Stack>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', columnGap: 0.75 }}>
        {/* The value axis: its steps, and a line across the plot at each. */}
        <Box sx={{ position: 'relative', height: PLOT_HEIGHT, minWidth: 16 }} data-testid="chart-days-axis">
          {ticks.map((v) => (
            <Typography
              key={v}
              variant="caption"
              color="text.secondary"
              sx={{
                position: 'absolute',
                right: 0,
                bottom: `calc(${(v / top) * 100}% - 0.6em)`,
                lineHeight: 1.2,
                fontSize: 11,
                fontVariantNumeric: 'tabular-nums',
              }}
            >
              {fixed(v, 0)}
            </Typography>
          ))}
        </Box>
        <Box
          sx={{
            position: 'relative',
            height: PLOT_HEIGHT,
            borderLeft: 1,
            borderBottom: 1,
            borderColor: 'divider',
          }}
        >
          {ticks.slice(1).map((v) => (
            <Box
              key={v}
              sx={{
                position: 'absolute',
                left: 0,
                right: 0,
                bottom: `${(v / top) * 100}%`,
                borderTop: 1,
                borderColor: 'divider',
                borderTopStyle: 'dashed',
                opacity: 0.6,
              }}
            />
          ))}
          <Box
            sx={{
              position: 'relative',
              display: 'flex',
              alignItems: 'flex-end',
              gap: '2px',
              height: '100%',
              px: '2px',
            }}
          >
            {rows.map((r) => (
              <Tooltip
                key={r.date}
                title={`${label(r.date)}: ${t('dashboard.created')} ${r.created}, ${t('dashboard.closed')} ${r.closed}`}
              >
                <Box
                  role="img"
                  aria-label={`${label(r.date)}: ${t('dashboard.created')} ${r.created}, ${t('dashboard.closed')} ${r.closed}`}
                  sx={{
                    flex: 1,
                    minWidth: 0,
                    height: '100%',
                    display: 'flex',
                    alignItems: 'flex-end',
                    gap: '1px',
                  }}
                >
                  {bar(r.created, 'primary.main', `day-${r.date}-created`)}
                  {bar(r.closed, 'info.main', `day-${r.date}-closed`)}
                </Box>
              </Tooltip>
            ))}
          </Box>
        </Box>
        <Box />
        <Box sx={{ display: 'flex', gap: '2px', px: '2px' }}>
          {rows.map((r, i) => (
            <Typography
              key={r.date}
              variant="caption"
              color="text.secondary"
              sx={{ flex: 1, minWidth: 0, overflow: 'visible', whiteSpace: 'nowrap' }}
            >
              {i % step === 0 ? label(r.date) : ''}
            </Typography>
          ))}
        </Box>
      </Box>
    </Box>
  );
}

function Legend({ color, text }: { color: string; text: string }) {
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <Box sx={{ width: 10, height: 10, borderRadius: 0.5, bgcolor: color }} />
      <Typography variant="caption">{text}</Typography>
    </Stack>
  );
}

/** A filter field: a fixed width beside the others, the whole line on a phone. */
const filterField = { width: { xs: '100%', sm: 190 } } as const;

/** The admin dashboard (docs/metrics.md, docs/product.md#errors): figures defined in docs/metrics.md. */
export default function DashboardPage() {
  const { t } = useTranslation();
  const toast = useToast();
  const { minutes, fixed } = useNumber();
  const df = useDateFormat();
  /** A local day (YYYY-MM-DD) as the interface writes dates. */
  const dayText = (d: string) => df.date(`${d}T12:00:00`);
  const [type, setType] = useState<1 | 2>(2);
  const [days, setDays] = useState<number | ''>(7);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  /** The date range was applied with its first day after its last. */
  const [reversed, setReversed] = useState(false);
  const [queueId, setQueueId] = useState<number | ''>('');
  const [whatsappId, setWhatsappId] = useState<number | ''>('');
  const [channel, setChannel] = useState<ChannelKindName | ''>('');
  const companyChannels = useCompanyChannels();
  const connections = useWhatsapps();
  const [filter, setFilter] = useState<DashboardFilter | null>({ type: 2, days: 7 });
  const queues = useQueues();
  const client = useQueryClient();

  const counters = useDashboardCounters(filter);
  const data: DashboardCounters | undefined = counters.data;
  const range: DashboardRange | null = useMemo(
    () =>
      data && filter
        ? {
            initialDate: data.period.from,
            finalDate: data.period.to,
            ...(filter.queueId ? { queueId: filter.queueId } : {}),
            ...(filter.whatsappId ? { whatsappId: filter.whatsappId } : {}),
            ...(filter.channel ? { channel: filter.channel } : {}),
          }
        : null,
    [data, filter],
  );
  const perUser = useTicketsPerUser(range);
  const perDay = useTicketsPerDay(range);
  const sources = useSourceTracking(range);
  const perChannel = useTicketsPerChannel(range);

  // docs/product.md#errors: a chart that fails says so.
  useEffect(() => {
    if (perUser.isError) toast.warning('dashboard.userChartError');
  }, [perUser.isError, toast]);
  useEffect(() => {
    if (perDay.isError) toast.warning('dashboard.dateChartError');
  }, [perDay.isError, toast]);
  useEffect(() => {
    if (counters.isError) toast.error(counters.error);
  }, [counters.isError, counters.error, toast]);

  const apply = () => {
    // Filtering again reads the figures again, even for the same filter.
    void client.invalidateQueries({ queryKey: dashboardKeys.all });
    const q = {
      ...(queueId === '' ? {} : { queueId }),
      ...(whatsappId === '' ? {} : { whatsappId }),
      ...(channel === '' ? {} : { channel }),
    };
    setReversed(false);
    if (type === 2 && days !== '') setFilter({ type: 2, days, ...q });
    else if (type === 1 && from && to && from > to) {
      // Not "choose a filter": both dates are there, in the wrong order.
      setReversed(true);
      toast.warning('dashboard.reversedRange');
    } else if (type === 1 && from && to) setFilter({ type: 1, from, to, ...q });
    else toast.warning('dashboard.chooseFilter');
  };

  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    if (!range) return;
    setExporting(true);
    try {
      await downloadDashboardCsv(range);
    } catch (err) {
      toast.error(err);
    } finally {
      setExporting(false);
    }
  };

  const loading = counters.isPending;
  /** A mean duration against the previous period's: shorter is better. */
  const durationDelta = (
    d: DashboardCounters | undefined,
    key: 'waitTime' | 'supportTime' | 'firstResponseTime' | 'resolutionTime',
  ): Delta | undefined =>
    d && {
      diff:
        d[key].avg == null || d.previous[key].avg == null
          ? null
          : Math.round((d[key].avg - d.previous[key].avg) * 10) / 10,
      lowerIsBetter: true,
      show: (v) => t('dashboard.minutesShort', { value: minutes(v) }),
    };
  const csat = data?.csat;

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minWidth: 0 }}>
      <PageHeader title={t('dashboard.title')}>
        {data ? (
          <Typography variant="body2" color="text.secondary" data-testid="dashboard-period">
            {t('dashboard.periodShown', {
              from: dayText(data.period.from),
              to: dayText(data.period.to),
              tz: data.period.timeZone,
            })}
          </Typography>
        ) : null}
        {data ? (
          <Typography variant="caption" color="text.secondary" data-testid="dashboard-previous">
            {t('dashboard.comparedWith', {
              from: dayText(data.previous.period.from),
              to: dayText(data.previous.period.to),
            })}
          </Typography>
        ) : null}
      </PageHeader>

      <Paper variant="outlined" sx={{ p: 1.5 }}>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1.5, alignItems: 'center' }}>
          <TextField
            select
            size="small"
            label={t('dashboard.filterType')}
            value={type}
            onChange={(e) => setType(Number(e.target.value) as 1 | 2)}
            fullWidth={false}
            sx={filterField}
            slotProps={{ htmlInput: { 'data-testid': 'filter-type' } }}
          >
            <MenuItem value={1}>{t('dashboard.byDate')}</MenuItem>
            <MenuItem value={2}>{t('dashboard.byPeriod')}</MenuItem>
          </TextField>
          {type === 1 ? (
            <DateRangeFields
              sx={filterField}
              labels={{ from: t('dashboard.from'), to: t('dashboard.to') }}
              value={{ from, to }}
              onChange={(range) => {
                setFrom(range.from);
                setTo(range.to);
                setReversed(false);
              }}
              error={reversed}
              helperText={reversed ? t('dashboard.reversedRange') : undefined}
              testIds={{ from: 'filter-from', to: 'filter-to' }}
            />
          ) : (
            <TextField
              select
              size="small"
              label={t('dashboard.period')}
              value={days}
              onChange={(e) => setDays(e.target.value === '' ? '' : Number(e.target.value))}
              fullWidth={false}
              sx={filterField}
              slotProps={{ htmlInput: { 'data-testid': 'filter-period' } }}
            >
              <MenuItem value="">{t('dashboard.noPeriod')}</MenuItem>
              {DASHBOARD_PERIODS.map((d) => (
                <MenuItem key={d} value={d}>
                  {t('dashboard.lastDays', { days: d })}
                </MenuItem>
              ))}
            </TextField>
          )}
          <TextField
            select
            size="small"
            label={t('dashboard.queue')}
            value={queueId}
            onChange={(e) => setQueueId(e.target.value === '' ? '' : Number(e.target.value))}
            fullWidth={false}
            sx={filterField}
          >
            <MenuItem value="">{t('dashboard.allQueues')}</MenuItem>
            {(queues.data ?? []).map((q) => (
              <MenuItem key={q.id} value={q.id}>
                {q.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            size="small"
            label={t('dashboard.connection')}
            value={whatsappId}
            onChange={(e) => setWhatsappId(e.target.value === '' ? '' : Number(e.target.value))}
            fullWidth={false}
            sx={filterField}
          >
            <MenuItem value="">{t('dashboard.allConnections')}</MenuItem>
            {(connections.data ?? []).map((w) => (
              <MenuItem key={w.id} value={w.id}>
                {w.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            size="small"
            label={t('dashboard.channel')}
            value={channel}
            onChange={(e) => setChannel(e.target.value as ChannelKindName | '')}
            fullWidth={false}
            sx={filterField}
            slotProps={{
              htmlInput: { 'data-testid': 'filter-channel' },
              select: {
                renderValue: (v) =>
                  v === '' ? (
                    t('dashboard.allChannels')
                  ) : (
                    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75 }}>
                      <ChannelIcon channel={v as string} size={16} tooltip={false} />
                      {t(`connections.channels.${v as string}`)}
                    </Box>
                  ),
                displayEmpty: true,
              },
            }}
          >
            <MenuItem value="">{t('dashboard.allChannels')}</MenuItem>
            {[...companyChannels, ...(channel && !companyChannels.includes(channel) ? [channel] : [])].map(
              (c) => (
                <MenuItem key={c} value={c} data-testid={`filter-channel-${c}`} sx={{ gap: 1 }}>
                  <ChannelIcon channel={c} size={18} tooltip={false} />
                  {t(`connections.channels.${c}`)}
                </MenuItem>
              ),
            )}
          </TextField>
          <Button variant="contained" onClick={apply} data-testid="filter-apply">
            {t('dashboard.apply')}
          </Button>
          <Button
            variant="outlined"
            startIcon={<FileDownloadOutlinedIcon />}
            disabled={!range || exporting}
            onClick={() => void exportCsv()}
            data-testid="dashboard-export"
          >
            {t('dashboard.export')}
          </Button>
        </Box>
      </Paper>

      <Box
        sx={{
          display: 'grid',
          gap: 1.5,
          gridTemplateColumns: { xs: 'repeat(2, minmax(0, 1fr))', md: 'repeat(4, minmax(0, 1fr))' },
        }}
      >
        <Card
          loading={loading}
          testId="count-happening"
          label={t('dashboard.supportHappening')}
          help={t('dashboard.help.supportHappening')}
          value={data?.supportHappening ?? 0}
          note={t('dashboard.nowNote')}
        />
        <Card
          loading={loading}
          testId="count-pending"
          label={t('dashboard.supportPending')}
          help={t('dashboard.help.supportPending')}
          value={data?.supportPending ?? 0}
          note={t('dashboard.nowNote')}
        />
        <Card
          loading={loading}
          testId="count-finished"
          label={t('dashboard.supportFinished')}
          help={t('dashboard.help.supportFinished')}
          value={data?.supportFinished ?? 0}
          delta={
            data && {
              diff: data.supportFinished - data.previous.supportFinished,
              lowerIsBetter: false,
              show: (v) => fixed(v, 0),
            }
          }
        />
        <Card
          loading={loading}
          testId="count-csat"
          label={t('dashboard.csat')}
          help={t('dashboard.help.csat')}
          value={csat?.avg == null ? '—' : fixed(csat.avg, 2)}
          sub={[
            t('dashboard.ratings', { count: csat?.ratings ?? 0 }),
            csat?.responseRate == null
              ? null
              : t('dashboard.responseRate', { rate: fixed(Math.round(csat.responseRate * 100), 0) }),
          ]
            .filter(Boolean)
            .join(' · ')}
          delta={
            data && {
              diff:
                data.csat.avg == null || data.previous.csat.avg == null
                  ? null
                  : Math.round((data.csat.avg - data.previous.csat.avg) * 100) / 100,
              lowerIsBetter: false,
              show: (v) => fixed(v, 2),
            }
          }
        />
        <Card
          loading={loading}
          testId="avg-wait"
          label={t('dashboard.avgWaitTime')}
          help={t('dashboard.help.avgWaitTime')}
          value={minutes(data?.avgWaitTime)}
          sub={t('dashboard.minutesMedian', {
            median: minutes(data?.waitTime.median),
            count: data?.waitTime.count ?? 0,
          })}
          delta={durationDelta(data, 'waitTime')}
        />
        <Card
          loading={loading}
          testId="avg-support"
          label={t('dashboard.avgSupportTime')}
          help={t('dashboard.help.avgSupportTime')}
          value={minutes(data?.avgSupportTime)}
          sub={t('dashboard.minutesMedian', {
            median: minutes(data?.supportTime.median),
            count: data?.supportTime.count ?? 0,
          })}
          delta={durationDelta(data, 'supportTime')}
        />
        <Card
          loading={loading}
          testId="avg-first-response"
          label={t('dashboard.firstResponseTime')}
          help={t('dashboard.help.firstResponseTime')}
          value={minutes(data?.firstResponseTime.avg)}
          sub={t('dashboard.minutesMedian', {
            median: minutes(data?.firstResponseTime.median),
            count: data?.firstResponseTime.count ?? 0,
          })}
          delta={durationDelta(data, 'firstResponseTime')}
        />
        <Card
          loading={loading}
          testId="avg-resolution"
          label={t('dashboard.resolutionTime')}
          help={t('dashboard.help.resolutionTime')}
          value={minutes(data?.resolutionTime.avg)}
          sub={t('dashboard.minutesMedian', {
            median: minutes(data?.resolutionTime.median),
            count: data?.resolutionTime.count ?? 0,
          })}
          delta={durationDelta(data, 'resolutionTime')}
        />
      </Box>

      <Section title={t('dashboard.attendants')} help={t('dashboard.help.attendants')} testId="attendants">
        {loading ? (
          <Skeleton variant="rectangular" height={120} />
        ) : (data?.attendants.length ?? 0) === 0 ? (
          <Empty />
        ) : (
          <TableContainer>
            <Table size="small" sx={{ '& td, & th': { px: { xs: 0.75, sm: 2 } } }}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('dashboard.columns.name')}</TableCell>
                  <TableCell align="right">{t('dashboard.columns.tickets')}</TableCell>
                  <TableCell align="center">{t('dashboard.columns.rating')}</TableCell>
                  <TableCell align="right">{t('dashboard.columns.avgSupportTime')}</TableCell>
                  <TableCell align="center">{t('dashboard.columns.online')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data!.attendants.map((a) => (
                  <TableRow key={a.id} data-testid={`attendant-${a.id}`}>
                    <TableCell
                      sx={{
                        maxWidth: 180,
                        overflow: 'hidden',
                        textOverflow: 'ellipsis',
                        whiteSpace: 'nowrap',
                      }}
                    >
                      {a.name}
                    </TableCell>
                    <TableCell align="right">{a.tickets}</TableCell>
                    <TableCell align="center">
                      <Rating
                        value={a.rating}
                        max={3}
                        precision={0.1}
                        readOnly
                        size="small"
                        aria-label={t('dashboard.stars', { value: a.rating })}
                      />
                    </TableCell>
                    <TableCell align="right">{minutes(a.avgSupportTime)}</TableCell>
                    <TableCell align="center">
                      <PresenceDot presence={a.presence} label={t(`presence.${a.presence}`)} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Section>

      <Box
        sx={{
          display: 'grid',
          gap: 1.5,
          gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'repeat(2, minmax(0, 1fr))' },
        }}
      >
        <Section title={t('dashboard.ticketsUsers')} help={t('dashboard.help.ticketsUsers')}>
          {perUser.isPending ? (
            <Skeleton variant="rectangular" height={160} />
          ) : (
            <UsersChart rows={perUser.data ?? []} />
          )}
        </Section>
        <Section title={t('dashboard.ticketsDay')} help={t('dashboard.help.ticketsDay')}>
          {perDay.isPending ? (
            <Skeleton variant="rectangular" height={160} />
          ) : (
            <DaysChart rows={perDay.data ?? []} />
          )}
        </Section>
      </Box>

      <Section
        title={t('dashboard.ticketsChannel')}
        help={t('dashboard.help.ticketsChannel')}
        testId="tickets-channel"
      >
        {perChannel.isPending ? (
          <Skeleton variant="rectangular" height={80} />
        ) : (
          <ChannelsTable rows={perChannel.data ?? []} />
        )}
      </Section>

      <SlaAchievementSection range={range} />

      <ClosingStatsSection range={range} />

      <Section
        title={t('dashboard.sourceTracking')}
        help={t('dashboard.help.sourceTracking')}
        testId="source-tracking"
      >
        {sources.isPending ? (
          <Skeleton variant="rectangular" height={80} />
        ) : (sources.data?.records.length ?? 0) === 0 ? (
          <Empty />
        ) : (
          <TableContainer sx={{ maxHeight: 360 }}>
            <Table size="small" stickyHeader>
              <TableHead>
                <TableRow>
                  <TableCell>{t('dashboard.columns.campaign')}</TableCell>
                  <TableCell>{t('dashboard.columns.source')}</TableCell>
                  <TableCell>{t('dashboard.columns.medium')}</TableCell>
                  <TableCell>{t('dashboard.columns.link')}</TableCell>
                  <TableCell>{t('dashboard.columns.createdAt')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {sources.data!.records.map((r) => (
                  <TableRow key={r.id}>
                    <TableCell>{r.campaign || '—'}</TableCell>
                    <TableCell>{r.source || '—'}</TableCell>
                    <TableCell>{r.medium || '—'}</TableCell>
                    <TableCell
                      sx={{
                        maxWidth: 200,
                        overflow: 'hidden',
                        textOverflow: 'ellipsis',
                        whiteSpace: 'nowrap',
                      }}
                    >
                      {r.sourceUrl && /^https?:\/\//i.test(r.sourceUrl) ? (
                        <Link href={r.sourceUrl} target="_blank" rel="noopener noreferrer">
                          {r.sourceUrl}
                        </Link>
                      ) : (
                        (r.sourceUrl ?? '—')
                      )}
                    </TableCell>
                    <TableCell>{df.dateTime(r.createdAt)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
            {sources.data!.count > sources.data!.records.length ? (
              <Typography variant="caption" color="text.secondary" sx={{ p: 1, display: 'block' }}>
                {t('dashboard.moreSources', {
                  shown: sources.data!.records.length,
                  count: sources.data!.count,
                })}
              </Typography>
            ) : null}
          </TableContainer>
        )}
      </Section>
    </Box>
  );
}
