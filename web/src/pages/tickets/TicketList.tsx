import { memo } from 'react';
import {
  Box,
  Button,
  ButtonBase,
  Chip,
  CircularProgress,
  IconButton,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha } from '@mui/material/styles';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { Virtuoso } from 'react-virtuoso';
import { useTranslation } from 'react-i18next';
import type { TicketView } from '@recado/contracts';
import { listTime } from './ticket-format.js';
import { TicketAvatar, contactLabel, lastMessageLabel } from './ticket-avatar.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';

export { TicketAvatar, contactLabel, lastMessageLabel };

interface RowProps {
  ticket: TicketView;
  selected: boolean;
  showUser: boolean;
  accepting: boolean;
  onOpen(ticket: TicketView): void;
  onAccept(ticket: TicketView): void;
  onPeek?: (ticket: TicketView) => void;
}

/** One ticket: queue color strip, avatar, name, last message, time, unread count, connection, actions. */
export const TicketRow = memo(function TicketRow({
  ticket,
  selected,
  showUser,
  accepting,
  onOpen,
  onAccept,
  onPeek,
}: RowProps) {
  const { t, i18n } = useTranslation();
  const pending = ticket.status === 'pending';
  const name = contactLabel(ticket.contact);
  const content = (
    <>
      <TicketAvatar contact={ticket.contact} />
      <Box sx={{ minWidth: 0, flex: 1 }}>
        <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
          <Typography
            noWrap
            sx={{ fontWeight: ticket.unreadMessages ? 700 : 600, flex: 1, minWidth: 0, fontSize: 15 }}
            data-testid="ticket-name"
          >
            {name}
          </Typography>
          <Typography
            variant="caption"
            sx={{ flexShrink: 0, color: ticket.unreadMessages ? 'success.main' : 'text.secondary' }}
          >
            {listTime(ticket.updatedAt, i18n.language)}
          </Typography>
        </Box>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.25 }}>
          <Typography
            variant="body2"
            color="text.secondary"
            noWrap
            sx={{ flex: 1, minWidth: 0 }}
            data-testid="ticket-last-message"
          >
            {ticket.lastMessage ? <WhatsAppText text={lastMessageLabel(ticket.lastMessage, t)} /> : '\u00a0'}
          </Typography>
          {ticket.unreadMessages > 0 ? (
            <Box
              data-testid="ticket-unread"
              aria-label={t('tickets.row.unread', { count: ticket.unreadMessages })}
              sx={{
                flexShrink: 0,
                minWidth: 20,
                height: 20,
                px: 0.75,
                borderRadius: 10,
                bgcolor: 'success.main',
                color: 'success.contrastText',
                fontSize: 12,
                fontWeight: 700,
                display: 'grid',
                placeItems: 'center',
              }}
            >
              {ticket.unreadMessages > 99 ? '99+' : ticket.unreadMessages}
            </Box>
          ) : null}
        </Box>
        <Box sx={{ display: 'flex', gap: 0.5, mt: 0.5, flexWrap: 'nowrap', overflow: 'hidden' }}>
          {ticket.whatsapp ? (
            <Chip
              size="small"
              label={ticket.whatsapp.name}
              variant="outlined"
              sx={{ height: 20, fontSize: 11, maxWidth: 140 }}
              data-testid="ticket-connection"
            />
          ) : null}
          {ticket.queue ? (
            <Chip
              size="small"
              label={ticket.queue.name}
              sx={{
                height: 20,
                fontSize: 11,
                maxWidth: 120,
                bgcolor: alpha(ticket.queue.color || '#888', 0.16),
                color: 'text.primary',
              }}
            />
          ) : null}
          {showUser && ticket.user ? (
            <Chip size="small" label={ticket.user.name} sx={{ height: 20, fontSize: 11, maxWidth: 120 }} />
          ) : null}
        </Box>
      </Box>
    </>
  );
  return (
    <Box
      data-testid="ticket-row"
      data-id={ticket.id}
      data-uuid={ticket.uuid}
      data-status={ticket.status}
      sx={{
        position: 'relative',
        display: 'flex',
        alignItems: 'center',
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: selected ? 'action.selected' : undefined,
      }}
    >
      <Tooltip title={ticket.queue?.name ?? t('tickets.row.noQueue')} placement="right">
        <Box
          aria-hidden
          sx={{
            position: 'absolute',
            left: 0,
            top: 0,
            bottom: 0,
            width: 5,
            bgcolor: ticket.queue?.color || 'action.disabled',
          }}
        />
      </Tooltip>
      {pending ? (
        // A pending ticket is not opened by a click: it is accepted first.
        <Box
          sx={{
            display: 'flex',
            alignItems: 'center',
            gap: 1.5,
            flex: 1,
            minWidth: 0,
            pl: 2,
            pr: 1,
            py: 1.25,
          }}
        >
          {content}
        </Box>
      ) : (
        <ButtonBase
          onClick={() => onOpen(ticket)}
          aria-current={selected ? 'true' : undefined}
          aria-label={name}
          sx={{
            display: 'flex',
            alignItems: 'center',
            gap: 1.5,
            flex: 1,
            minWidth: 0,
            textAlign: 'left',
            pl: 2,
            pr: 1,
            py: 1.25,
            '&:hover': { bgcolor: 'action.hover' },
          }}
        >
          {content}
        </ButtonBase>
      )}
      {pending || onPeek ? (
        <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-end', gap: 0.5, pr: 1 }}>
          {pending ? (
            <Button
              size="small"
              variant="contained"
              color="success"
              onClick={() => onAccept(ticket)}
              disabled={accepting}
              startIcon={accepting ? <CircularProgress size={14} color="inherit" /> : undefined}
              data-testid="ticket-accept"
              sx={{ minWidth: 0, px: 1.25, py: 0.25 }}
            >
              {t('tickets.actions.accept')}
            </Button>
          ) : null}
          {onPeek ? (
            <Tooltip title={t('tickets.row.peek')}>
              <IconButton
                size="small"
                onClick={() => onPeek(ticket)}
                aria-label={t('tickets.row.peek')}
                data-testid="ticket-peek"
              >
                <VisibilityOutlinedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          ) : null}
        </Box>
      ) : null}
    </Box>
  );
});

function ListFooter({ context }: { context?: { loadingMore: boolean; label: string } }) {
  return context?.loadingMore ? (
    <Box sx={{ display: 'grid', placeItems: 'center', py: 1.5 }}>
      <CircularProgress size={20} aria-label={context.label} />
    </Box>
  ) : null;
}

export interface TicketListProps {
  items: TicketView[];
  loading: boolean;
  loadingMore: boolean;
  hasMore: boolean;
  loadMore(): void;
  selectedRef: string | undefined;
  showUser: boolean;
  acceptingId: number | null;
  emptyText: string;
  onOpen(ticket: TicketView): void;
  onAccept(ticket: TicketView): void;
  onPeek?: (ticket: TicketView) => void;
  testId: string;
}

/** A virtualised ticket list that asks for the next page within 100 px of its end. */
export function TicketList(props: TicketListProps) {
  const { t } = useTranslation();
  const { items, loading, loadingMore, hasMore, loadMore, selectedRef } = props;
  if (loading && !items.length)
    return (
      <Box
        sx={{ display: 'grid', placeItems: 'center', py: 4 }}
        data-testid={props.testId}
        data-loading="true"
      >
        <CircularProgress size={26} aria-label={t('common.loading')} />
      </Box>
    );
  if (!items.length)
    return (
      <Box sx={{ p: 3, textAlign: 'center' }} data-testid={props.testId} data-empty="true">
        <Typography color="text.secondary" variant="body2">
          {props.emptyText}
        </Typography>
      </Box>
    );
  return (
    <Box sx={{ height: '100%' }} data-testid={props.testId}>
      <Virtuoso
        style={{ height: '100%' }}
        data={items}
        computeItemKey={(_i, ticket) => ticket.id}
        increaseViewportBy={{ top: 200, bottom: 100 }}
        endReached={() => {
          if (hasMore && !loadingMore) loadMore();
        }}
        itemContent={(_i, ticket) => (
          <TicketRow
            ticket={ticket}
            selected={ticket.uuid === selectedRef || String(ticket.id) === selectedRef}
            showUser={props.showUser}
            accepting={props.acceptingId === ticket.id}
            onOpen={props.onOpen}
            onAccept={props.onAccept}
            onPeek={props.onPeek}
          />
        )}
        context={{ loadingMore, label: t('common.loading') }}
        components={{ Footer: ListFooter }}
      />
    </Box>
  );
}
