import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import {
  Box,
  Button,
  ButtonBase,
  IconButton,
  Paper,
  ToggleButton,
  ToggleButtonGroup,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha, type Theme } from '@mui/material/styles';
import AddIcon from '@mui/icons-material/Add';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlined';
import { useTranslation } from 'react-i18next';
import type { Schedule, ScheduleStatus } from '@recado/contracts';
import { usePlanFlag } from '../../app/guards.js';
import { useScheduleRange, useSchedulesRealtime } from '../../api/schedules.js';
import { PageHeader } from '../../components/PageHeader.js';
import { ScheduleDialog, useErrorReason } from './ScheduleDialog.js';
import {
  addDays,
  sameDay,
  shift,
  startOfDay,
  startOfWeek,
  visibleRange,
  type CalendarView,
} from './schedule-time.js';
import { formatParts, formatTime } from '../../i18n/format.js';

const STATUS_COLOR: Record<ScheduleStatus, 'primary' | 'info' | 'success' | 'error'> = {
  PENDENTE: 'primary',
  AGENDADA: 'info',
  ENVIADA: 'success',
  ERRO: 'error',
};
const MONTH_CELL_ENTRIES = 3;

/** One schedule on the calendar: its time and contact name, coloured by status. */
function Entry({ s, onOpen, wide = false }: { s: Schedule; onOpen(s: Schedule): void; wide?: boolean }) {
  const { t, i18n } = useTranslation();
  const reason = useErrorReason();
  const color = STATUS_COLOR[s.status];
  const time = formatTime(s.sendAt, i18n.language);
  const title = `${time} · ${s.contact.name} — ${t(`schedules.status.${s.status}`)}${
    s.status === 'ERRO' ? `: ${reason(s.error)}` : ''
  }`;
  return (
    <Tooltip title={title} placement="top" enterDelay={400}>
      <ButtonBase
        onClick={(e) => {
          e.stopPropagation();
          onOpen(s);
        }}
        data-testid="schedule-entry"
        data-status={s.status}
        aria-label={title}
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 0.5,
          width: '100%',
          justifyContent: 'flex-start',
          textAlign: 'left',
          px: 0.75,
          py: wide ? 0.75 : 0.25,
          borderRadius: 1,
          borderLeft: 3,
          borderColor: `${color}.main`,
          bgcolor: (theme: Theme) =>
            alpha(theme.palette[color].main, theme.palette.mode === 'dark' ? 0.22 : 0.1),
          color: 'text.primary',
          fontSize: 12,
          minWidth: 0,
          textDecoration: s.status === 'ENVIADA' ? 'none' : undefined,
          '&:hover': { bgcolor: (theme: Theme) => alpha(theme.palette[color].main, 0.28) },
        }}
      >
        <Box component="span" sx={{ fontWeight: 700, fontVariantNumeric: 'tabular-nums', flexShrink: 0 }}>
          {time}
        </Box>
        <Box
          component="span"
          sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', flex: 1 }}
        >
          {s.contact.name}
          {wide ? (
            <Box component="span" sx={{ color: 'text.secondary' }}>
              {' — '}
              {s.body}
            </Box>
          ) : null}
        </Box>
        {s.mediaName ? <AttachFileIcon sx={{ fontSize: 14, flexShrink: 0 }} /> : null}
        {s.status === 'ERRO' ? <ErrorOutlineIcon color="error" sx={{ fontSize: 14, flexShrink: 0 }} /> : null}
      </ButtonBase>
    </Tooltip>
  );
}

/** Schedules (docs/team-tools.md): a month/week/day calendar of scheduled messages; ?contactId= opens a new one. */
export default function SchedulesPage() {
  const { t, i18n } = useTranslation();
  const allowed = usePlanFlag('useSchedules');
  const [params, setParams] = useSearchParams();
  const [view, setView] = useState<CalendarView>('month');
  const [anchor, setAnchor] = useState(() => startOfDay(new Date()));
  const { from, to } = useMemo(() => visibleRange(view, anchor), [view, anchor]);
  const range = useScheduleRange(from, to, allowed);
  useSchedulesRealtime(allowed);

  /** undefined: closed; null: new (optionally for a contact / at a day). */
  const [editing, setEditing] = useState<Schedule | null | undefined>(undefined);
  const [newAt, setNewAt] = useState<Date | null>(null);
  const queryContact = Number(params.get('contactId')) || null;
  const [contactForNew, setContactForNew] = useState<number | null>(null);

  useEffect(() => {
    if (!allowed || !queryContact) return;
    setContactForNew(queryContact);
    setNewAt(null);
    setEditing(null);
  }, [allowed, queryContact]);

  const closeDialog = () => {
    setEditing(undefined);
    setContactForNew(null);
    if (params.has('contactId')) {
      params.delete('contactId');
      setParams(params, { replace: true });
    }
  };
  const openNew = (day: Date | null) => {
    setContactForNew(null);
    if (day) {
      const now = new Date();
      const at = sameDay(day, now)
        ? new Date(now.getTime() + 60 * 60 * 1000)
        : new Date(day.getFullYear(), day.getMonth(), day.getDate(), 9, 0);
      setNewAt(at);
    } else setNewAt(null);
    setEditing(null);
  };

  const byDay = useMemo(() => {
    const map = new Map<string, Schedule[]>();
    for (const s of range.data ?? []) {
      const d = startOfDay(new Date(s.sendAt)).toDateString();
      map.set(d, [...(map.get(d) ?? []), s]);
    }
    return map;
  }, [range.data]);
  const on = (d: Date) => byDay.get(d.toDateString()) ?? [];

  const today = new Date();
  const weekdayNames = Array.from({ length: 7 }, (_v, i) =>
    formatParts(addDays(startOfWeek(today), i), i18n.language, { weekday: 'short' }),
  );
  const rawLabel =
    view === 'month'
      ? formatParts(anchor, i18n.language, { month: 'long', year: 'numeric' })
      : view === 'week'
        ? `${formatParts(from, i18n.language, { day: 'numeric', month: 'short' })} – ${formatParts(addDays(to, -1), i18n.language, { day: 'numeric', month: 'short', year: 'numeric' })}`
        : formatParts(anchor, i18n.language, {
            weekday: 'long',
            day: 'numeric',
            month: 'long',
            year: 'numeric',
          });

  // Only the first letter: "novembro de 2026" becomes "Novembro de 2026".
  const label = rawLabel.charAt(0).toUpperCase() + rawLabel.slice(1);

  // Without useSchedules the router's PlanRoute refuses the screen: nothing here renders then.
  if (!allowed) return null;

  const dayHeader = (d: Date) => (
    <Typography
      variant="caption"
      sx={{
        display: 'inline-grid',
        placeItems: 'center',
        minWidth: 24,
        height: 24,
        px: 0.5,
        borderRadius: 12,
        fontWeight: 600,
        ...(sameDay(d, today) ? { bgcolor: 'primary.main', color: 'primary.contrastText' } : {}),
      }}
    >
      {d.getDate()}
    </Typography>
  );

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('schedules.title')}>
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          onClick={() => openNew(null)}
          data-testid="schedule-add"
        >
          {t('schedules.add')}
        </Button>
      </PageHeader>

      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Button variant="outlined" size="small" onClick={() => setAnchor(startOfDay(new Date()))}>
          {t('schedules.today')}
        </Button>
        <IconButton aria-label={t('schedules.previous')} onClick={() => setAnchor((a) => shift(view, a, -1))}>
          <ChevronLeftIcon />
        </IconButton>
        <IconButton aria-label={t('schedules.next')} onClick={() => setAnchor((a) => shift(view, a, 1))}>
          <ChevronRightIcon />
        </IconButton>
        <Typography variant="h6" sx={{ flex: 1, minWidth: 180 }} data-testid="calendar-label">
          {label}
        </Typography>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={view}
          onChange={(_e, v: CalendarView | null) => v && setView(v)}
          aria-label={t('schedules.view')}
        >
          <ToggleButton value="month">{t('schedules.month')}</ToggleButton>
          <ToggleButton value="week">{t('schedules.week')}</ToggleButton>
          <ToggleButton value="day">{t('schedules.day')}</ToggleButton>
        </ToggleButtonGroup>
      </Box>

      <Paper variant="outlined" sx={{ overflow: 'auto', flex: 1, minHeight: 0 }} data-testid="calendar">
        {view === 'day' ? (
          <Box>
            {Array.from({ length: 24 }, (_v, h) => {
              const items = on(anchor).filter((s) => new Date(s.sendAt).getHours() === h);
              return (
                <Box
                  key={h}
                  onClick={() => {
                    setContactForNew(null);
                    setNewAt(new Date(anchor.getFullYear(), anchor.getMonth(), anchor.getDate(), h, 0));
                    setEditing(null);
                  }}
                  sx={{
                    display: 'flex',
                    gap: 1,
                    minHeight: 40,
                    borderBottom: 1,
                    borderColor: 'divider',
                    cursor: 'pointer',
                    '&:hover': { bgcolor: 'action.hover' },
                  }}
                >
                  <Typography
                    variant="caption"
                    color="text.secondary"
                    sx={{ width: 56, flexShrink: 0, textAlign: 'right', pr: 1, pt: 0.5 }}
                  >
                    {formatTime(new Date(2000, 0, 1, h), i18n.language)}
                  </Typography>
                  <Box
                    sx={{
                      flex: 1,
                      display: 'flex',
                      flexDirection: 'column',
                      gap: 0.5,
                      py: 0.5,
                      pr: 1,
                      minWidth: 0,
                    }}
                  >
                    {items.map((s) => (
                      <Entry key={s.id} s={s} onOpen={setEditing} wide />
                    ))}
                  </Box>
                </Box>
              );
            })}
          </Box>
        ) : (
          <Box sx={{ minWidth: 640 }}>
            <Box
              sx={{
                display: 'grid',
                gridTemplateColumns: 'repeat(7, 1fr)',
                borderBottom: 1,
                borderColor: 'divider',
              }}
            >
              {(view === 'week' ? Array.from({ length: 7 }, (_v, i) => addDays(from, i)) : weekdayNames).map(
                (d, i) => (
                  <Box key={i} sx={{ px: 1, py: 0.75, textAlign: 'center' }}>
                    <Typography
                      variant="caption"
                      color="text.secondary"
                      sx={{ textTransform: 'uppercase', fontWeight: 600 }}
                    >
                      {typeof d === 'string' ? d : weekdayNames[d.getDay()]}
                    </Typography>
                    {typeof d === 'string' ? null : <Box>{dayHeader(d)}</Box>}
                  </Box>
                ),
              )}
            </Box>
            <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(7, 1fr)' }}>
              {Array.from({ length: view === 'week' ? 7 : 42 }, (_v, i) => {
                const d = addDays(from, i);
                const items = on(d);
                const outside = view === 'month' && d.getMonth() !== anchor.getMonth();
                const shown = view === 'month' ? items.slice(0, MONTH_CELL_ENTRIES) : items;
                return (
                  <Box
                    key={i}
                    onClick={() => openNew(d)}
                    data-testid="calendar-day"
                    data-date={d.toDateString()}
                    sx={{
                      minHeight: view === 'week' ? 420 : 96,
                      p: 0.5,
                      borderRight: (i + 1) % 7 ? 1 : 0,
                      borderBottom: 1,
                      borderColor: 'divider',
                      display: 'flex',
                      flexDirection: 'column',
                      gap: 0.5,
                      minWidth: 0,
                      cursor: 'pointer',
                      bgcolor: outside ? 'action.hover' : undefined,
                      '&:hover': { bgcolor: 'action.selected' },
                    }}
                  >
                    {view === 'month' ? <Box sx={{ opacity: outside ? 0.5 : 1 }}>{dayHeader(d)}</Box> : null}
                    {shown.map((s) => (
                      <Entry key={s.id} s={s} onOpen={setEditing} />
                    ))}
                    {items.length > shown.length ? (
                      <ButtonBase
                        onClick={(e) => {
                          e.stopPropagation();
                          setAnchor(d);
                          setView('day');
                        }}
                        sx={{ fontSize: 12, color: 'primary.main', justifyContent: 'flex-start', px: 0.75 }}
                      >
                        {t('schedules.more', { count: items.length - shown.length })}
                      </ButtonBase>
                    ) : null}
                  </Box>
                );
              })}
            </Box>
          </Box>
        )}
      </Paper>

      <ScheduleDialog
        open={editing !== undefined}
        schedule={editing ?? null}
        contactId={editing ? null : contactForNew}
        defaultSendAt={newAt}
        onClose={closeDialog}
      />
    </Box>
  );
}
