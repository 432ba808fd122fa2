import { Box, Typography } from '@mui/material';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import { useTranslation } from 'react-i18next';
import type { TicketView } from '@recado/contracts';

/** Whether an automation is answering the ticket now (no "Accept" in the waiting list then). */
export const automationActive = (ticket: Pick<TicketView, 'automation'>) =>
  ticket.automation?.status === 'active';

/**
 * The automation's state on a ticket (docs/automation.md): "IA respondendo" while it answers, "IA falhou: …"
 * once it failed and people have the ticket. Nothing without one.
 */
export function AutomationLine({
  ticket,
  variant,
}: {
  ticket: Pick<TicketView, 'automation'>;
  variant: 'row' | 'chat';
}) {
  const { t } = useTranslation();
  const a = ticket.automation;
  if (!a) return null;
  const who = t(`tickets.automation.kind.${a.kind}`, { defaultValue: a.kind });
  const failed = a.status === 'failed';
  const text = failed
    ? t('tickets.automation.failed', { who, error: a.error ?? '' })
    : t('tickets.automation.active', { who });
  const Icon = failed ? ErrorOutlineIcon : SmartToyOutlinedIcon;
  return (
    <Box
      data-testid={variant === 'row' ? 'ticket-automation' : 'chat-automation'}
      data-status={a.status}
      role={variant === 'chat' ? 'status' : undefined}
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 0.75,
        minWidth: 0,
        color: failed ? 'error.main' : 'info.main',
        ...(variant === 'chat'
          ? {
              px: 2,
              py: 0.75,
              borderBottom: 1,
              borderColor: 'divider',
              bgcolor: failed ? 'rgba(211, 47, 47, 0.08)' : 'rgba(2, 136, 209, 0.08)',
            }
          : { mt: 0.5 }),
      }}
    >
      <Icon sx={{ fontSize: variant === 'row' ? 16 : 18, flexShrink: 0 }} />
      <Typography
        variant={variant === 'row' ? 'caption' : 'body2'}
        noWrap={variant === 'row'}
        sx={{ minWidth: 0, fontWeight: 600, overflowWrap: 'anywhere' }}
      >
        {text}
      </Typography>
    </Box>
  );
}
