import { Box, CircularProgress, Stack, Typography } from '@mui/material';
import CampaignOutlinedIcon from '@mui/icons-material/CampaignOutlined';
import { useTranslation } from 'react-i18next';
import type { Announcement } from '@recado/contracts';
import { useAuth } from '../app/auth.js';
import { announcementMediaUrl, useAnnouncementFeed } from '../api/announcements.js';
import { useMediaUrl } from '../api/messages.js';
import { priorityColor } from '../pages/announcements/announcement-ui.js';
import { PopoverEmpty, TopBarPopover } from './TopBarPopover.js';
import { WhatsAppText } from '../components/WhatsAppText.js';

function AnnouncementImage({ announcement }: { announcement: Announcement }) {
  const { src } = useMediaUrl(announcementMediaUrl(announcement));
  if (!announcement.mediaPath) return null;
  return (
    <Box
      sx={{
        mt: 1,
        borderRadius: 1.5,
        overflow: 'hidden',
        bgcolor: 'action.hover',
        minHeight: src ? 0 : 80,
        display: 'grid',
        placeItems: 'center',
      }}
    >
      {src ? (
        <Box
          component="img"
          src={src}
          alt={announcement.mediaName ?? ''}
          data-testid="announcement-image"
          sx={{ display: 'block', width: '100%', maxHeight: 220, objectFit: 'contain' }}
        />
      ) : (
        <CircularProgress size={20} />
      )}
    </Box>
  );
}

function AnnouncementCard({ announcement }: { announcement: Announcement }) {
  const { t, i18n } = useTranslation();
  return (
    <Box
      data-testid="announcement-card"
      data-priority={announcement.priority}
      sx={(theme) => ({
        border: 1,
        borderLeftWidth: 4,
        borderColor: priorityColor(announcement.priority, theme),
        borderRadius: 2,
        p: 1.5,
      })}
    >
      <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
        <Typography
          variant="subtitle2"
          sx={{ fontWeight: 700, flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}
        >
          {announcement.title}
        </Typography>
        <Typography variant="caption" color="text.secondary" sx={{ flexShrink: 0 }}>
          {new Date(announcement.createdAt).toLocaleDateString(i18n.language)}
        </Typography>
      </Box>
      <Typography
        variant="caption"
        sx={(theme) => ({
          color: announcement.priority === 3 ? 'text.secondary' : priorityColor(announcement.priority, theme),
          fontWeight: 600,
        })}
      >
        {t(`announcements.priorities.${announcement.priority}`)}
      </Typography>
      <Typography variant="body2" sx={{ mt: 0.5, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        <WhatsAppText text={announcement.text} links />
      </Typography>
      <AnnouncementImage announcement={announcement} />
    </Box>
  );
}

/**
 * Platform announcements (docs/push.md): the active ones by priority with their border colours
 * and images; the dot shows while the user has some they have not opened, and goes once the popover opens.
 */
export function AnnouncementsPopover() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { records, unseen, loading, markSeen } = useAnnouncementFeed(Boolean(user));
  const label = t('layout.announcements');
  return (
    <TopBarPopover
      label={label}
      buttonLabel={unseen ? t('layout.announcementsPanel.button', { count: unseen }) : label}
      testId="announcements-button"
      dot={unseen > 0}
      onOpen={markSeen}
      width={380}
      icon={<CampaignOutlinedIcon fontSize="small" />}
      emptyIcon={<CampaignOutlinedIcon fontSize="inherit" />}
      emptyText={t('layout.noAnnouncements')}
    >
      <Box data-testid="announcements-panel">
        {loading ? (
          <Box sx={{ display: 'grid', placeItems: 'center', py: 4 }}>
            <CircularProgress size={24} aria-label={t('common.loading')} />
          </Box>
        ) : records.length === 0 ? (
          <PopoverEmpty
            icon={<CampaignOutlinedIcon fontSize="inherit" />}
            text={t('layout.noAnnouncements')}
          />
        ) : (
          <Stack
            spacing={1.25}
            sx={{ p: 1.5, maxHeight: 480, overflow: 'auto' }}
            data-testid="announcements-feed"
          >
            {records.map((a) => (
              <AnnouncementCard key={a.id} announcement={a} />
            ))}
          </Stack>
        )}
      </Box>
    </TopBarPopover>
  );
}
