import {
  forwardRef,
  useCallback,
  useEffect,
  useImperativeHandle,
  useMemo,
  useRef,
  useState,
  type FormEvent,
} from 'react';
import {
  Box,
  Button,
  CircularProgress,
  IconButton,
  InputAdornment,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowUpIcon from '@mui/icons-material/KeyboardArrowUp';
import SearchIcon from '@mui/icons-material/Search';
import { useTheme } from '@mui/material/styles';
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso';
import { useTranslation } from 'react-i18next';
import { splitSignature, type TicketView } from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { FormDialog } from '../../components/FormDialog.js';
import { useDeleteMessage, useEditMessage, useMessages, type MessageView } from '../../api/messages.js';
import { MessageBubble } from './MessageBubble.js';
import {
  chatColors,
  chatRows,
  dayLabel,
  firstItemIndex,
  messageMatches,
  type ChatRow,
} from './ticket-format.js';
import { contactLabel } from './TicketList.js';
import { TimelineLine, useShowTicketEvents, useTicketEvents } from '../timeline/timeline.js';
import { timelineRows, type TimelineRow } from '../timeline/timeline-format.js';
import { REACTING_CHANNELS } from './reactions/MessageReactions.js';

export interface MessageListHandle {
  scrollToBottom(): void;
}

/** Height of the search bar over the list (one row). */
/** How close to the end (px) still counts as "at the newest message". */
const BOTTOM_THRESHOLD = 60;
const SEARCH_BAR_HEIGHT = 56;

/** Channels that can change a sent message (the Cloud API cannot). */
const EDITABLE_CHANNELS = new Set(['baileys', 'simulator']);

function EditDialog({ message, onClose }: { message: MessageView; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const edit = useEditMessage();
  // Only the text after the signature is edited; the server keeps the signature in front of it.
  const original = splitSignature(message.body).text;
  const [body, setBody] = useState(original);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim() || body.trim() === original.trim()) return onClose();
    edit.mutate(
      { id: message.id, body: body.trim() },
      { onSuccess: onClose, onError: (err) => toast.error(err) },
    );
  };
  return (
    <FormDialog
      open
      title={t('tickets.messages.editTitle')}
      onClose={onClose}
      onSubmit={submit}
      submitting={edit.isPending}
    >
      <TextField
        autoFocus
        multiline
        minRows={2}
        maxRows={8}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        label={t('tickets.messages.editLabel')}
        slotProps={{ htmlInput: { maxLength: 20000 } }}
      />
    </FormDialog>
  );
}

function DaySeparator({ label }: { label: string }) {
  const colors = chatColors(useTheme().palette.mode);
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', py: 1 }} data-testid="day-separator">
      <Typography
        variant="caption"
        sx={{ bgcolor: colors.chip, color: colors.meta, px: 1.5, py: 0.5, borderRadius: 1.5, boxShadow: 1 }}
      >
        {label}
      </Typography>
    </Box>
  );
}

function OlderLoader({ context }: { context?: { loading: boolean; label: string; top: number } }) {
  // `top`: room under the search bar, so the oldest message can be seen (and marked) below it.
  return (
    <Box
      sx={{
        display: 'grid',
        placeItems: 'center',
        boxSizing: 'border-box',
        height: (context?.loading ? 40 : 8) + (context?.top ?? 0),
        pt: `${context?.top ?? 0}px`,
      }}
    >
      {context?.loading ? <CircularProgress size={20} aria-label={context.label} /> : null}
    </Box>
  );
}

/**
 * The messages of a ticket, virtualised: opens at the newest, loads older pages when scrolled near the
 * top and keeps the view where it was; new messages follow when the view is at the bottom.
 */
export const MessageList = forwardRef<
  MessageListHandle,
  {
    ticket: TicketView;
    readOnly?: boolean;
    onReply?: (m: MessageView) => void;
    /** The server refused (403): the viewer may not see this ticket. */
    onForbidden?: () => void;
    /** The search bar is shown (opened from the chat header). */
    searchOpen?: boolean;
    onCloseSearch?: () => void;
  }
>(function MessageList(
  { ticket, readOnly = false, onReply, onForbidden, searchOpen = false, onCloseSearch },
  ref,
) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const colors = chatColors(useTheme().palette.mode);
  const q = useMessages(ticket.id);
  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = q;
  // #32.5 The ticket's events between the messages, when the header's toggle is on.
  const showEvents = useShowTicketEvents();
  const timeline = useTicketEvents(ticket, showEvents, q.messages.length);
  const events = showEvents ? timeline.data : undefined;
  const rows = useMemo<TimelineRow[]>(
    () =>
      events
        ? timelineRows(q.messages, events, !hasNextPage, (iso) => dayLabel(iso, i18n.language, t))
        : chatRows(q.messages, (iso) => dayLabel(iso, i18n.language, t)),
    [q.messages, events, hasNextPage, i18n.language, t],
  );
  const first = firstItemIndex(rows as ChatRow[], q.anchorId);
  const forbidden = q.error instanceof ApiError && q.error.status === 403;
  const forbiddenRef = useRef(onForbidden);
  useEffect(() => {
    forbiddenRef.current = onForbidden;
  });
  useEffect(() => {
    if (forbidden) forbiddenRef.current?.();
  }, [forbidden]);
  const virtuoso = useRef<VirtuosoHandle>(null);
  // Whether new messages keep the view at the bottom. Only moving the view up (the attendant scrolling,
  // a search or a quote jumping to an older message) lets go of it: content that grows faster than it is
  // measured (a burst of messages, a list mounted with a few rows and filled at once) never moves it up.
  const stick = useRef(true);
  const movedUpAt = useRef(0);
  const scrollerCleanup = useRef<(() => void) | null>(null);
  const scrollerRef = useCallback((el: HTMLElement | Window | null) => {
    scrollerCleanup.current?.();
    scrollerCleanup.current = null;
    if (!el || !(el instanceof HTMLElement)) return;
    let last = el.scrollTop;
    const onScroll = () => {
      const up = el.scrollTop < last - 4;
      last = el.scrollTop;
      if (!up) return;
      movedUpAt.current = Date.now();
      if (el.scrollHeight - el.scrollTop - el.clientHeight > BOTTOM_THRESHOLD) stick.current = false;
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    scrollerCleanup.current = () => el.removeEventListener('scroll', onScroll);
  }, []);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<MessageView | null>(null);
  const [editing, setEditing] = useState<MessageView | null>(null);
  const remove = useDeleteMessage();
  const canEdit = EDITABLE_CHANNELS.has(ticket.whatsapp?.channel ?? '');
  // #33.7 Reactions from the bubble's menu, where the channel carries them and the ticket is open.
  const canReact =
    !readOnly && ticket.status === 'open' && REACTING_CHANNELS.has(ticket.whatsapp?.channel ?? '');
  const contactName = contactLabel(ticket.contact);

  const scrollToBottom = useCallback(() => {
    virtuoso.current?.scrollToIndex({ index: 'LAST', align: 'end', behavior: 'auto' });
  }, []);
  useImperativeHandle(ref, () => ({ scrollToBottom }), [scrollToBottom]);

  const onMediaLoad = useCallback(() => {
    if (stick.current) scrollToBottom();
  }, [scrollToBottom]);
  // Read through a ref: the callback stays the same while messages arrive, so bubbles do not re-render.
  const rowsRef = useRef(rows);
  useEffect(() => {
    rowsRef.current = rows;
  });
  const onQuoteClick = useCallback(
    (id: number) => {
      const index = rowsRef.current.findIndex((r) => r.kind === 'message' && r.message.id === id);
      if (index < 0) {
        toast.info('tickets.messages.quoteNotLoaded');
        return;
      }
      virtuoso.current?.scrollToIndex({ index, align: 'center', behavior: 'smooth' });
      setHighlight(id);
      window.setTimeout(() => setHighlight((h) => (h === id ? null : h)), 1600);
    },
    [toast],
  );
  const noop = useCallback(() => undefined, []);

  // Search inside the conversation: the loaded pages are searched; older pages are read on demand.
  const [term, setTerm] = useState('');
  const [current, setCurrent] = useState<number | null>(null);
  const [seeking, setSeeking] = useState(false);
  const [exhausted, setExhausted] = useState(false);
  const activeTerm = searchOpen ? term.trim() : '';
  const matches = useMemo(
    () =>
      activeTerm
        ? rows.flatMap((r) =>
            r.kind === 'message' && messageMatches(r.message, activeTerm) ? [r.message.id] : [],
          )
        : [],
    [rows, activeTerm],
  );
  const matchSet = useMemo(() => new Set(matches), [matches]);
  const position = current === null ? -1 : matches.indexOf(current);
  const goTo = useCallback((id: number) => {
    setCurrent(id);
    const index = rowsRef.current.findIndex((r) => r.kind === 'message' && r.message.id === id);
    if (index >= 0) virtuoso.current?.scrollToIndex({ index, align: 'center', behavior: 'auto' });
  }, []);
  // A new term starts at the newest match.
  const lastTerm = useRef('');
  useEffect(() => {
    if (activeTerm === lastTerm.current) return;
    lastTerm.current = activeTerm;
    setExhausted(false);
    setSeeking(false);
    const newest = matches[matches.length - 1];
    if (newest !== undefined) goTo(newest);
    else setCurrent(null);
  }, [activeTerm, matches, goTo]);
  // Looking further back: pages are read until one brings an older match, or there are none left.
  useEffect(() => {
    if (!seeking) return;
    const older = current === null ? matches : matches.slice(0, Math.max(0, matches.indexOf(current)));
    const hit = older[older.length - 1];
    if (hit !== undefined && hit !== current) {
      setSeeking(false);
      goTo(hit);
    } else if (!hasNextPage || isFetchNextPageError) {
      setSeeking(false);
      setExhausted(!isFetchNextPageError);
    } else if (!isFetchingNextPage) void fetchNextPage();
  }, [seeking, matches, current, hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage, goTo]);
  const older = () => {
    if (position > 0) goTo(matches[position - 1]!);
    else if (hasNextPage) setSeeking(true);
    else setExhausted(true);
  };
  const newer = () => {
    setExhausted(false);
    if (position >= 0 && position < matches.length - 1) goTo(matches[position + 1]!);
  };
  const closeSearch = () => {
    setTerm('');
    setCurrent(null);
    setSeeking(false);
    onCloseSearch?.();
  };
  const status = !activeTerm
    ? ''
    : seeking
      ? t('tickets.search.searching')
      : matches.length
        ? t('tickets.search.count', { current: position + 1, total: matches.length })
        : hasNextPage
          ? t('tickets.search.noneLoaded')
          : t('tickets.search.none');

  const itemContent = (_index: number, row: TimelineRow) =>
    row.kind === 'day' ? (
      <DaySeparator label={row.label} />
    ) : row.kind === 'event' ? (
      <TimelineLine event={row.event} />
    ) : (
      <MessageBubble
        message={row.message}
        own={row.message.fromMe && row.message.userId === user?.id}
        canEdit={canEdit}
        readOnly={readOnly}
        showSender={ticket.isGroup}
        contactName={contactName}
        highlighted={highlight === row.message.id || (Boolean(activeTerm) && current === row.message.id)}
        mark={matchSet.has(row.message.id) ? activeTerm : undefined}
        onReply={onReply ?? noop}
        onDelete={setDeleting}
        onEdit={setEditing}
        onQuoteClick={onQuoteClick}
        onMediaLoad={onMediaLoad}
        canReact={canReact}
      />
    );

  return (
    <Box
      data-testid="message-list"
      data-ticket-id={ticket.id}
      sx={{ height: '100%', bgcolor: colors.wallpaper, position: 'relative' }}
    >
      {searchOpen ? (
        // Over the list rather than above it: the list keeps its size and its place while searching.
        <Box
          data-testid="chat-search"
          sx={{
            position: 'absolute',
            top: 0,
            left: 0,
            right: 0,
            zIndex: 2,
            boxShadow: 2,
            display: 'flex',
            alignItems: 'center',
            gap: 0.5,
            flexWrap: 'wrap',
            px: 1.5,
            py: 0.75,
            bgcolor: 'background.paper',
            borderBottom: 1,
            borderColor: 'divider',
          }}
        >
          <TextField
            autoFocus
            size="small"
            value={term}
            onChange={(e) => setTerm(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                if (e.shiftKey) newer();
                else older();
              } else if (e.key === 'Escape') closeSearch();
            }}
            placeholder={t('tickets.search.placeholder')}
            slotProps={{
              htmlInput: {
                'aria-label': t('tickets.search.placeholder'),
                maxLength: 100,
                'data-testid': 'chat-search-input',
              },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
            sx={{ flex: '1 1 200px', minWidth: 160 }}
          />
          <Typography
            variant="caption"
            color="text.secondary"
            aria-live="polite"
            data-testid="chat-search-status"
            sx={{ minWidth: 64, textAlign: 'center', fontVariantNumeric: 'tabular-nums' }}
          >
            {status}
          </Typography>
          <Tooltip title={t('tickets.search.older')}>
            <span>
              <IconButton
                size="small"
                onClick={older}
                disabled={!activeTerm || seeking || (position <= 0 && !hasNextPage)}
                aria-label={t('tickets.search.older')}
                data-testid="chat-search-older"
              >
                <KeyboardArrowUpIcon />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title={t('tickets.search.newer')}>
            <span>
              <IconButton
                size="small"
                onClick={newer}
                disabled={!activeTerm || position < 0 || position >= matches.length - 1}
                aria-label={t('tickets.search.newer')}
                data-testid="chat-search-newer"
              >
                <KeyboardArrowDownIcon />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title={t('tickets.search.close')}>
            <IconButton size="small" onClick={closeSearch} aria-label={t('tickets.search.close')}>
              <CloseIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          {activeTerm && hasNextPage && !seeking && (position <= 0 || !matches.length) ? (
            <Button
              size="small"
              onClick={() => setSeeking(true)}
              data-testid="chat-search-more"
              sx={{ textTransform: 'none', flexBasis: '100%', justifyContent: 'flex-start' }}
            >
              {t('tickets.search.searchOlder')}
            </Button>
          ) : null}
          {activeTerm && exhausted && !hasNextPage && matches.length ? (
            <Typography variant="caption" color="text.secondary" sx={{ flexBasis: '100%', px: 1 }}>
              {t('tickets.search.noMore')}
            </Typography>
          ) : null}
        </Box>
      ) : null}
      {q.isLoading ? (
        <Box sx={{ display: 'grid', placeItems: 'center', height: '100%' }}>
          <CircularProgress aria-label={t('common.loading')} />
        </Box>
      ) : q.isError ? (
        <Box sx={{ display: 'grid', placeItems: 'center', height: '100%', p: 2 }}>
          <Typography color="text.secondary">{t('tickets.messages.loadFailed')}</Typography>
        </Box>
      ) : rows.length === 0 ? (
        <Box sx={{ display: 'grid', placeItems: 'center', height: '100%', p: 2 }}>
          <Typography
            variant="body2"
            sx={{ bgcolor: colors.chip, color: colors.meta, px: 2, py: 1, borderRadius: 2 }}
          >
            {t('tickets.messages.empty')}
          </Typography>
        </Box>
      ) : (
        <Virtuoso
          // Showing or hiding the events starts the list again at the newest row.
          key={showEvents ? 'with-events' : 'messages'}
          ref={virtuoso}
          style={{ height: '100%' }}
          data={rows}
          firstItemIndex={first}
          initialTopMostItemIndex={{ index: rows.length - 1, align: 'end' }}
          computeItemKey={(_i, row) => row.key}
          increaseViewportBy={{ top: 400, bottom: 200 }}
          atTopThreshold={50}
          startReached={() => {
            if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
          }}
          scrollerRef={scrollerRef}
          followOutput={(isAtBottom) => (isAtBottom || stick.current ? 'auto' : false)}
          atBottomStateChange={(b) => {
            if (b) stick.current = true;
            else if (Date.now() - movedUpAt.current < 1500) stick.current = false;
          }}
          atBottomThreshold={BOTTOM_THRESHOLD}
          itemContent={itemContent}
          context={{
            loading: isFetchingNextPage,
            label: t('common.loading'),
            top: searchOpen ? SEARCH_BAR_HEIGHT : 0,
          }}
          components={{ Header: OlderLoader, Footer: BottomSpace }}
        />
      )}
      <ConfirmationDialog
        open={Boolean(deleting)}
        title={t('tickets.messages.deleteTitle')}
        onClose={() => setDeleting(null)}
        confirmLabel={t('common.delete')}
        onConfirm={async () => {
          try {
            await remove.mutateAsync(deleting!.id);
          } catch (err) {
            toast.error(err);
            throw err;
          }
        }}
      >
        {t('tickets.messages.deleteText')}
      </ConfirmationDialog>
      {editing ? <EditDialog message={editing} onClose={() => setEditing(null)} /> : null}
    </Box>
  );
});

function BottomSpace() {
  return <Box sx={{ height: 8 }} />;
}
