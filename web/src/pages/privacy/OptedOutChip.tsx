import { Chip, Tooltip } from '@mui/material';
import { useOptedOut } from '../../api/privacy.js';
import { usePrivacyT } from './privacy-i18n.js';

/** #35 "Opted out" beside a contact's name (contact list, ticket header): left out of campaigns. */
export function OptedOutChip({ contactId }: { contactId: number }) {
  const { t } = usePrivacyT();
  const optedOut = useOptedOut();
  if (!optedOut?.has(contactId)) return null;
  return (
    <Tooltip title={t('optedOutHint')}>
      <Chip
        size="small"
        color="warning"
        variant="outlined"
        label={t('optedOut')}
        data-testid="opted-out-chip"
        sx={{ height: 20, fontSize: 11, flexShrink: 0 }}
      />
    </Tooltip>
  );
}
