import { Link as RouterLink } from 'react-router';
import {
  Alert,
  Badge,
  Box,
  Button,
  Chip,
  CircularProgress,
  Divider,
  List,
  ListItemAvatar,
  ListItemButton,
  Typography,
} from '@mui/material';
import NotificationsActiveOutlinedIcon from '@mui/icons-material/NotificationsActiveOutlined';
import NotificationsNoneOutlinedIcon from '@mui/icons-material/NotificationsNoneOutlined';
import NotificationsOffOutlinedIcon from '@mui/icons-material/NotificationsOffOutlined';
import { useTranslation } from 'react-i18next';
import type { TicketView } from '@recado/contracts';
import { useAuth } from '../app/auth.js';
import { TicketAvatar, contactLabel, lastMessageLabel } from '../pages/tickets/ticket-avatar.js';
import { listTime } from '../pages/tickets/ticket-format.js';
import { useNotificationPermission, useTicketNotifications } from '../pages/tickets/notifications.js';
import { PopoverEmpty, TopBarPopover } from './TopBarPopover.js';
import { useNotificationTickets } from './useNotificationTickets.js';
import { useTicketWokenNotifications } from '../pages/tickets/PrioritySnooze.js';
import { WhatsAppText } from '../components/WhatsAppText.js';
import { ChannelIcon } from '../pages/connections/ConnectionStatus.js';

function NotificationRow({ ticket, onOpen }: { ticket: TicketView; onOpen(): void }) {
  const { t, i18n } = useTranslation();
  const pending = ticket.status === 'pending';
  return (
    <ListItemButton
      component={RouterLink}
      to={`/tickets/${ticket.uuid}`}
      onClick={onOpen}
      data-testid="notification-row"
      data-uuid={ticket.uuid}
      data-status={ticket.status}
      sx={{ gap: 1.5, py: 1, alignItems: 'center' }}
    >
      <ListItemAvatar sx={{ minWidth: 0 }}>
        <TicketAvatar contact={ticket.contact} size={40} />
      </ListItemAvatar>
      <Box sx={{ minWidth: 0, flex: 1 }}>
        <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
          {/* #34.4 The channel the customer wrote on. */}
          {ticket.whatsapp ? (
            <Box component="span" sx={{ alignSelf: 'center', display: 'inline-flex' }}>
              <ChannelIcon channel={ticket.whatsapp.channel} size={15} />
            </Box>
          ) : null}
          <Typography noWrap sx={{ fontWeight: 600, flex: 1, minWidth: 0 }} variant="body2">
            {contactLabel(ticket.contact)}
          </Typography>
          <Typography variant="caption" color="text.secondary" sx={{ flexShrink: 0 }}>
            {listTime(ticket.updatedAt, i18n.language)}
          </Typography>
        </Box>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.25 }}>
          <Typography
            variant="body2"
            color="text.secondary"
            noWrap
            sx={{ flex: 1, minWidth: 0 }}
            data-testid="notification-last-message"
          >
            <WhatsAppText text={lastMessageLabel(ticket.lastMessage ?? '', t)} />
          </Typography>
          {pending ? (
            <Chip
              size="small"
              color="warning"
              variant="outlined"
              label={t('layout.notificationsPanel.waiting')}
              sx={{ height: 20, fontSize: 11, flexShrink: 0 }}
            />
          ) : null}
          {ticket.unreadMessages > 0 ? (
            <Badge
              color="success"
              badgeContent={ticket.unreadMessages}
              max={99}
              aria-label={t('layout.notificationsPanel.unread', { count: ticket.unreadMessages })}
              data-testid="notification-unread"
              sx={{ mx: 1.25, '& .MuiBadge-badge': { position: 'static', transform: 'none' } }}
            />
          ) : null}
        </Box>
      </Box>
    </ListItemButton>
  );
}

/** Where the browser notifications stand, with the button that asks for them (a click, never on load). */
function PermissionFooter() {
  const { t } = useTranslation();
  const [permission, ask] = useNotificationPermission();
  if (permission === 'granted' || permission === 'unsupported') return null;
  return (
    <>
      <Divider />
      <Box sx={{ px: 2, py: 1.25 }}>
        {permission === 'default' ? (
          <Button
            fullWidth
            size="small"
            startIcon={<NotificationsActiveOutlinedIcon />}
            onClick={ask}
            data-testid="notifications-enable"
            sx={{ textTransform: 'none' }}
          >
            {t('layout.notificationsPanel.enable')}
          </Button>
        ) : (
          <Alert severity="info" variant="outlined" sx={{ py: 0, fontSize: 13 }}>
            {t('layout.notificationsPanel.blocked')}
          </Alert>
        )}
      </Box>
    </>
  );
}

/**
 * The bell (docs/product.md#screens, docs/visibility.md): tickets waiting that the user may see and the user's open tickets with
 * unread messages, newest first, each opening its ticket; the count on the bell. It also runs, once for
 * the whole signed-in app, the sound and browser notification of new customer messages.
 */
export function NotificationsPopover() {
  const { t } = useTranslation();
  const { user } = useAuth();
  useTicketNotifications();
  useTicketWokenNotifications();
  const { tickets, more, loading } = useNotificationTickets(Boolean(user));
  const count = tickets.length;
  const badge = more ? `${count}+` : count;
  const label = t('layout.notifications');
  return (
    <TopBarPopover
      label={label}
      buttonLabel={count ? t('layout.notificationsPanel.button', { count: badge }) : label}
      testId="notifications-button"
      badge={badge}
      width={380}
      icon={<NotificationsNoneOutlinedIcon fontSize="small" />}
      emptyIcon={<NotificationsOffOutlinedIcon fontSize="inherit" />}
      emptyText={t('layout.noNotifications')}
    >
      {(close) => (
        <Box data-testid="notifications-panel">
          {loading ? (
            <Box sx={{ display: 'grid', placeItems: 'center', py: 4 }}>
              <CircularProgress size={24} aria-label={t('common.loading')} />
            </Box>
          ) : count === 0 ? (
            <PopoverEmpty
              icon={<NotificationsOffOutlinedIcon fontSize="inherit" />}
              text={t('layout.noNotifications')}
            />
          ) : (
            <List
              dense
              disablePadding
              sx={{ maxHeight: 420, overflow: 'auto' }}
              data-testid="notifications-list"
            >
              {tickets.map((ticket) => (
                <NotificationRow key={ticket.id} ticket={ticket} onOpen={close} />
              ))}
            </List>
          )}
          {more ? (
            <>
              <Divider />
              <Button
                fullWidth
                component={RouterLink}
                to="/tickets"
                onClick={close}
                size="small"
                sx={{ textTransform: 'none', py: 1 }}
              >
                {t('layout.notificationsPanel.seeAll')}
              </Button>
            </>
          ) : null}
          <PermissionFooter />
        </Box>
      )}
    </TopBarPopover>
  );
}
