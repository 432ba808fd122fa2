import { Box, Chip, Skeleton, Tooltip, Typography } from '@mui/material';
import { alpha, useTheme } from '@mui/material/styles';
import AccessTimeIcon from '@mui/icons-material/AccessTime';
import BlockIcon from '@mui/icons-material/Block';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import DoneIcon from '@mui/icons-material/Done';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import InsertDriveFileIcon from '@mui/icons-material/InsertDriveFile';
import { useTranslation } from 'react-i18next';
import { fetchMedia, useMediaUrl, type SimulatorMessage } from '../../api/simulator.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { formatTime } from '../../i18n/format.js';

/** WhatsApp's own colors, so the simulated phone looks like the real one in both themes. */
export function phoneColors(mode: 'light' | 'dark') {
  return mode === 'light'
    ? {
        wallpaper: '#efeae2',
        mine: '#d9fdd3',
        theirs: '#ffffff',
        text: '#111b21',
        meta: '#667781',
        header: '#008069',
        headerText: '#ffffff',
        bar: '#f0f2f5',
        input: '#ffffff',
        read: '#53bdeb',
        frame: '#1f2c34',
        chip: '#ffffffd9',
      }
    : {
        wallpaper: '#0b141a',
        mine: '#005c4b',
        theirs: '#202c33',
        text: '#e9edef',
        meta: '#8696a0',
        header: '#202c33',
        headerText: '#e9edef',
        bar: '#202c33',
        input: '#2a3942',
        read: '#53bdeb',
        frame: '#000000',
        chip: '#182229',
      };
}

const ACK_KEYS = ['pending', 'sent', 'delivered', 'read'] as const;

/** 0 clock (sending), 1 ✓ sent, 2 ✓✓ delivered, 3+ blue ✓✓ read; a failed send shows an error mark. */
export function AckIcon({ ack, failed }: { ack: number; failed?: boolean }) {
  const { t } = useTranslation();
  const colors = phoneColors(useTheme().palette.mode);
  const key = failed ? 'failed' : ACK_KEYS[Math.min(Math.max(ack, 0), 3)]!;
  const label = t(`simulator.ack.${key}`);
  const sx = { fontSize: 16, color: failed ? 'error.main' : ack >= 3 ? colors.read : colors.meta };
  const Icon = failed ? ErrorOutlineIcon : ack <= 0 ? AccessTimeIcon : ack === 1 ? DoneIcon : DoneAllIcon;
  return (
    <Tooltip title={label}>
      <Icon sx={sx} aria-label={label} data-testid="ack" data-ack={failed ? 'failed' : ack} />
    </Tooltip>
  );
}

function MediaContent({ message, onLoad }: { message: SimulatorMessage; onLoad(): void }) {
  const { t } = useTranslation();
  const local = message.local?.url;
  const fetched = useMediaUrl(local ? null : message.mediaUrl);
  const src = local ?? fetched.src;
  const type = message.mediaType;

  if (type === 'image' || type === 'video' || type === 'audio') {
    if (fetched.failed && !local)
      return (
        <Typography variant="caption" sx={{ fontStyle: 'italic', opacity: 0.8 }}>
          {t('simulator.mediaFailed')}
        </Typography>
      );
    if (!src)
      return type === 'audio' ? (
        <Skeleton variant="rounded" width={240} height={40} />
      ) : (
        <Skeleton variant="rounded" width={240} height={180} />
      );
    if (type === 'image')
      return (
        <Box
          component="img"
          src={src}
          alt={message.body || t('simulator.image')}
          onLoad={onLoad}
          data-testid="sim-image"
          sx={{
            display: 'block',
            maxWidth: '100%',
            width: 260,
            maxHeight: 320,
            objectFit: 'cover',
            borderRadius: 1.5,
          }}
        />
      );
    if (type === 'video')
      return (
        <Box
          component="video"
          src={src}
          controls
          onLoadedMetadata={onLoad}
          sx={{ display: 'block', maxWidth: '100%', width: 260, borderRadius: 1.5 }}
        />
      );
    return (
      <Box component="audio" src={src} controls sx={{ display: 'block', width: 250, maxWidth: '100%' }} />
    );
  }

  const filename = message.local?.filename || message.mediaName || message.body || t('simulator.file');
  const download = async () => {
    try {
      const blob = message.local?.url
        ? await (await fetch(message.local.url)).blob()
        : await fetchMedia(message.mediaUrl ?? '');
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = filename;
      a.click();
      window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch {
      /* the chip stays; nothing to save */
    }
  };
  return (
    <Chip
      icon={<InsertDriveFileIcon />}
      label={filename}
      onClick={message.mediaUrl || local ? () => void download() : undefined}
      title={t('simulator.download')}
      data-testid="sim-file"
      sx={{ maxWidth: 260, bgcolor: (theme) => alpha(theme.palette.text.primary, 0.08), color: 'inherit' }}
    />
  );
}

const time = (iso: string, lang: string) => formatTime(iso, lang);

/** One message: the customer's own on the right in green, the company's on the left. */
export function MessageBubble({
  message,
  companyName,
  onMediaLoad,
}: {
  message: SimulatorMessage;
  /** Who the company's messages come from, as the phone names them in a quote. */
  companyName: string;
  onMediaLoad(): void;
}) {
  const { t, i18n } = useTranslation();
  const colors = phoneColors(useTheme().palette.mode);
  const mine = !message.fromMe;
  const hasMedia = Boolean(message.mediaType) && !message.isDeleted;
  // A document shows its name; its caption goes under it. One without a known name shows the caption as the
  // chip's label instead, not twice.
  const caption =
    hasMedia && message.mediaType === 'application' && !message.local?.filename && !message.mediaName
      ? ''
      : message.body;
  const quoted = message.quoted;
  const edited = Boolean(message.isEdited) && !message.isDeleted;
  return (
    <Box
      data-testid="sim-message"
      data-from={mine ? 'customer' : 'company'}
      data-id={message.id}
      sx={{ display: 'flex', justifyContent: mine ? 'flex-end' : 'flex-start', px: 1.5, py: 0.25 }}
    >
      <Box
        sx={{
          position: 'relative',
          maxWidth: 'min(85%, 600px)',
          bgcolor: mine ? colors.mine : colors.theirs,
          color: colors.text,
          borderRadius: 2,
          borderTopRightRadius: mine ? 2 : 8,
          borderTopLeftRadius: mine ? 8 : 2,
          px: 1,
          pt: hasMedia ? 0.5 : 0.75,
          pb: 0.5,
          boxShadow: '0 1px 0.5px rgba(11,20,26,.13)',
        }}
      >
        {quoted && !message.isDeleted ? (
          <Box
            data-testid="sim-quote"
            sx={{
              mb: 0.5,
              px: 1,
              py: 0.5,
              borderLeft: 4,
              borderColor: quoted.fromMe ? 'secondary.main' : 'primary.main',
              borderRadius: 1,
              bgcolor: alpha(colors.text, 0.06),
              overflow: 'hidden',
            }}
          >
            <Typography
              variant="caption"
              sx={{
                display: 'block',
                fontWeight: 700,
                color: quoted.fromMe ? 'secondary.main' : 'primary.main',
              }}
            >
              {quoted.fromMe ? companyName : t('simulator.you')}
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
                `[${quoted.mediaType}]`
              ) : null}
            </Typography>
          </Box>
        ) : null}
        {hasMedia ? (
          <Box sx={{ mb: caption ? 0.5 : 0 }}>
            <MediaContent message={message} onLoad={onMediaLoad} />
          </Box>
        ) : null}
        {message.isDeleted || caption ? (
          <Typography
            variant="body2"
            component="div"
            data-testid="sim-body"
            sx={{
              whiteSpace: 'pre-wrap',
              overflowWrap: 'anywhere',
              lineHeight: 1.45,
              ...(message.isDeleted ? { fontStyle: 'italic', color: colors.meta } : {}),
            }}
          >
            {message.isDeleted ? (
              <BlockIcon sx={{ fontSize: 15, verticalAlign: 'text-bottom', mr: 0.5 }} />
            ) : null}
            {message.isDeleted ? t('simulator.deleted') : <WhatsAppText text={caption} links />}
            {/* Room for the time and ticks on the last line, as WhatsApp does. */}
            <Box component="span" sx={{ display: 'inline-block', width: edited ? 112 : 64 }} />
          </Typography>
        ) : null}
        <Box
          sx={{
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'flex-end',
            gap: 0.25,
            height: 16,
            ...(message.isDeleted || caption ? { position: 'absolute', right: 8, bottom: 4 } : { mt: 0.25 }),
          }}
        >
          {edited ? (
            <Typography
              component="span"
              data-testid="sim-edited"
              sx={{ fontSize: 11, lineHeight: 1, color: colors.meta, fontStyle: 'italic', mr: 0.25 }}
            >
              {t('simulator.edited')}
            </Typography>
          ) : null}
          <Typography component="span" sx={{ fontSize: 11, lineHeight: 1, color: colors.meta }}>
            {time(message.createdAt, i18n.language)}
          </Typography>
          <AckIcon ack={message.ack} failed={message.local?.failed} />
        </Box>
      </Box>
    </Box>
  );
}
