import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import {
  Box,
  Button,
  Chip,
  IconButton,
  List,
  ListItemButton,
  ListItemText,
  Paper,
  Popover,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha } from '@mui/material/styles';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DrawOutlinedIcon from '@mui/icons-material/DrawOutlined';
import InsertEmoticonOutlinedIcon from '@mui/icons-material/InsertEmoticonOutlined';
import MicNoneOutlinedIcon from '@mui/icons-material/MicNoneOutlined';
import ReplayIcon from '@mui/icons-material/Replay';
import SendIcon from '@mui/icons-material/Send';
import { useTranslation } from 'react-i18next';
import {
  containsSearch,
  isHumanAgentChannel,
  windowOpen,
  type QuickMessage,
  type TicketView,
} from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useMessages, useSendMessage, type MessageView } from '../../api/messages.js';
import { TemplateComposer } from './TemplateComposer.js';
import { quickMessageFile, useQuickReplies } from '../../api/quick-messages.js';
import { useAgentTyping } from './WidgetTyping.js';
import { MIN_AUDIO_BYTES, audioFileOf, cutLabel, signBody } from './ticket-format.js';
import { automationActive } from './AutomationLine.js';
import { useAddNote } from '../../api/tickets.js';
import { NOTE_MODE_EVENT } from '../../layout/CommandBar.js';

export const SIGN_KEY = 'signOption';
/** Refusals that happen before the server stores the message. */
const NOT_STORED = new Set([
  'ERR_VALIDATION',
  'ERR_NO_PERMISSION',
  'ERR_WAPP_NOT_INITIALIZED',
  'ERR_WAPP_INVALID_CONTACT',
]);
const readSign = () => localStorage.getItem(SIGN_KEY) !== 'false';

const EMOJI =
  '😀 😁 😂 🤣 😊 😍 😘 😉 😎 🤔 😅 😢 😭 😡 😮 🙄 🙏 👍 👎 👏 🙌 👋 🤝 💪 ✌️ 👌 ❤️ 💚 💙 🔥 ✨ 🎉 ✅ ❌ ⚠️ ⏰ 📞 📦 🚚 💰 📄 📍 📅 🕐 😴 🤗 🥳 😇'.split(
    ' ',
  );

/** Audio types to try, best first (the server takes the type without its parameters). */
const AUDIO_TYPES = [
  'audio/ogg;codecs=opus',
  'audio/webm;codecs=opus',
  'audio/webm',
  'audio/mp4',
  'audio/mpeg',
];

const mmss = (s: number) =>
  `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;

interface Recording {
  recorder: MediaRecorder;
  stream: MediaStream;
  chunks: Blob[];
  startedAt: number;
}

/**
 * The message input: text (Enter sends, Shift+Enter breaks the line), emoji, attachments (several
 * files; the text is their caption), an audio recorder, quick replies after "/", the signature toggle
 * and the quoted message being answered. Only an open ticket can be answered.
 */
export function MessageInput({
  ticket,
  replyTo,
  onClearReply,
  onSent,
  onAccept,
  onReopen,
  busy,
}: {
  ticket: TicketView;
  replyTo: MessageView | null;
  onClearReply(): void;
  onSent(): void;
  onAccept(): void;
  onReopen(): void;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const send = useSendMessage(ticket.id);
  const outsideWindow = useOutsideWindow(ticket.id);
  const [text, setText] = useState('');
  // #34.1 The website chat visitor sees the attendant typing.
  const agentTyping = useAgentTyping(ticket);
  const [files, setFiles] = useState<File[]>([]);
  const [sign, setSign] = useState(readSign);
  const [emojiAnchor, setEmojiAnchor] = useState<HTMLElement | null>(null);
  const [recording, setRecording] = useState<Recording | null>(null);
  const [seconds, setSeconds] = useState(0);
  const [highlighted, setHighlighted] = useState(0);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const recordingRef = useRef<Recording | null>(null);
  // #32.2 Note mode (N, or the command bar): what is typed becomes an internal note of the ticket.
  const [note, setNote] = useState(false);
  const addNote = useAddNote(ticket.id);
  useEffect(() => {
    const toggle = () => {
      setNote((n) => !n);
      window.requestAnimationFrame(() => input.current?.focus());
    };
    window.addEventListener(NOTE_MODE_EVENT, toggle);
    return () => window.removeEventListener(NOTE_MODE_EVENT, toggle);
  }, []);

  const term = text.startsWith('/') ? text.slice(1) : '';
  const quick = useQuickReplies(term.length >= 2);
  const suggestions = useMemo(
    () =>
      term.length >= 2
        ? (quick.data ?? [])
            .filter((q) => containsSearch(q.shortcode, term) || containsSearch(q.message, term))
            .slice(0, 8)
        : [],
    [quick.data, term],
  );

  useEffect(() => {
    recordingRef.current = recording;
    if (!recording) return;
    const timer = window.setInterval(
      () => setSeconds(Math.floor((Date.now() - recording.startedAt) / 1000)),
      250,
    );
    return () => window.clearInterval(timer);
  }, [recording]);
  // Leaving the ticket while recording releases the microphone.
  useEffect(
    () => () => {
      const r = recordingRef.current;
      if (!r) return;
      r.recorder.onstop = null;
      if (r.recorder.state !== 'inactive') r.recorder.stop();
      r.stream.getTracks().forEach((tr) => tr.stop());
    },
    [],
  );

  if (ticket.status !== 'open')
    return (
      <Box
        data-testid="input-locked"
        sx={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          gap: 1.5,
          flexWrap: 'wrap',
          px: 2,
          py: 1.5,
          borderTop: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
        }}
      >
        <Typography variant="body2" color="text.secondary">
          {ticket.status !== 'pending'
            ? t('tickets.input.reopenFirst')
            : automationActive(ticket)
              ? t('tickets.automation.takeOverFirst')
              : t('tickets.input.acceptFirst')}
        </Typography>
        {ticket.status === 'pending' ? (
          <Button
            size="small"
            variant="contained"
            color="success"
            onClick={onAccept}
            disabled={busy}
            startIcon={<CheckCircleOutlineIcon />}
          >
            {t(automationActive(ticket) ? 'tickets.automation.takeOver' : 'tickets.actions.accept')}
          </Button>
        ) : (
          <Button
            size="small"
            variant="outlined"
            onClick={onReopen}
            disabled={busy}
            startIcon={<ReplayIcon />}
          >
            {t('tickets.actions.reopen')}
          </Button>
        )}
      </Box>
    );

  const toggleSign = () => {
    localStorage.setItem(SIGN_KEY, String(!sign));
    setSign(!sign);
  };

  const submit = () => {
    if (note) {
      const written = text.trim();
      if (!written) return;
      setText('');
      addNote.mutate(written, {
        onSuccess: () => toast.success('macros:macros.noteSaved'),
        onError: (err) => {
          toast.error(err);
          setText((current) => current || written);
        },
      });
      return;
    }
    const body = text.trim();
    if (!body && !files.length) return;
    const payload = {
      body: signBody(body, user?.name ?? '', sign),
      quotedMsgId: replyTo?.id ?? null,
      files,
    };
    setText('');
    setFiles([]);
    onClearReply();
    onSent();
    send.mutate(payload, {
      onError: (err) => {
        toast.error(err);
        // Refused before it was stored (a stored failure shows on its bubble): give the text back.
        if (!(err instanceof ApiError) || NOT_STORED.has(err.code)) setText((current) => current || body);
      },
    });
    input.current?.focus();
  };

  const insert = (s: string) => {
    const el = input.current;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    const next = text.slice(0, start) + s + text.slice(end);
    setText(next);
    window.requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + s.length, start + s.length);
    });
  };

  /** A quick reply fills the text; its attachment (if any) joins the files, sent with the existing multipart send. */
  const choose = (q: QuickMessage) => {
    setText(q.message);
    setHighlighted(0);
    input.current?.focus();
    if (q.mediaPath)
      quickMessageFile(q)
        .then((file) => {
          if (file) setFiles((f) => [...f, file].slice(0, 10));
        })
        .catch((err: unknown) => toast.error(err));
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (suggestions.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const step = e.key === 'ArrowDown' ? 1 : -1;
        setHighlighted((h) => (h + step + suggestions.length) % suggestions.length);
        return;
      }
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        choose(suggestions[Math.min(highlighted, suggestions.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        setText('');
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  const onPaste = (e: ClipboardEvent) => {
    const pasted = [...(e.clipboardData?.files ?? [])];
    if (!pasted.length) return;
    e.preventDefault();
    setFiles((f) => [...f, ...pasted].slice(0, 10));
  };

  const startRecording = async () => {
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
      toast.warning('tickets.input.micUnavailable');
      return;
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (err) {
      toast.error(err);
      toast.warning('tickets.input.micFailed');
      return;
    }
    const mimeType = AUDIO_TYPES.find((m) => MediaRecorder.isTypeSupported(m));
    const recorder = new MediaRecorder(stream, {
      ...(mimeType ? { mimeType } : {}),
      audioBitsPerSecond: 128_000,
    });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => {
      if (e.data.size) chunks.push(e.data);
    };
    recorder.start(250);
    setSeconds(0);
    setRecording({ recorder, stream, chunks, startedAt: Date.now() });
  };

  const stopRecording = (keep: boolean) => {
    const r = recording;
    if (!r) return;
    setRecording(null);
    r.recorder.onstop = () => {
      r.stream.getTracks().forEach((tr) => tr.stop());
      if (!keep) return;
      const blob = new Blob(r.chunks, { type: r.recorder.mimeType || 'audio/webm' });
      if (blob.size < MIN_AUDIO_BYTES) {
        toast.info('tickets.input.audioTooShort');
        return;
      }
      const { name, type } = audioFileOf(blob.type);
      onSent();
      send.mutate(
        { body: '', files: [new File([blob], name, { type })] },
        { onError: (err) => toast.error(err) },
      );
    };
    if (r.recorder.state !== 'inactive') r.recorder.stop();
  };

  // Cloud API, 24 hours after the customer's last message: templates only (docs/cloud-api.md).
  if (outsideWindow === 'template') return <TemplateComposer ticket={ticket} onSent={onSent} />;
  // #34 Instagram/Messenger, 7 days after it: nothing can be sent until the customer writes (docs/channels.md).
  if (outsideWindow === 'closed')
    return (
      <Typography
        role="status"
        data-testid="window-closed"
        variant="body2"
        color="text.secondary"
        sx={{ p: 2, borderTop: 1, borderColor: 'divider' }}
      >
        {t('errors.ERR_OUTSIDE_HUMAN_AGENT_WINDOW')}
      </Typography>
    );

  const canSend = Boolean(text.trim() || files.length);
  const iconSx = { color: 'text.secondary' };

  return (
    <Box
      sx={{ borderTop: 1, borderColor: 'divider', bgcolor: 'background.paper', position: 'relative' }}
      data-testid="message-input"
    >
      {suggestions.length ? (
        <Paper
          elevation={6}
          sx={{
            position: 'absolute',
            bottom: '100%',
            left: 8,
            right: 8,
            mb: 0.5,
            maxHeight: 260,
            overflow: 'auto',
            zIndex: 2,
          }}
          data-testid="quick-replies"
        >
          <List dense disablePadding>
            {suggestions.map((q, i) => (
              <ListItemButton
                key={q.id}
                selected={i === highlighted}
                onClick={() => choose(q)}
                data-testid="quick-reply-option"
              >
                <ListItemText
                  primary={`/${q.shortcode}`}
                  secondary={
                    <>
                      {q.mediaName ? (
                        <AttachFileIcon
                          sx={{ fontSize: 14, verticalAlign: 'text-bottom', mr: 0.5 }}
                          aria-label={q.mediaName}
                        />
                      ) : null}
                      {cutLabel(q.message)}
                    </>
                  }
                />
              </ListItemButton>
            ))}
          </List>
        </Paper>
      ) : null}

      {replyTo ? (
        <Box
          sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1.5, pt: 1 }}
          data-testid="reply-preview"
        >
          <Box
            sx={{
              flex: 1,
              minWidth: 0,
              borderLeft: 4,
              borderColor: replyTo.fromMe ? 'primary.main' : 'secondary.main',
              bgcolor: (theme) => alpha(theme.palette.text.primary, 0.05),
              borderRadius: 1,
              px: 1,
              py: 0.5,
            }}
          >
            <Typography
              variant="caption"
              sx={{ fontWeight: 700, color: replyTo.fromMe ? 'primary.main' : 'secondary.main' }}
            >
              {replyTo.fromMe ? t('tickets.messages.you') : ticket.contact.name}
            </Typography>
            <Typography variant="body2" color="text.secondary" noWrap>
              {replyTo.body ||
                (replyTo.mediaType
                  ? t(`tickets.media.${replyTo.mediaType}`, { defaultValue: t('tickets.media.application') })
                  : '')}
            </Typography>
          </Box>
          <Tooltip title={t('tickets.input.cancelReply')}>
            <IconButton size="small" onClick={onClearReply} aria-label={t('tickets.input.cancelReply')}>
              <CloseIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </Box>
      ) : null}

      {files.length ? (
        <Box sx={{ display: 'flex', gap: 0.75, flexWrap: 'wrap', px: 1.5, pt: 1 }} data-testid="attachments">
          {files.map((f, i) => (
            <Chip
              key={`${f.name}-${i}`}
              icon={<AttachFileIcon />}
              label={`${f.name} · ${Math.max(1, Math.round(f.size / 1024))} KB`}
              onDelete={() => setFiles((list) => list.filter((_f, j) => j !== i))}
              sx={{ maxWidth: 260 }}
            />
          ))}
        </Box>
      ) : null}

      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const chosen = [...(e.target.files ?? [])];
          e.target.value = '';
          if (chosen.length) setFiles((f) => [...f, ...chosen].slice(0, 10));
          input.current?.focus();
        }}
      />

      {recording ? (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1, py: 1 }} data-testid="recorder">
          <Tooltip title={t('tickets.input.discardAudio')}>
            <IconButton
              onClick={() => stopRecording(false)}
              aria-label={t('tickets.input.discardAudio')}
              color="error"
            >
              <DeleteOutlineIcon />
            </IconButton>
          </Tooltip>
          <Box
            sx={{
              width: 10,
              height: 10,
              borderRadius: '50%',
              bgcolor: 'error.main',
              animation: 'recPulse 1s infinite',
              '@keyframes recPulse': { '50%': { opacity: 0.3 } },
            }}
          />
          <Typography sx={{ fontVariantNumeric: 'tabular-nums', flex: 1 }} data-testid="recorder-time">
            {mmss(seconds)}
          </Typography>
          <Tooltip title={t('tickets.input.sendAudio')}>
            <IconButton
              onClick={() => stopRecording(true)}
              aria-label={t('tickets.input.sendAudio')}
              color="primary"
            >
              <CheckCircleOutlineIcon />
            </IconButton>
          </Tooltip>
        </Box>
      ) : (
        <Box sx={{ display: 'flex', alignItems: 'flex-end', gap: 0.25, px: 0.75, py: 1 }}>
          <Tooltip title={t('tickets.input.emoji')}>
            <IconButton
              onClick={(e) => setEmojiAnchor(e.currentTarget)}
              aria-label={t('tickets.input.emoji')}
              sx={iconSx}
            >
              <InsertEmoticonOutlinedIcon />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('tickets.input.attach')}>
            <IconButton
              onClick={() => fileInput.current?.click()}
              aria-label={t('tickets.input.attach')}
              sx={iconSx}
            >
              <AttachFileIcon />
            </IconButton>
          </Tooltip>
          <Tooltip title={t(sign ? 'tickets.input.signOn' : 'tickets.input.signOff')}>
            <IconButton
              onClick={toggleSign}
              aria-label={t('tickets.input.sign')}
              aria-pressed={sign}
              data-testid="sign-toggle"
              sx={{ color: sign ? 'primary.main' : 'text.disabled' }}
            >
              <DrawOutlinedIcon />
            </IconButton>
          </Tooltip>
          <TextField
            inputRef={input}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setHighlighted(0);
              agentTyping();
            }}
            onKeyDown={onKeyDown}
            onPaste={onPaste}
            placeholder={t(
              note
                ? 'macros:macros.notePlaceholder'
                : files.length
                  ? 'tickets.input.caption'
                  : 'tickets.input.placeholder',
            )}
            multiline
            maxRows={5}
            autoFocus
            slotProps={{
              htmlInput: {
                'aria-label': t('tickets.input.placeholder'),
                maxLength: 20000,
                'data-testid': 'message-text',
                'data-note': note ? 'true' : undefined,
              },
            }}
            sx={{
              flex: 1,
              mx: 0.5,
              '& .MuiOutlinedInput-root': {
                borderRadius: 3,
                py: 1,
                bgcolor: (theme) =>
                  note ? alpha(theme.palette.warning.main, 0.16) : alpha(theme.palette.text.primary, 0.04),
              },
            }}
          />
          {canSend ? (
            <Tooltip title={t('tickets.input.send')}>
              <IconButton
                onClick={submit}
                aria-label={t('tickets.input.send')}
                color="primary"
                data-testid="send-button"
              >
                <SendIcon />
              </IconButton>
            </Tooltip>
          ) : (
            <Tooltip title={t('tickets.input.record')}>
              <IconButton
                onClick={() => void startRecording()}
                aria-label={t('tickets.input.record')}
                sx={iconSx}
              >
                <MicNoneOutlinedIcon />
              </IconButton>
            </Tooltip>
          )}
        </Box>
      )}

      <Popover
        open={Boolean(emojiAnchor)}
        anchorEl={emojiAnchor}
        onClose={() => setEmojiAnchor(null)}
        anchorOrigin={{ vertical: 'top', horizontal: 'left' }}
        transformOrigin={{ vertical: 'bottom', horizontal: 'left' }}
      >
        <Box
          sx={{ display: 'grid', gridTemplateColumns: 'repeat(8, 36px)', p: 1 }}
          role="listbox"
          aria-label={t('tickets.input.emoji')}
          data-testid="emoji-grid"
        >
          {EMOJI.map((e) => (
            <IconButton
              key={e}
              role="option"
              aria-label={e}
              onClick={() => {
                insert(e);
                setEmojiAnchor(null);
              }}
              sx={{ fontSize: 20, width: 36, height: 36, p: 0 }}
            >
              {e}
            </IconButton>
          ))}
        </Box>
      </Popover>
    </Box>
  );
}

/**
 * Is this ticket outside its channel's window? A Cloud API ticket whose customer last wrote more than 24 hours
 * ago ('template': templates only), or an Instagram/Messenger one more than 7 days ago ('closed'). From the
 * server's answer, moved forward by any newer customer message the socket brought in; checked every minute.
 */
function useOutsideWindow(ticketId: number): false | 'template' | 'closed' {
  const { data, messages } = useMessages(ticketId);
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(new Date()), 60_000);
    return () => window.clearInterval(timer);
  }, []);
  const server = data?.pages[0]?.window;
  if (!server || (server.channel !== 'cloud_api' && !isHumanAgentChannel(server.channel))) return false;
  let last = server.lastInboundAt ? Date.parse(server.lastInboundAt) : 0;
  for (const m of messages) if (!m.fromMe) last = Math.max(last, Date.parse(m.createdAt));
  if (windowOpen(server.channel, last ? new Date(last) : null, now)) return false;
  return server.channel === 'cloud_api' ? 'template' : 'closed';
}
