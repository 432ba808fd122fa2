import { Box, Chip, Tooltip, Typography } from '@mui/material';
import ImageOutlinedIcon from '@mui/icons-material/ImageOutlined';
import { useTranslation } from 'react-i18next';
import type { Announcement } from '@recado/contracts';
import { announcementResource } from '../../api/announcements.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { AnnouncementDialog } from './AnnouncementDialog.js';
import { PriorityChip } from './announcement-ui.js';

/** Announcements (docs/push.md; super users only): title count, search, table, add/edit dialog with an image. */
export default function AnnouncementsPage() {
  const { t } = useTranslation();
  const columns: ResourceColumn<Announcement>[] = [
    {
      header: t('announcements.titleField'),
      cell: (a) => (
        <Box sx={{ maxWidth: { xs: 130, sm: 240, md: 420 } }}>
          <Typography variant="body2" sx={{ fontWeight: 600 }} noWrap title={a.title}>
            {a.title}
          </Typography>
          <Typography variant="caption" color="text.secondary" noWrap component="div" title={a.text}>
            {a.text}
          </Typography>
        </Box>
      ),
    },
    {
      header: t('announcements.priority'),
      align: 'center',
      headSx: { width: { md: 130 } },
      sx: { whiteSpace: 'nowrap', px: { xs: 0.5, md: 2 } },
      cell: (a) => <PriorityChip priority={a.priority} />,
    },
    {
      header: t('announcements.mediaName'),
      headSx: FROM_MD,
      sx: { ...FROM_MD, maxWidth: 220 },
      cell: (a) =>
        a.mediaName ? (
          <Tooltip title={a.mediaName}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75, minWidth: 0 }}>
              <ImageOutlinedIcon fontSize="small" color="action" />
              <Typography variant="body2" noWrap>
                {a.mediaName}
              </Typography>
            </Box>
          </Tooltip>
        ) : (
          <Typography variant="body2" color="text.disabled">
            —
          </Typography>
        ),
    },
    {
      header: t('announcements.status'),
      align: 'center',
      headSx: { width: { md: 110 } },
      sx: { px: { xs: 0.5, md: 2 } },
      cell: (a) => (
        <Chip
          size="small"
          color={a.status ? 'success' : 'default'}
          variant={a.status ? 'filled' : 'outlined'}
          label={t(a.status ? 'announcements.active' : 'announcements.inactive')}
        />
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={announcementResource}
      i18n="announcements"
      columns={columns}
      showCount
      testIds={{ list: 'announcements-list', row: 'announcement-row', add: 'announcement-add' }}
      rowProps={(a) => ({ 'data-id': a.id })}
      xsMaxHeight="calc(100dvh - 250px)"
      deleteTitle={{ value: (a) => a.title }}
      renderDialog={(d) => <AnnouncementDialog open={d.open} record={d.record} onClose={d.onClose} />}
    />
  );
}
