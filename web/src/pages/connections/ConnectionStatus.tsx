import { Box, Chip, CircularProgress, Tooltip, Typography } from '@mui/material';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import CloudIcon from '@mui/icons-material/Cloud';
import FacebookIcon from '@mui/icons-material/Facebook';
import ForumIcon from '@mui/icons-material/Forum';
import HourglassTopIcon from '@mui/icons-material/HourglassTop';
import InstagramIcon from '@mui/icons-material/Instagram';
import LinkOffIcon from '@mui/icons-material/LinkOff';
import QrCode2Icon from '@mui/icons-material/QrCode2';
import ScienceIcon from '@mui/icons-material/Science';
import SignalCellularConnectedNoInternet0BarIcon from '@mui/icons-material/SignalCellularConnectedNoInternet0Bar';
import SyncIcon from '@mui/icons-material/Sync';
import TelegramIcon from '@mui/icons-material/Telegram';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { useTranslation } from 'react-i18next';
import type { ChannelKindName, ConnectionState } from '@recado/contracts';

const STATUS_LOOK: Record<ConnectionState, { color: string; icon: typeof CheckCircleIcon | null }> = {
  CONNECTED: { color: 'success.main', icon: CheckCircleIcon },
  qrcode: { color: 'info.main', icon: QrCode2Icon },
  PAIRING: { color: 'info.main', icon: SyncIcon },
  OPENING: { color: 'warning.main', icon: null },
  TIMEOUT: { color: 'warning.main', icon: HourglassTopIcon },
  DISCONNECTED: { color: 'error.main', icon: LinkOffIcon },
};

/** The connection's status: an icon in the status color and its translated name. */
export function ConnectionStatus({
  status,
  compact = false,
  reason,
}: {
  status: ConnectionState;
  compact?: boolean;
  /** Why a DISCONNECTED or TIMEOUT connection is not running (translated code; details in a tooltip). */
  reason?: { reason: string; detail?: string };
}) {
  const { t } = useTranslation();
  const look = STATUS_LOOK[status] ?? {
    color: 'text.secondary',
    icon: SignalCellularConnectedNoInternet0BarIcon,
  };
  const Icon = look.icon;
  const label = t(`connections.status.${status}`, { defaultValue: status });
  const badge = (
    <Box
      component="span"
      data-testid="connection-status"
      data-status={status}
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 0.75,
        color: look.color,
        whiteSpace: 'nowrap',
      }}
    >
      {Icon ? <Icon sx={{ fontSize: 18 }} /> : <CircularProgress size={14} color="inherit" />}
      <Typography component="span" variant={compact ? 'caption' : 'body2'} sx={{ color: 'text.primary' }}>
        {label}
      </Typography>
    </Box>
  );
  if (!reason) return badge;
  const why = t(`connections.reason.${reason.reason}`, { defaultValue: reason.reason });
  return (
    <Box component="span" sx={{ display: 'inline-flex', flexDirection: 'column', gap: 0.25 }}>
      {badge}
      <Tooltip title={reason.detail ?? ''}>
        <Typography
          component="span"
          variant="caption"
          color="text.secondary"
          data-testid="connection-status-reason"
          sx={{ maxWidth: 280 }}
        >
          {why}
        </Typography>
      </Tooltip>
    </Box>
  );
}

export const CHANNEL_LOOK: Record<
  ChannelKindName,
  { icon: typeof WhatsAppIcon; color: 'success' | 'info' | 'secondary' }
> = {
  baileys: { icon: WhatsAppIcon, color: 'success' },
  cloud_api: { icon: CloudIcon, color: 'info' },
  simulator: { icon: ScienceIcon, color: 'secondary' },
  webchat: { icon: ForumIcon, color: 'info' },
  telegram: { icon: TelegramIcon, color: 'info' },
  instagram: { icon: InstagramIcon, color: 'secondary' },
  messenger: { icon: FacebookIcon, color: 'info' },
};

/** WhatsApp / Cloud API / Simulador. */
export function ChannelChip({ channel }: { channel: ChannelKindName }) {
  const { t } = useTranslation();
  const look = CHANNEL_LOOK[channel] ?? CHANNEL_LOOK.baileys;
  const Icon = look.icon;
  return (
    <Tooltip title={t(`connections.channelHelp.${channel}`, { defaultValue: '' })}>
      <Chip
        size="small"
        variant="outlined"
        color={look.color}
        icon={<Icon fontSize="small" />}
        label={t(`connections.channels.${channel}`, { defaultValue: channel })}
        data-testid="channel-chip"
      />
    </Tooltip>
  );
}

/**
 * #34.4 The channel as a small icon in its colour, named by a tooltip and for screen readers: the compact
 * form of ChannelChip for ticket rows, kanban cards, notifications and filters.
 */
export function ChannelIcon({
  channel,
  size = 16,
  tooltip = true,
}: {
  channel: ChannelKindName | string;
  size?: number;
  /** Off inside a control that already shows the channel's name (a menu item, a chip's label). */
  tooltip?: boolean;
}) {
  const { t } = useTranslation();
  const look = CHANNEL_LOOK[channel as ChannelKindName] ?? CHANNEL_LOOK.baileys;
  const Icon = look.icon;
  const label = t(`connections.channels.${channel}`, { defaultValue: channel });
  const icon = (
    <Icon
      sx={{ fontSize: size, color: `${look.color}.main`, flexShrink: 0 }}
      aria-label={tooltip ? label : undefined}
      aria-hidden={tooltip ? undefined : true}
      role={tooltip ? 'img' : undefined}
      data-testid="channel-icon"
      data-channel={channel}
    />
  );
  return tooltip ? (
    <Tooltip title={label}>
      <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center' }}>
        {icon}
      </Box>
    </Tooltip>
  ) : (
    icon
  );
}
