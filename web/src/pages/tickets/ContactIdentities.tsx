import { Box, Typography } from '@mui/material';
import EmailOutlinedIcon from '@mui/icons-material/EmailOutlined';
import { useTranslation } from 'react-i18next';
import type { ContactIdentity } from '@recado/contracts';
import { ChannelIcon } from '../connections/ConnectionStatus.js';

/**
 * #34 A contact's identities on channels without phone numbers (Telegram chat id, Instagram/Messenger id, web
 * chat visitor, e-mail): the channel's icon and the value, one a line.
 */
export function ContactIdentities({ identities }: { identities: ContactIdentity[] }) {
  const { t } = useTranslation();
  return (
    <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0 }} data-testid="contact-identities">
      {identities.map((i) => (
        <Box
          component="li"
          key={`${i.kind}:${i.value}`}
          sx={{ display: 'flex', alignItems: 'center', gap: 1, py: 0.5, minWidth: 0 }}
          data-kind={i.kind}
        >
          {i.kind === 'email' ? (
            <EmailOutlinedIcon
              sx={{ fontSize: 18, color: 'text.secondary' }}
              aria-label={t('contacts.email')}
            />
          ) : (
            <ChannelIcon channel={i.kind} size={18} />
          )}
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="caption" color="text.secondary" sx={{ display: 'block', lineHeight: 1.2 }}>
              {i.kind === 'email'
                ? t('contacts.email')
                : t(`connections.channels.${i.kind}`, { defaultValue: i.kind })}
            </Typography>
            <Typography variant="body2" sx={{ overflowWrap: 'anywhere', fontFamily: 'monospace' }}>
              {i.value}
            </Typography>
          </Box>
        </Box>
      ))}
    </Box>
  );
}
