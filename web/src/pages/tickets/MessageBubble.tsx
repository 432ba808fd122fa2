import { memo, useState, type ReactNode } from 'react';
import {
  Box,
  Chip,
  Dialog,
  IconButton,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Skeleton,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha, useTheme } from '@mui/material/styles';
import AccessTimeIcon from '@mui/icons-material/AccessTime';
import BlockIcon from '@mui/icons-material/Block';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import DoneIcon from '@mui/icons-material/Done';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import InsertDriveFileOutlinedIcon from '@mui/icons-material/InsertDriveFileOutlined';
import LocationOnOutlinedIcon from '@mui/icons-material/LocationOnOutlined';
import ContactPhoneOutlinedIcon from '@mui/icons-material/ContactPhoneOutlined';
import PhoneMissedOutlinedIcon from '@mui/icons-material/PhoneMissedOutlined';
import ReplyIcon from '@mui/icons-material/Reply';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import { useTranslation } from 'react-i18next';
import ShortcutIcon from '@mui/icons-material/Shortcut';
import { ForwardDialog } from './pin-forward/ForwardDialog.js';
import { useMergeT } from '../contacts/merge/merge-i18n.js';
import { fetchMediaBlob, useMediaUrl, type MessageView } from '../../api/messages.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { chatColors, clockTime, matchRanges } from './ticket-format.js';
import { GroupSender, RecoveredMark } from './MessageGapMarks.js';
import { hasReactions, ReactionChips, ReactionPicker } from './reactions/MessageReactions.js';

const ACK_KEYS = ['pending', 'sent', 'delivered', 'read'] as const;

/** 0 clock, 1 ✓ sent, 2 ✓✓ delivered, 3–5 blue ✓✓ read. */
export function AckIcon({ ack }: { ack: number }) {
  const { t } = useTranslation();
  const colors = chatColors(useTheme().palette.mode);
  const level = Math.min(Math.max(ack, 0), 3);
  const label = t(`tickets.ack.${ACK_KEYS[level]}`);
  const Icon = level === 0 ? AccessTimeIcon : level === 1 ? DoneIcon : DoneAllIcon;
  return (
    <Icon
      aria-label={label}
      titleAccess={label}
      data-testid="ack"
      data-ack={ack}
      sx={{ fontSize: 16, color: level >= 3 ? colors.read : colors.meta }}
    />
  );
}

/** The text with the search term's occurrences marked. */
function marked(text: string, term: string | undefined, key: string): ReactNode {
  const ranges = term ? matchRanges(text, term) : [];
  if (!ranges.length) return text;
  const out: ReactNode[] = [];
  let last = 0;
  ranges.forEach(([start, end], i) => {
    if (start > last) out.push(text.slice(last, start));
    out.push(
      <Box
        component="mark"
        key={`${key}-${i}`}
        data-testid="search-mark"
        sx={{ bgcolor: '#ffd54f', color: '#111b21', borderRadius: 0.5, px: 0.1 }}
      >
        {text.slice(start, end)}
      </Box>,
    );
    last = end;
  });
  if (last < text.length) out.push(text.slice(last));
  return <span key={key}>{out}</span>;
}

/** The message text through the one WhatsApp renderer; `mark` highlights a search term. */
export function FormattedBody({ text, mark }: { text: string; mark?: string }) {
  return <WhatsAppText text={text} links mark={mark ? (part, key) => marked(part, mark, key) : undefined} />;
}

async function download(url: string, filename: string) {
  const blob = await fetchMediaBlob(url);
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  a.click();
  window.setTimeout(() => URL.revokeObjectURL(href), 1000);
}

function Media({ message, onLoad }: { message: MessageView; onLoad(): void }) {
  const { t } = useTranslation();
  const [zoom, setZoom] = useState(false);
  const visual =
    message.mediaType === 'image' || message.mediaType === 'video' || message.mediaType === 'audio';
  const media = useMediaUrl(visual ? message.mediaUrl : null);
  if (!message.mediaUrl) return null;
  if (visual) {
    if (media.failed)
      return (
        <Typography variant="caption" sx={{ fontStyle: 'italic', opacity: 0.8 }}>
          {t('tickets.messages.mediaFailed')}
        </Typography>
      );
    if (!media.src)
      return message.mediaType === 'audio' ? (
        <Skeleton variant="rounded" width={280} height={40} sx={{ maxWidth: '100%' }} />
      ) : (
        <Skeleton
          variant="rounded"
          width={message.mediaType === 'video' ? 300 : 280}
          height={message.mediaType === 'video' ? 170 : 200}
          sx={{ maxWidth: '100%' }}
        />
      );
    if (message.mediaType === 'image')
      return (
        <>
          <Box
            component="img"
            src={media.src}
            alt={message.mediaName || t('tickets.messages.image')}
            onLoad={onLoad}
            onClick={() => setZoom(true)}
            data-testid="message-image"
            sx={{
              display: 'block',
              maxWidth: '100%',
              // A fixed frame: the list does not jump when the picture arrives.
              width: 280,
              height: 200,
              objectFit: 'cover',
              borderRadius: 1.5,
              cursor: 'zoom-in',
            }}
          />
          <Dialog open={zoom} onClose={() => setZoom(false)} maxWidth="lg">
            <Box
              component="img"
              src={media.src}
              alt={message.mediaName || t('tickets.messages.image')}
              onClick={() => setZoom(false)}
              sx={{ display: 'block', maxWidth: '90vw', maxHeight: '85vh' }}
            />
          </Dialog>
        </>
      );
    if (message.mediaType === 'video')
      return (
        <Box
          component="video"
          src={media.src}
          controls
          onLoadedMetadata={onLoad}
          sx={{
            display: 'block',
            maxWidth: '100%',
            width: 300,
            height: 170,
            bgcolor: '#000',
            borderRadius: 1.5,
          }}
        />
      );
    return (
      <Box
        component="audio"
        src={media.src}
        controls
        data-testid="message-audio"
        sx={{ display: 'block', width: 280, height: 40, maxWidth: '100%' }}
      />
    );
  }
  const filename = message.mediaName || t('tickets.messages.file');
  return (
    <Chip
      icon={<InsertDriveFileOutlinedIcon />}
      label={filename}
      onClick={() => void download(message.mediaUrl!, filename).catch(() => undefined)}
      title={t('tickets.messages.download')}
      data-testid="message-file"
      sx={{ maxWidth: 280, bgcolor: (theme) => alpha(theme.palette.text.primary, 0.08), color: 'inherit' }}
    />
  );
}

const SPECIAL: Record<string, typeof LocationOnOutlinedIcon> = {
  locationMessage: LocationOnOutlinedIcon,
  vcard: ContactPhoneOutlinedIcon,
  contactMessage: ContactPhoneOutlinedIcon,
  call_log: PhoneMissedOutlinedIcon,
};

export interface BubbleProps {
  message: MessageView;
  /** The signed-in user's own message: may be deleted (and edited when the channel can). */
  own: boolean;
  canEdit: boolean;
  readOnly: boolean;
  showSender: boolean;
  contactName: string;
  highlighted: boolean;
  /** The conversation search's term, on the messages that hold it. */
  mark?: string;
  onReply(message: MessageView): void;
  onDelete(message: MessageView): void;
  onEdit(message: MessageView): void;
  onQuoteClick(id: number): void;
  onMediaLoad(): void;
  /** #33.7 The attendant may react (an open ticket on a channel with reactions). */
  canReact?: boolean;
}

/** One message: company side on the right, the customer's on the left. */
export const MessageBubble = memo(function MessageBubble({
  message,
  own,
  canEdit,
  readOnly,
  showSender,
  contactName,
  highlighted,
  mark,
  onReply,
  onDelete,
  onEdit,
  onQuoteClick,
  onMediaLoad,
  canReact = false,
}: BubbleProps) {
  const { t, i18n } = useTranslation();
  const colors = chatColors(useTheme().palette.mode);
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  // #32.9 Forward this message (and others ticked in the dialog).
  const { t: tm } = useMergeT();
  const [forwarding, setForwarding] = useState(false);
  const mine = message.fromMe;
  const deleted = message.isDeleted;
  const failed = typeof message.data?.error === 'string' || message.data?.error === true;
  const hasMedia = Boolean(message.mediaType && message.mediaUrl) && !deleted;
  const Special = message.mediaType ? SPECIAL[message.mediaType] : undefined;
  // A document's caption that only repeats its file name is not shown twice.
  const caption = hasMedia && message.body === message.mediaName ? '' : message.body;
  const quoted = message.quotedMsg;
  const showMenu = !readOnly && !deleted;

  return (
    <Box
      data-testid="message"
      data-id={message.id}
      data-from={mine ? 'me' : 'contact'}
      data-highlighted={highlighted || undefined}
      sx={{
        display: 'flex',
        justifyContent: mine ? 'flex-end' : 'flex-start',
        px: { xs: 1, sm: 2 },
        py: 0.3,
        // #33.7 Room for the reactions hanging from the bubble.
        ...(hasReactions(message) ? { pb: 2 } : {}),
      }}
    >
      <Box
        sx={{
          position: 'relative',
          maxWidth: 'min(85%, 600px)',
          minWidth: 90,
          bgcolor: mine ? colors.mine : colors.theirs,
          color: colors.text,
          borderRadius: 2,
          borderTopRightRadius: mine ? 2 : 8,
          borderTopLeftRadius: mine ? 8 : 2,
          px: 1,
          pt: hasMedia ? 0.5 : 0.75,
          pb: 0.5,
          boxShadow: highlighted ? `0 0 0 2px ${colors.read}` : '0 1px 0.5px rgba(11,20,26,.13)',
          transition: 'box-shadow .3s',
          '&:hover .bubble-menu, & .bubble-menu:focus-visible, & .bubble-menu[aria-expanded="true"]': {
            opacity: 1,
          },
        }}
      >
        {showMenu ? (
          <IconButton
            className="bubble-menu"
            size="small"
            aria-label={t('tickets.messages.options')}
            aria-haspopup="menu"
            aria-expanded={menu ? 'true' : undefined}
            onClick={(e) => setMenu(e.currentTarget)}
            data-testid="message-menu"
            sx={{
              position: 'absolute',
              top: 2,
              right: 2,
              zIndex: 1,
              p: 0.25,
              opacity: 0,
              bgcolor: mine ? colors.mine : colors.theirs,
              color: colors.meta,
              '&:hover': { bgcolor: mine ? colors.mine : colors.theirs },
            }}
          >
            <ExpandMoreIcon fontSize="small" />
          </IconButton>
        ) : null}
        <GroupSender message={message} />
        <RecoveredMark message={message} color={colors.meta} />
        {showSender && message.contact && !mine ? (
          <Typography variant="caption" sx={{ display: 'block', fontWeight: 700, color: 'primary.main' }}>
            {message.contact.name}
          </Typography>
        ) : null}
        {typeof message.data?.automation === 'string' ? (
          <Typography
            variant="caption"
            data-testid="message-automation"
            data-automation={message.data.automation}
            sx={{ display: 'flex', alignItems: 'center', gap: 0.5, fontWeight: 600, color: colors.meta }}
          >
            <SmartToyOutlinedIcon sx={{ fontSize: 14 }} />
            {t(`tickets.messages.automation.${message.data.automation}`, {
              defaultValue: t('tickets.messages.automation.other'),
            })}
          </Typography>
        ) : null}
        {quoted && !deleted ? (
          <Box
            role="button"
            tabIndex={0}
            onClick={() => onQuoteClick(quoted.id)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') onQuoteClick(quoted.id);
            }}
            data-testid="message-quote"
            sx={{
              mb: 0.5,
              px: 1,
              py: 0.5,
              borderLeft: 4,
              borderColor: quoted.fromMe ? 'primary.main' : 'secondary.main',
              borderRadius: 1,
              bgcolor: mine ? colors.quoteMine : colors.quoteTheirs,
              cursor: 'pointer',
              overflow: 'hidden',
            }}
          >
            <Typography
              variant="caption"
              sx={{
                fontWeight: 700,
                color: quoted.fromMe ? 'primary.main' : 'secondary.main',
                display: 'block',
              }}
            >
              {quoted.fromMe ? t('tickets.messages.you') : contactName}
            </Typography>
            <Typography
              variant="body2"
              sx={{
                color: colors.meta,
                display: '-webkit-box',
                WebkitLineClamp: 2,
                WebkitBoxOrient: 'vertical',
                overflow: 'hidden',
                whiteSpace: 'pre-wrap',
              }}
            >
              {quoted.body ? (
                <WhatsAppText text={quoted.body} />
              ) : quoted.mediaType ? (
                t(`tickets.media.${quoted.mediaType}`, { defaultValue: t('tickets.media.application') })
              ) : (
                ''
              )}
            </Typography>
          </Box>
        ) : null}
        {hasMedia && !Special ? (
          <Box sx={{ mb: caption ? 0.5 : 0 }}>
            <Media message={message} onLoad={onMediaLoad} />
          </Box>
        ) : null}
        {message.mediaType === 'audio' && !deleted && typeof message.data?.transcription === 'string' ? (
          <Typography
            variant="body2"
            data-testid="message-transcription"
            sx={{ mt: 0.5, fontStyle: 'italic', color: colors.meta, whiteSpace: 'pre-wrap' }}
          >
            <Box component="span" sx={{ fontWeight: 600, fontStyle: 'normal' }}>
              {t('tickets.messages.transcription')}:{' '}
            </Box>
            {message.data.transcription}
          </Typography>
        ) : null}
        {deleted || caption || Special ? (
          <Typography
            variant="body2"
            component="div"
            data-testid="message-body"
            sx={{
              whiteSpace: 'pre-wrap',
              overflowWrap: 'anywhere',
              lineHeight: 1.45,
              pr: showMenu ? 2 : 0,
              ...(deleted ? { fontStyle: 'italic', color: colors.meta } : {}),
            }}
          >
            {deleted ? <BlockIcon sx={{ fontSize: 15, verticalAlign: 'text-bottom', mr: 0.5 }} /> : null}
            {Special && !deleted ? (
              <Special sx={{ fontSize: 16, verticalAlign: 'text-bottom', mr: 0.5 }} />
            ) : null}
            {deleted ? (
              t('tickets.messages.deleted')
            ) : (
              <FormattedBody text={caption || t(`tickets.media.${message.mediaType}`)} mark={mark} />
            )}
            {/* Room for the time and ticks on the last line. */}
            <Box component="span" sx={{ display: 'inline-block', width: message.isEdited ? 112 : 68 }} />
          </Typography>
        ) : null}
        <Box
          sx={{
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'flex-end',
            gap: 0.4,
            height: 16,
            ...(deleted || caption || Special ? { position: 'absolute', right: 8, bottom: 4 } : { mt: 0.25 }),
          }}
        >
          {message.isEdited && !deleted ? (
            <Typography
              component="span"
              sx={{ fontSize: 11, color: colors.meta, fontStyle: 'italic' }}
              data-testid="message-edited"
            >
              {t('tickets.messages.edited')}
            </Typography>
          ) : null}
          <Typography component="span" sx={{ fontSize: 11, lineHeight: 1, color: colors.meta }}>
            {clockTime(message.createdAt, i18n.language)}
          </Typography>
          {mine && !failed ? <AckIcon ack={message.ack} /> : null}
        </Box>
        {failed ? (
          <Tooltip title={String(message.data?.error ?? '')}>
            <Box
              data-testid="message-failed"
              sx={{ display: 'flex', alignItems: 'center', gap: 0.5, mt: 0.5, color: 'error.main' }}
            >
              <ErrorOutlineIcon sx={{ fontSize: 16 }} />
              <Typography variant="caption" sx={{ fontWeight: 600 }}>
                {t('tickets.messages.failed')}
              </Typography>
              {/* Meta's reason (a failed status webhook: "(#131026) Message undeliverable…"). */}
              {typeof message.data?.errorCode === 'number' ? (
                <Typography
                  variant="caption"
                  data-testid="message-failed-reason"
                  sx={{ overflowWrap: 'anywhere' }}
                >
                  {String(message.data.error)}
                </Typography>
              ) : null}
            </Box>
          </Tooltip>
        ) : null}
        <ReactionChips message={message} />
      </Box>
      <Menu
        anchorEl={menu}
        open={Boolean(menu)}
        onClose={() => setMenu(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        {canReact ? <ReactionPicker message={message} onDone={() => setMenu(null)} /> : null}
        <MenuItem
          onClick={() => {
            setMenu(null);
            onReply(message);
          }}
        >
          <ListItemIcon>
            <ReplyIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('tickets.messages.reply')}</ListItemText>
        </MenuItem>
        <MenuItem
          onClick={() => {
            setMenu(null);
            setForwarding(true);
          }}
          data-testid="message-forward"
        >
          <ListItemIcon>
            <ShortcutIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{tm('forward')}</ListItemText>
        </MenuItem>
        {own && canEdit && !message.mediaType ? (
          <MenuItem
            onClick={() => {
              setMenu(null);
              onEdit(message);
            }}
          >
            <ListItemIcon>
              <EditOutlinedIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText>{t('tickets.messages.edit')}</ListItemText>
          </MenuItem>
        ) : null}
        {own ? (
          <MenuItem
            onClick={() => {
              setMenu(null);
              onDelete(message);
            }}
            sx={{ color: 'error.main' }}
          >
            <ListItemIcon sx={{ color: 'inherit' }}>
              <DeleteOutlineIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText>{t('tickets.messages.delete')}</ListItemText>
          </MenuItem>
        ) : null}
      </Menu>
      {forwarding ? (
        <ForwardDialog
          open
          message={message}
          ticketId={message.ticketId}
          onClose={() => setForwarding(false)}
        />
      ) : null}
    </Box>
  );
});
