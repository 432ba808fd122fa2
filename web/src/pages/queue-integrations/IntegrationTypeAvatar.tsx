import { Avatar } from '@mui/material';
import { alpha, lighten } from '@mui/material/styles';
import type { QueueIntegrationType } from '@recado/contracts';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import AccountTreeOutlinedIcon from '@mui/icons-material/AccountTreeOutlined';
import WebhookOutlinedIcon from '@mui/icons-material/WebhookOutlined';
import ChatOutlinedIcon from '@mui/icons-material/ChatOutlined';

/** A logo per integration type (docs/automation.md), made of MUI icons in each product's colour. */
const LOGOS: Record<QueueIntegrationType, { Icon: typeof ChatOutlinedIcon; color: string }> = {
  dialogflow: { Icon: SmartToyOutlinedIcon, color: '#FF9800' },
  n8n: { Icon: AccountTreeOutlinedIcon, color: '#EA4B71' },
  webhook: { Icon: WebhookOutlinedIcon, color: '#607D8B' },
  typebot: { Icon: ChatOutlinedIcon, color: '#0042DA' },
};

export function IntegrationTypeAvatar({ type, size = 36 }: { type: QueueIntegrationType; size?: number }) {
  const { Icon, color } = LOGOS[type] ?? LOGOS.webhook;
  return (
    <Avatar
      variant="rounded"
      data-testid="integration-logo"
      data-type={type}
      sx={(theme) => ({
        width: size,
        height: size,
        bgcolor: alpha(color, theme.palette.mode === 'dark' ? 0.25 : 0.12),
        color: theme.palette.mode === 'dark' ? lighten(color, 0.4) : color,
        border: `1px solid ${alpha(color, 0.5)}`,
      })}
    >
      <Icon sx={{ fontSize: size * 0.6 }} />
    </Avatar>
  );
}
