import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Box, Typography } from '@mui/material';
import GppMaybeOutlinedIcon from '@mui/icons-material/GppMaybeOutlined';
import type { TicketView } from '@recado/contracts';
import { privacyKeys, useContactConsent } from '../../api/privacy.js';
import { usePrivacyT } from './privacy-i18n.js';

/**
 * #35.2 The line above the composer while a person may not write to the contact (docs/privacy.md
 * "Consent before the first human reply"): consent required and pending, or refused. The server refuses
 * the send either way (409 ERR_CONSENT_*); this says why before anyone types. Read again whenever the
 * ticket moves (a customer's answer updates it through the socket).
 */
export function ConsentReplyLine({
  ticket,
}: {
  ticket: Pick<TicketView, 'contactId' | 'isGroup' | 'updatedAt' | 'lastMessage'>;
}) {
  const { t } = usePrivacyT();
  const client = useQueryClient();
  const enabled = !ticket.isGroup && ticket.contactId > 0;
  const consent = useContactConsent(ticket.contactId, enabled);
  useEffect(() => {
    if (enabled) void client.invalidateQueries({ queryKey: privacyKeys.consent(ticket.contactId) });
  }, [client, enabled, ticket.contactId, ticket.updatedAt, ticket.lastMessage]);
  const block = consent.data?.replyBlocked;
  if (!enabled || !block) return null;
  return (
    <Box
      role="status"
      data-testid="consent-reply-line"
      data-block={block}
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 0.75,
        px: 2,
        py: 0.75,
        borderTop: 1,
        borderColor: 'divider',
        color: 'warning.main',
        bgcolor: 'rgba(237, 108, 2, 0.08)',
      }}
    >
      <GppMaybeOutlinedIcon sx={{ fontSize: 18, flexShrink: 0 }} />
      <Box sx={{ minWidth: 0 }}>
        <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
          {t(`replyBlock.${block}`)}
        </Typography>
        <Typography
          variant="caption"
          color="text.secondary"
          sx={{ display: 'block', overflowWrap: 'anywhere' }}
        >
          {t(`replyBlock.${block}Hint`)}
        </Typography>
      </Box>
    </Box>
  );
}
