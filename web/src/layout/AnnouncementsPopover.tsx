import CampaignOutlinedIcon from '@mui/icons-material/CampaignOutlined';
import { useTranslation } from 'react-i18next';
import { TopBarPopover } from './TopBarPopover.js';

/** Platform announcements; the list (and its unread dot, cleared on opening) arrives with that module. */
export function AnnouncementsPopover() {
  const { t } = useTranslation();
  return (
    <TopBarPopover
      label={t('layout.announcements')}
      testId="announcements-button"
      icon={<CampaignOutlinedIcon fontSize="small" />}
      emptyIcon={<CampaignOutlinedIcon fontSize="inherit" />}
      emptyText={t('layout.noAnnouncements')}
    />
  );
}
