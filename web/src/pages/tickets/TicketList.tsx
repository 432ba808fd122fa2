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
import PushPinIcon from '@mui/icons-material/PushPin';
import CheckBoxIcon from '@mui/icons-material/CheckBox';
import CheckBoxOutlineBlankIcon from '@mui/icons-material/CheckBoxOutlineBlank';
import { Virtuoso } from 'react-virtuoso';
import { useTranslation } from 'react-i18next';
import type { TicketView } from '@recado/contracts';
import { listTime } from './ticket-format.js';
import { TicketAvatar, contactLabel, lastMessageLabel } from './ticket-avatar.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { SearchSnippet } from './search-snippet.js';
import { AutomationLine, automationActive } from './AutomationLine.js';
import { SlaChip } from '../sla/SlaChip.js';
import { PriorityIcon } from './PrioritySnooze.js';
import { ChannelIcon } from '../connections/ConnectionStatus.js';
import '../contacts/merge/merge-i18n.js';
import { ticketSelection, useTicketSelected } from '../macros/ticket-selection.js';

export { TicketAvatar, contactLabel, lastMessageLabel };

interface RowProps {
  ticket: TicketView;
  selected: boolean;
  showUser: boolean;
  accepting: boolean;
  onOpen(ticket: TicketView): void;
  onAccept(ticket: TicketView): void;
  onPeek?: (ticket: TicketView) => void;
  /** The search being shown: a result's matching message is shown with it highlighted. */
  search?: string;
  /** #32.1 Selection mode: a checkbox, and a click selects the ticket instead of opening it. */
  selecting?: boolean;
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
  search,
  selecting = false,
}: RowProps) {
  const { t, i18n } = useTranslation();
  // Its own subscription: selecting one ticket re-renders that row only.
  const picked = useTicketSelected(ticket.id);
  // While an automation answers, nobody needs to accept the ticket: the row says so instead.
  const pending = ticket.status === 'pending' && !automationActive(ticket);
  const name = contactLabel(ticket.contact);
  const content = (
    <>
      {selecting ? (
        picked ? (
          <CheckBoxIcon color="primary" data-testid="ticket-check" data-checked="true" />
        ) : (
          <CheckBoxOutlineBlankIcon color="action" data-testid="ticket-check" data-checked="false" />
        )
      ) : null}
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
          <PriorityIcon priority={ticket.priority ?? 'normal'} />
          {ticket.pinned ? (
            <PushPinIcon
              sx={{ fontSize: 14, color: 'text.secondary', alignSelf: 'center' }}
              aria-label={t('merge:pinned')}
              data-testid="ticket-pinned"
            />
          ) : null}
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
            {ticket.searchMatch ? (
              <SearchSnippet text={ticket.searchMatch.body} search={search ?? ''} />
            ) : ticket.lastMessage ? (
              <WhatsAppText text={lastMessageLabel(ticket.lastMessage, t)} />
            ) : (
              '\u00a0'
            )}
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
          {ticket.status !== 'closed' ? <SlaChip sla={ticket.sla} /> : null}
          {ticket.whatsapp ? (
            <Chip
              size="small"
              // #34.4 The channel's icon names where the customer wrote (WhatsApp, Telegram, Instagram…).
              icon={<ChannelIcon channel={ticket.whatsapp.channel} size={13} />}
              label={ticket.whatsapp.name}
              variant="outlined"
              sx={{ height: 20, fontSize: 11, maxWidth: 140, '& .MuiChip-icon': { ml: 0.5, mr: -0.25 } }}
              data-testid="ticket-connection"
              data-channel={ticket.whatsapp.channel}
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
          {(ticket.tags ?? []).slice(0, 3).map((tag) => (
            <Chip
              key={tag.id}
              size="small"
              label={tag.name}
              data-testid="ticket-tag"
              sx={{
                height: 20,
                fontSize: 11,
                maxWidth: 110,
                bgcolor: alpha(tag.color || '#888', 0.2),
                color: 'text.primary',
              }}
            />
          ))}
          {ticket.protocol ? (
            <Typography
              variant="caption"
              color="text.secondary"
              noWrap
              data-testid="ticket-protocol"
              sx={{ ml: 'auto', pl: 0.5, flexShrink: 0, fontSize: 11, lineHeight: '20px' }}
            >
              #{ticket.protocol}
            </Typography>
          ) : null}
        </Box>
        <AutomationLine ticket={ticket} variant="row" />
      </Box>
    </>
  );
  return (
    <Box
      data-testid="ticket-row"
      data-id={ticket.id}
      data-uuid={ticket.uuid}
      data-status={ticket.status}
      data-picked={selecting ? String(picked) : undefined}
      sx={{
        position: 'relative',
        display: 'flex',
        alignItems: 'center',
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: selected || picked ? 'action.selected' : undefined,
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
      {/* A waiting ticket opens read-only, as from the bell: it is accepted there or with the button here. */}
      <ButtonBase
        onClick={() => (selecting ? ticketSelection.toggle(ticket.id) : onOpen(ticket))}
        aria-current={selected ? 'true' : undefined}
        role={selecting ? 'checkbox' : undefined}
        aria-checked={selecting ? picked : undefined}
        aria-label={name}
        data-testid="ticket-open"
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
  /** The search shown (the search tab): results show their matching message. */
  search?: string;
  /** #32.1 Selection mode (the toolbar's "Select"). */
  selecting?: boolean;
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
            search={props.search}
            selecting={props.selecting}
          />
        )}
        context={{ loadingMore, label: t('common.loading') }}
        components={{ Footer: ListFooter }}
      />
    </Box>
  );
}
