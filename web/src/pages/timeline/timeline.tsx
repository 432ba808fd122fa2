import { useEffect, useSyncExternalStore } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Box, IconButton, Tooltip, Typography } from '@mui/material';
import { useTheme } from '@mui/material/styles';
import HistoryIcon from '@mui/icons-material/History';
import type { TicketTimelineEvent, TicketView } from '@recado/contracts';
import { api } from '../../api/client.js';
import { chatColors } from '../tickets/ticket-format.js';
import { describeEvent, eventTime } from './timeline-format.js';
import { useTimelineT } from './timeline-i18n.js';

// ---- the toggle: one choice for every chat, remembered in this browser ----------------------------------

const SHOW_KEY = 'showTicketEvents';
const listeners = new Set<() => void>();
const readShow = () => {
  try {
    return localStorage.getItem(SHOW_KEY) === '1';
  } catch {
    return false;
  }
};
function setShow(on: boolean) {
  try {
    localStorage.setItem(SHOW_KEY, on ? '1' : '0');
  } catch {
    /* private mode: the choice lasts for this page */
  }
  memory = on;
  for (const l of listeners) l();
}
let memory: boolean | null = null;
const subscribe = (cb: () => void) => {
  listeners.add(cb);
  return () => listeners.delete(cb);
};

/** Whether the chat shows the ticket's events between its messages (#32.5). */
export function useShowTicketEvents() {
  return useSyncExternalStore(subscribe, () => memory ?? readShow());
}

/** The chat header's "Show events" toggle. */
export function TimelineToggle() {
  const { t } = useTimelineT();
  const on = useShowTicketEvents();
  const label = t(on ? 'toggle.hide' : 'toggle.show');
  return (
    <Tooltip title={label}>
      <IconButton
        onClick={() => setShow(!on)}
        aria-label={t('toggle.show')}
        aria-pressed={on}
        color={on ? 'primary' : 'default'}
        data-testid="chat-events-toggle"
      >
        <HistoryIcon />
      </IconButton>
    </Tooltip>
  );
}

// ---- the events --------------------------------------------------------------------------------------

const PAGE = 500;
/** At most this many pages are read for one chat (5,000 events). */
const MAX_PAGES = 10;

async function fetchEvents(ticketId: number): Promise<TicketTimelineEvent[]> {
  const all: TicketTimelineEvent[] = [];
  let after = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await api.get<{ events: TicketTimelineEvent[]; hasMore: boolean }>(
      `/tickets/${ticketId}/events`,
      { after, limit: PAGE },
    );
    all.push(...res.events);
    if (!res.hasMore || !res.events.length) break;
    after = res.events[res.events.length - 1]!.id;
  }
  return all;
}

/**
 * The ticket's timeline while the toggle is on. It is read again when the ticket changes (status, queue,
 * attendant, tags, priority, snooze, a new message): at once, and once more a moment later, since the
 * server records some entries just after it announces the change.
 */
export function useTicketEvents(ticket: TicketView, enabled: boolean, messageCount: number) {
  const client = useQueryClient();
  const key = ['ticket-events', ticket.id] as const;
  const query = useQuery({ queryKey: key, queryFn: () => fetchEvents(ticket.id), enabled });
  const signature = [
    ticket.status,
    ticket.queueId,
    ticket.userId,
    ticket.priority,
    ticket.tags.map((g) => g.id).join(','),
    ticket.snoozedAt ?? '',
    ticket.updatedAt,
    messageCount,
  ].join('|');
  useEffect(() => {
    if (!enabled) return;
    void client.invalidateQueries({ queryKey: ['ticket-events', ticket.id] });
    const later = window.setTimeout(
      () => void client.invalidateQueries({ queryKey: ['ticket-events', ticket.id] }),
      1500,
    );
    return () => window.clearTimeout(later);
  }, [signature, enabled, client, ticket.id]);
  return query;
}

/** One event between the messages: a small centred line with its time. */
export function TimelineLine({ event }: { event: TicketTimelineEvent }) {
  const { t, i18n } = useTimelineT();
  const colors = chatColors(useTheme().palette.mode);
  const text = describeEvent(event, t as never, i18n.language);
  const time = eventTime(event.createdAt as string, i18n.language);
  return (
    <Box
      sx={{ display: 'flex', justifyContent: 'center', px: 2, py: 0.25 }}
      data-testid="timeline-event"
      data-type={event.type}
    >
      <Typography
        variant="caption"
        title={new Date(event.createdAt as string).toLocaleString(i18n.language)}
        sx={{
          color: colors.meta,
          bgcolor: colors.chip,
          opacity: 0.9,
          px: 1.25,
          py: 0.25,
          borderRadius: 1.5,
          textAlign: 'center',
          maxWidth: '100%',
          overflowWrap: 'anywhere',
          fontSize: '0.72rem',
        }}
      >
        {text} · {time}
      </Typography>
    </Box>
  );
}
