import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Box, CircularProgress, IconButton, InputBase, Paper, Tooltip, Typography } from '@mui/material';
import { alpha } from '@mui/material/styles';
import SendIcon from '@mui/icons-material/Send';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import { useTranslation } from 'react-i18next';
import type { Chat } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useDateFormat } from '../../i18n/format.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { useChatMessages, useMarkChatRead, useSendChatMessage } from '../../api/chats.js';
import { ApiError } from '../../api/client.js';

/** docs/internal-chat.md: older chat messages load when the reader scrolls within 600 px of the top. */
const LOAD_OLDER_MARGIN_PX = 600;

/** A chat's messages (own at the right), the owner's edit and delete buttons, and the input (Enter sends). */
export function ChatPane({
  chat,
  onEdit,
  onDelete,
  onGone,
}: {
  chat: Chat;
  onEdit(): void;
  onDelete(): void;
  /** The chat is gone (deleted, or this user removed): the screen leaves it. */
  onGone(): void;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const fmt = useDateFormat();
  const { messages, hasNextPage, isFetchingNextPage, fetchNextPage, isLoading } = useChatMessages(chat.id);
  const send = useSendChatMessage(chat.id);
  const markRead = useMarkChatRead();
  const toast = useToast();
  const [text, setText] = useState('');
  const scroller = useRef<HTMLDivElement>(null);
  const isOwner = chat.ownerId === user?.id;
  const mine = chat.users.find((u) => u.userId === user?.id)?.unreads ?? 0;

  // Opening the chat, and every message arriving while it is open, marks it read.
  const { mutate: read } = markRead;
  useEffect(() => {
    if (mine > 0) read(chat.id);
  }, [chat.id, mine, read]);

  // Keep the view at the bottom for new messages; keep the reader's place when older ones come in above.
  const lastId = messages.at(-1)?.id;
  const firstId = messages[0]?.id;
  const prev = useRef<{ first?: number; last?: number; height: number }>({ height: 0 });
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const p = prev.current;
    if (p.first !== undefined && firstId !== p.first && lastId === p.last)
      el.scrollTop += el.scrollHeight - p.height;
    else if (lastId !== p.last) el.scrollTop = el.scrollHeight;
    prev.current = { first: firstId, last: lastId, height: el.scrollHeight };
  }, [firstId, lastId]);

  const onScroll = () => {
    const el = scroller.current;
    if (el && el.scrollTop < LOAD_OLDER_MARGIN_PX && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  };

  // Sends leave one after another, in the order typed; the input empties at once so the next message can be
  // written while the last one is on its way (its event may well arrive before its answer).
  const outbox = useRef<Promise<unknown>>(Promise.resolve());
  const submit = () => {
    const message = text.trim();
    // docs/internal-chat.md: whitespace-only is not sent.
    if (!message) return;
    setText('');
    outbox.current = outbox.current.then(() =>
      send.mutateAsync(message).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return onGone();
        toast.error(err);
        // Not stored: give the text back unless something new was typed.
        setText((current) => current || message);
      }),
    );
  };

  const others = chat.users.filter((u) => u.userId !== user?.id).map((u) => u.user.name);

  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}
      data-testid="chat-pane"
    >
      <Paper
        square
        elevation={0}
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 1,
          px: 2,
          py: 1.25,
          borderBottom: 1,
          borderColor: 'divider',
        }}
      >
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="subtitle1" noWrap sx={{ fontWeight: 700 }} data-testid="chat-pane-title">
            {chat.title}
          </Typography>
          <Typography variant="caption" color="text.secondary" noWrap component="div">
            {others.join(', ')}
          </Typography>
        </Box>
        {isOwner && (
          <>
            <Tooltip title={t('chats.edit')}>
              <IconButton size="small" aria-label={t('chats.edit')} onClick={onEdit} data-testid="chat-edit">
                <EditOutlinedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('common.delete')}>
              <IconButton
                size="small"
                aria-label={t('common.delete')}
                onClick={onDelete}
                data-testid="chat-delete"
              >
                <DeleteOutlineIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          </>
        )}
      </Paper>
      <Box
        ref={scroller}
        onScroll={onScroll}
        data-testid="chat-messages"
        sx={(theme) => ({
          flex: 1,
          minHeight: 0,
          overflowY: 'auto',
          px: { xs: 1.5, sm: 3 },
          py: 2,
          display: 'flex',
          flexDirection: 'column',
          gap: 1,
          bgcolor:
            theme.palette.mode === 'light' ? alpha(theme.palette.primary.main, 0.03) : 'background.default',
        })}
      >
        {(isLoading || isFetchingNextPage) && (
          <Box sx={{ display: 'flex', justifyContent: 'center', py: 1 }}>
            <CircularProgress size={20} />
          </Box>
        )}
        {!isLoading && messages.length === 0 && (
          <Typography color="text.secondary" sx={{ textAlign: 'center', mt: 4 }}>
            {t('chats.noMessages')}
          </Typography>
        )}
        {messages.map((m) => {
          const own = m.senderId === user?.id;
          return (
            <Box
              key={m.id}
              data-testid="chat-message"
              sx={(theme) => ({
                alignSelf: own ? 'flex-end' : 'flex-start',
                maxWidth: '80%',
                px: 1.5,
                py: 0.75,
                borderRadius: 2,
                borderTopRightRadius: own ? 4 : undefined,
                borderTopLeftRadius: own ? undefined : 4,
                bgcolor: own
                  ? alpha(theme.palette.primary.main, theme.palette.mode === 'light' ? 0.14 : 0.3)
                  : 'background.paper',
                boxShadow: theme.palette.mode === 'light' ? '0 1px 1px rgba(0,0,0,0.08)' : 'none',
                border: theme.palette.mode === 'dark' && !own ? 1 : 0,
                borderColor: 'divider',
              })}
            >
              {!own && (
                <Typography variant="caption" color="primary" sx={{ fontWeight: 700, display: 'block' }}>
                  {m.sender.name}
                </Typography>
              )}
              <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {/* WhatsApp's formatting, as the ticket chat shows it (*bold*, _italic_, ~strike~, code, links). */}
                <WhatsAppText text={m.message} links />
              </Typography>
              <Typography
                variant="caption"
                color="text.secondary"
                sx={{ display: 'block', textAlign: 'right', fontSize: 11 }}
              >
                {fmt.dateTime(m.createdAt)}
              </Typography>
            </Box>
          );
        })}
      </Box>
      <Paper
        square
        elevation={0}
        sx={{
          display: 'flex',
          alignItems: 'flex-end',
          gap: 1,
          px: 2,
          py: 1,
          borderTop: 1,
          borderColor: 'divider',
        }}
      >
        <InputBase
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            // Enter sends; Shift+Enter starts a new line.
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
          placeholder={t('chats.placeholder')}
          multiline
          maxRows={5}
          fullWidth
          inputProps={{ 'aria-label': t('chats.placeholder'), 'data-testid': 'chat-input' }}
          sx={(theme) => ({
            px: 1.5,
            py: 1,
            borderRadius: 2,
            bgcolor: alpha(theme.palette.text.primary, theme.palette.mode === 'light' ? 0.05 : 0.08),
          })}
        />
        <Tooltip title={t('chats.send')}>
          <span>
            <IconButton
              color="primary"
              aria-label={t('chats.send')}
              onClick={submit}
              disabled={!text.trim()}
              data-testid="chat-send"
            >
              <SendIcon />
            </IconButton>
          </span>
        </Tooltip>
      </Paper>
    </Box>
  );
}
