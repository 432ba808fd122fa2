import { Box, IconButton, MenuItem, Tooltip } from '@mui/material';
import { alpha, useTheme } from '@mui/material/styles';
import CloseIcon from '@mui/icons-material/Close';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { REACTION_CHANNELS, REACTION_EMOJIS, reactionsOf } from '@recado/contracts';
import { api } from '../../../api/client.js';
import { putMessage, type MessageView } from '../../../api/messages.js';
import { useToast } from '../../../app/useToast.js';
import { chatColors } from '../ticket-format.js';
import { useReactionsT } from './reactions-i18n.js';

/** Channels whose connections carry reactions (the simulator has none). */
export const REACTING_CHANNELS = new Set(REACTION_CHANNELS);

/** #33.7 `POST /api/messages/{id}/reactions {emoji}` ('' removes); the answer patches the cached message. */
export function useReact() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, emoji }: { id: number; emoji: string }) =>
      api.post<MessageView>(`/messages/${id}/reactions`, { emoji }),
    onSuccess: (message) => {
      if (message && typeof message === 'object' && 'id' in message) putMessage(client, message);
    },
  });
}

/** Whether a message shows reactions (its bubble leaves room for them). */
export const hasReactions = (message: MessageView) => {
  const r = reactionsOf(message.data);
  return Boolean(r.customer || r.company);
};

/**
 * The reactions on a bubble, as WhatsApp draws them: small pills hanging from its bottom edge — the
 * customer's and the company's (with a mark when the company's could not be sent). Updated live by the
 * message's socket event.
 */
export function ReactionChips({ message }: { message: MessageView }) {
  const { t } = useReactionsT();
  const mode = useTheme().palette.mode;
  const colors = chatColors(mode);
  const r = reactionsOf(message.data);
  if (!r.customer && !r.company) return null;
  const pill = (emoji: string, who: 'customer' | 'company', error?: string) => (
    <Tooltip title={error ? t('failed', { reason: error }) : t(who, { emoji })} key={who}>
      <Box
        component="span"
        role="img"
        aria-label={t(who, { emoji })}
        data-testid="message-reaction"
        data-who={who}
        data-emoji={emoji}
        sx={{
          display: 'inline-flex',
          alignItems: 'center',
          gap: 0.25,
          px: 0.6,
          height: 22,
          fontSize: 14,
          lineHeight: 1,
          borderRadius: 11,
          bgcolor: colors.theirs,
          border: 1,
          borderColor: error ? 'error.main' : alpha(mode === 'dark' ? '#ffffff' : '#0b141a', 0.12),
          boxShadow: '0 1px 1px rgba(11,20,26,.16)',
        }}
      >
        {emoji}
        {error ? <ErrorOutlineIcon sx={{ fontSize: 13, color: 'error.main' }} /> : null}
      </Box>
    </Tooltip>
  );
  return (
    <Box
      data-testid="message-reactions"
      sx={{
        position: 'absolute',
        bottom: -14,
        [message.fromMe ? 'right' : 'left']: 8,
        display: 'flex',
        gap: 0.5,
        zIndex: 1,
      }}
    >
      {r.customer ? pill(r.customer, 'customer') : null}
      {r.company ? pill(r.company, 'company', r.error || undefined) : null}
    </Box>
  );
}

/** The quick row at the top of a bubble's menu: the common emoji, and "remove" when the company reacted. */
export function ReactionPicker({ message, onDone }: { message: MessageView; onDone(): void }) {
  const { t } = useReactionsT();
  const toast = useToast();
  const react = useReact();
  const mine = reactionsOf(message.data).company;
  const send = (emoji: string) => {
    onDone();
    react.mutate({ id: message.id, emoji }, { onError: (err) => toast.error(err) });
  };
  return (
    // A menu item of its own (the menu's arrows reach it, and it is the first when the menu opens): right
    // and left move along its emoji, Enter picks one, down and up go back to the menu's other items.
    <MenuItem
      component="div"
      disableRipple
      aria-label={t('react')}
      data-testid="reaction-picker"
      onKeyDown={(e) => {
        const row = [...e.currentTarget.querySelectorAll<HTMLElement>('button')];
        const at = row.indexOf(document.activeElement as HTMLElement);
        if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
          e.preventDefault();
          e.stopPropagation();
          const step = e.key === 'ArrowRight' ? 1 : row.length - 1;
          row[at < 0 ? (step === 1 ? 0 : row.length - 1) : (at + step) % row.length]?.focus();
        } else if (at >= 0 && (e.key === 'Enter' || e.key === ' ')) e.stopPropagation();
        else if (at >= 0 && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) e.currentTarget.focus();
      }}
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 0.25,
        px: 1,
        pb: 0.5,
        cursor: 'default',
        '&:hover': { bgcolor: 'transparent' },
      }}
    >
      {REACTION_EMOJIS.map((emoji) => (
        <IconButton
          key={emoji}
          tabIndex={-1}
          size="small"
          aria-label={t('reactWith', { emoji })}
          aria-pressed={mine === emoji}
          data-testid="reaction-option"
          data-emoji={emoji}
          onClick={() => send(mine === emoji ? '' : emoji)}
          sx={{
            fontSize: 20,
            width: 36,
            height: 36,
            bgcolor: mine === emoji ? (theme) => alpha(theme.palette.primary.main, 0.18) : undefined,
          }}
        >
          {emoji}
        </IconButton>
      ))}
      {mine ? (
        <Tooltip title={t('remove')}>
          <IconButton
            size="small"
            aria-label={t('remove')}
            tabIndex={-1}
            data-testid="reaction-remove"
            onClick={() => send('')}
          >
            <CloseIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      ) : null}
    </MenuItem>
  );
}
