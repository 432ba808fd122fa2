import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Box, CircularProgress } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { TicketUpdate } from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { useCompanyEvent } from '../../realtime/useCompanyEvent.js';
import {
  newerOf,
  putTicket,
  useDeleteTicket,
  useTicket,
  useUpdateTicket,
  viewerOf,
} from '../../api/tickets.js';
import type { TicketView } from '@recado/contracts';
import { markTicketRead, useChatBox, type MessageView } from '../../api/messages.js';
import { ChatHeader, type TicketAction } from './ChatHeader.js';
import { TICKET_ACTION_EVENT } from '../../layout/CommandBar.js';
import { MessageList, type MessageListHandle } from './MessageList.js';
import { MessageInput } from './MessageInput.js';
import { ContactDrawer } from './ContactDrawer.js';
import { TransferDialog } from './TransferDialog.js';
import { ResolveDialog } from '../closing/ResolveDialog.js';
import { useSetting } from '../../api/settings.js';
import { ScheduleDialog } from './ScheduleDialog.js';
import { SourceStrip } from './SourceStrip.js';
import { TagPicker } from './TagPicker.js';
import { AutomationLine } from './AutomationLine.js';
import { ConsentReplyLine } from '../privacy/ConsentReplyLine.js';
import { VisitorTyping } from './WidgetTyping.js';

const subscribeVisibility = (cb: () => void) => {
  document.addEventListener('visibilitychange', cb);
  return () => document.removeEventListener('visibilitychange', cb);
};
const usePageVisible = () =>
  useSyncExternalStore(subscribeVisibility, () => document.visibilityState === 'visible');

/** How long unread messages wait before the open chat marks them read (several arrive together). */
const READ_DELAY_MS = 400;

/** The chosen ticket: header and actions, messages, input, contact drawer and the action dialogs. */
export function TicketChat({
  ticketRef,
  narrow,
  onFollow,
}: {
  ticketRef: string;
  narrow: boolean;
  /** The ticket stays open here with a new status (accepted, reopened): the list follows it to its tab. */
  onFollow?: (ticket: TicketView) => void;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const client = useQueryClient();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const query = useTicket(ticketRef);
  const ticket = query.data;
  const update = useUpdateTicket(viewer);
  const remove = useDeleteTicket();
  const [busy, setBusy] = useState<TicketAction | null>(null);
  const [drawer, setDrawer] = useState(false);
  const [transfer, setTransfer] = useState(false);
  // #32.3 The closing reason asked on resolve ('optional' or 'required' closingReasonMode).
  const closingMode = useSetting('closingReasonMode');
  const [resolving, setResolving] = useState(false);
  const [schedule, setSchedule] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [replyTo, setReplyTo] = useState<MessageView | null>(null);
  const [searching, setSearching] = useState(false);
  const list = useRef<MessageListHandle>(null);
  const deletedHere = useRef(false);
  const visible = usePageVisible();

  // A ticket this user may not see: the unauthorized toast, back to the list.
  const error = query.error;
  useEffect(() => {
    if (!error) return;
    if (error instanceof ApiError && error.status === 403) toast.warning('tickets.unauthorized');
    else toast.error(error);
    void navigate('/tickets', { replace: true });
  }, [error, toast, navigate]);

  useChatBox(ticket?.id);

  // #32.2 The command bar and the shortcuts ask for the header's actions (layout/CommandBar.tsx).
  const actionRef = useRef<(action: TicketAction) => void>(() => undefined);
  useEffect(() => {
    const onCommand = (e: Event) => actionRef.current((e as CustomEvent<TicketAction>).detail);
    window.addEventListener(TICKET_ACTION_EVENT, onCommand);
    return () => window.removeEventListener(TICKET_ACTION_EVENT, onCommand);
  }, []);

  // Deleted elsewhere while open: back to the list.
  useCompanyEvent('ticket', (e) => {
    if (e.action === 'delete' && ticket && Number(e.ticketId) === ticket.id) {
      if (!deletedHere.current) toast.info('tickets.deletedElsewhere');
      void navigate('/tickets', { replace: true });
    }
  });

  // Opening a ticket with unread messages (or one arriving while it is open and seen) marks them read.
  const ticketId = ticket?.id;
  const unread = ticket?.unreadMessages ?? 0;
  useEffect(() => {
    if (!ticketId || unread <= 0 || !visible) return;
    const timer = window.setTimeout(() => {
      markTicketRead(ticketId)
        .then((view) => {
          // The answer was read when the marks were saved: a change announced since (the automation
          // failing, a transfer) is newer and stays; only the read marks are taken from it.
          if (view && typeof view === 'object' && 'id' in view)
            putTicket(client, { ...newerOf(client, view), unreadMessages: 0 }, viewer);
        })
        .catch(() => undefined);
    }, READ_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [ticketId, unread, visible, client, viewer]);

  if (!ticket)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', height: '100%' }}>
        <CircularProgress aria-label={t('common.loading')} />
      </Box>
    );

  const change = (action: TicketAction, input: TicketUpdate, then: 'stay' | 'list', done?: string) => {
    setBusy(action);
    update.mutate(
      { id: ticket.id, input },
      {
        onSuccess: (saved) => {
          if (done) toast.success(done);
          if (then === 'list') void navigate('/tickets');
          else {
            onFollow?.(saved);
            if (saved.uuid !== ticketRef) void navigate(`/tickets/${saved.uuid}`, { replace: true });
          }
        },
        onError: (err) => toast.error(err),
        onSettled: () => setBusy(null),
      },
    );
  };

  const onAction = (action: TicketAction) => {
    switch (action) {
      case 'accept':
      case 'reopen':
        return change(action, { status: 'open', userId: user!.id }, 'stay');
      case 'return':
        return change(action, { status: 'pending' }, 'list', 'tickets.actions.returned');
      case 'resolve':
        if (closingMode === 'optional' || closingMode === 'required') return setResolving(true);
        return change(action, { status: 'closed', userId: user!.id }, 'list', 'tickets.actions.resolved');
      case 'transfer':
        return setTransfer(true);
      case 'schedule':
        return setSchedule(true);
      case 'delete':
        return setDeleting(true);
    }
  };

  actionRef.current = (action) => {
    if (busy) return;
    onAction(action);
  };

  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}
      data-testid="ticket-chat"
      data-ticket-id={ticket.id}
      data-status={ticket.status}
    >
      <ChatHeader
        ticket={ticket}
        busy={busy}
        narrow={narrow}
        onBack={() => void navigate('/tickets')}
        onContact={() => setDrawer(true)}
        onAction={onAction}
        onSearch={() => setSearching((s) => !s)}
        searching={searching}
      />
      <AutomationLine ticket={ticket} variant="chat" />
      <SourceStrip ticket={ticket} />
      <TagPicker ticket={ticket} />
      <Box sx={{ flex: 1, minHeight: 0 }}>
        <MessageList
          key={ticket.id}
          ref={list}
          ticket={ticket}
          onReply={setReplyTo}
          searchOpen={searching}
          onCloseSearch={() => setSearching(false)}
        />
      </Box>
      <ConsentReplyLine ticket={ticket} />
      <VisitorTyping ticket={ticket} />
      <MessageInput
        key={`input-${ticket.id}`}
        ticket={ticket}
        replyTo={replyTo}
        onClearReply={() => setReplyTo(null)}
        onSent={() => window.requestAnimationFrame(() => list.current?.scrollToBottom())}
        onAccept={() => onAction('accept')}
        onReopen={() => onAction('reopen')}
        busy={busy !== null}
      />
      <ContactDrawer ticket={ticket} open={drawer} onClose={() => setDrawer(false)} />
      {transfer ? (
        <TransferDialog
          ticket={ticket}
          onClose={() => setTransfer(false)}
          onDone={() => {
            setTransfer(false);
            void navigate('/tickets');
          }}
        />
      ) : null}
      {resolving ? (
        <ResolveDialog
          open
          required={closingMode === 'required'}
          busy={busy !== null}
          onClose={() => setResolving(false)}
          onResolve={(v) => {
            setResolving(false);
            change(
              'resolve',
              { status: 'closed', userId: user!.id, ...v },
              'list',
              'tickets.actions.resolved',
            );
          }}
        />
      ) : null}
      <ScheduleDialog open={schedule} onClose={() => setSchedule(false)} ticket={ticket} />
      <ConfirmationDialog
        open={deleting}
        title={t('tickets.delete.title')}
        onClose={() => setDeleting(false)}
        confirmLabel={t('common.delete')}
        onConfirm={async () => {
          try {
            deletedHere.current = true;
            await remove.mutateAsync(ticket.id);
            toast.success('tickets.delete.done');
            void navigate('/tickets');
          } catch (err) {
            deletedHere.current = false;
            toast.error(err);
            throw err;
          }
        }}
      >
        {t('tickets.delete.text')}
      </ConfirmationDialog>
    </Box>
  );
}
