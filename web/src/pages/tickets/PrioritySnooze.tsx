import { useMemo, useState } from 'react';
import { IconButton, ListItemIcon, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import KeyboardDoubleArrowUpIcon from '@mui/icons-material/KeyboardDoubleArrowUp';
import KeyboardArrowUpIcon from '@mui/icons-material/KeyboardArrowUp';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import DragHandleIcon from '@mui/icons-material/DragHandle';
import SnoozeIcon from '@mui/icons-material/Snooze';
import AlarmOnIcon from '@mui/icons-material/AlarmOn';
import { useTranslation } from 'react-i18next';
import { TICKET_PRIORITIES, type TicketPriority } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useQueryClient } from '@tanstack/react-query';
import { useSnackbar } from 'notistack';
import { putTicket, useSnoozeTicket, useUpdateTicket, viewerOf, type TicketView } from '../../api/tickets.js';
import { useCompanyEvent } from '../../realtime/useCompanyEvent.js';

/** #30.6 Each priority's icon and colour (theme palette keys: right in light and dark themes). */
const LOOK: Record<TicketPriority, { Icon: typeof DragHandleIcon; color: string }> = {
  low: { Icon: KeyboardArrowDownIcon, color: 'text.secondary' },
  normal: { Icon: DragHandleIcon, color: 'text.secondary' },
  high: { Icon: KeyboardArrowUpIcon, color: 'warning.main' },
  urgent: { Icon: KeyboardDoubleArrowUpIcon, color: 'error.main' },
};

/** The priority's icon in a ticket row: shown for every priority but normal. */
export function PriorityIcon({ priority, always = false }: { priority: TicketPriority; always?: boolean }) {
  const { t } = useTranslation();
  if (priority === 'normal' && !always) return null;
  const { Icon, color } = LOOK[priority];
  const label = t('tickets.priority.label', { priority: t(`tickets.priority.${priority}`) });
  return (
    <Tooltip title={label}>
      <Icon
        fontSize="small"
        sx={{ color, flexShrink: 0, alignSelf: 'center' }}
        aria-label={label}
        data-testid="ticket-priority"
        data-priority={priority}
      />
    </Tooltip>
  );
}

/** The chat header's priority button and menu (PUT /tickets/{id} {priority}). */
export function PriorityMenu({ ticket }: { ticket: TicketView }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const update = useUpdateTicket(viewer);
  const toast = useToast();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = ticket.priority ?? 'normal';
  const { Icon, color } = LOOK[current];
  const label = t('tickets.priority.label', { priority: t(`tickets.priority.${current}`) });
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          onClick={(e) => setAnchor(e.currentTarget)}
          aria-label={label}
          aria-haspopup="menu"
          data-testid="chat-priority"
          data-priority={current}
        >
          <Icon sx={{ color }} />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        {[...TICKET_PRIORITIES].reverse().map((p) => {
          const look = LOOK[p];
          return (
            <MenuItem
              key={p}
              selected={p === current}
              data-testid={`priority-${p}`}
              onClick={() => {
                setAnchor(null);
                if (p !== current)
                  update.mutate(
                    { id: ticket.id, input: { priority: p } },
                    { onError: (err) => toast.error(err) },
                  );
              }}
            >
              <ListItemIcon>
                <look.Icon fontSize="small" sx={{ color: look.color }} />
              </ListItemIcon>
              <ListItemText>{t(`tickets.priority.${p}`)}</ListItemText>
            </MenuItem>
          );
        })}
      </Menu>
    </>
  );
}

/** Tomorrow at 9:00 in the browser's time zone. */
const tomorrowMorning = () => {
  const d = new Date();
  d.setDate(d.getDate() + 1);
  d.setHours(9, 0, 0, 0);
  return d;
};

/** #30.7 The chat header's snooze button: for an hour, until tomorrow, until the customer replies; or wake now. */
export function SnoozeMenu({ ticket }: { ticket: TicketView }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const snooze = useSnoozeTicket(viewer);
  const toast = useToast();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const snoozed = Boolean(ticket.snoozedAt);
  const run = (v: { until?: string; untilReply?: boolean; wake?: boolean }) => {
    setAnchor(null);
    snooze.mutate(
      { id: ticket.id, ...v },
      {
        onSuccess: () => toast.success(v.wake ? 'tickets.snooze.woken' : 'tickets.snooze.done'),
        onError: (err) => toast.error(err),
      },
    );
  };
  const label = snoozed ? t('tickets.snooze.wake') : t('tickets.snooze.action');
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          onClick={(e) => (snoozed ? run({ wake: true }) : setAnchor(e.currentTarget))}
          aria-label={label}
          aria-haspopup={snoozed ? undefined : 'menu'}
          data-testid={snoozed ? 'chat-wake' : 'chat-snooze'}
          disabled={snooze.isPending}
        >
          {snoozed ? <AlarmOnIcon /> : <SnoozeIcon />}
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        <MenuItem
          data-testid="snooze-hour"
          onClick={() => run({ until: new Date(Date.now() + 3600_000).toISOString(), untilReply: true })}
        >
          {t('tickets.snooze.oneHour')}
        </MenuItem>
        <MenuItem
          data-testid="snooze-tomorrow"
          onClick={() => run({ until: tomorrowMorning().toISOString(), untilReply: true })}
        >
          {t('tickets.snooze.tomorrow')}
        </MenuItem>
        <MenuItem data-testid="snooze-reply" onClick={() => run({ untilReply: true })}>
          {t('tickets.snooze.untilReply')}
        </MenuItem>
      </Menu>
    </>
  );
}

/**
 * #30.7 A snoozed ticket of this user woke (its time, the customer's reply): back in the open list at once and
 * a notification in the top bar's toast, with the browser's push arriving beside it.
 */
export function useTicketWokenNotifications() {
  const { user } = useAuth();
  const viewer = useMemo(() => (user ? viewerOf(user) : null), [user]);
  const client = useQueryClient();
  const { enqueueSnackbar } = useSnackbar();
  const { t } = useTranslation();
  useCompanyEvent(
    'ticketWoken',
    (e) => {
      if (!viewer) return;
      putTicket(client, e.ticket, viewer);
      enqueueSnackbar(
        t(e.reason === 'reply' ? 'tickets.snooze.backReply' : 'tickets.snooze.backTime', {
          name: e.ticket.contact.name,
        }),
        { variant: 'info', autoHideDuration: 8000, key: `woken-${e.ticket.id}` },
      );
    },
    Boolean(viewer),
  );
}
