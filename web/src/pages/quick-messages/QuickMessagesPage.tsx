import { Box, Chip, Tooltip, Typography } from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import GroupsOutlinedIcon from '@mui/icons-material/GroupsOutlined';
import PersonOutlineIcon from '@mui/icons-material/PersonOutlined';
import { useTranslation } from 'react-i18next';
import type { QuickMessage } from '@recado/contracts';
import { quickMessageResource } from '../../api/quick-messages.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { QuickMessageDialog } from './QuickMessageDialog.js';

/** Quick messages (docs/team-tools.md): searchable list, add/edit dialog with an attachment, delete. */
export default function QuickMessagesPage() {
  const { t } = useTranslation();
  const columns: ResourceColumn<QuickMessage>[] = [
    {
      header: t('quickMessages.shortcode'),
      sx: { whiteSpace: 'nowrap' },
      cell: (q) => (
        <>
          <Typography
            variant="body2"
            sx={{ fontWeight: 600, fontFamily: 'monospace', opacity: q.status ? 1 : 0.55 }}
          >
            /{q.shortcode}
          </Typography>
          {!q.status ? <Chip size="small" label={t('quickMessages.inactive')} sx={{ mt: 0.5 }} /> : null}
        </>
      ),
    },
    {
      header: t('quickMessages.message'),
      sx: { maxWidth: 480 },
      cell: (q) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          {q.isMedia ? (
            <Tooltip title={q.mediaName ?? ''}>
              <AttachFileIcon fontSize="small" color="action" aria-label={t('quickMessages.hasMedia')} />
            </Tooltip>
          ) : null}
          <Typography variant="body2" color="text.secondary" noWrap title={q.message}>
            {q.message}
          </Typography>
        </Box>
      ),
    },
    {
      header: t('quickMessages.visibility'),
      headSx: FROM_MD,
      sx: { ...FROM_MD, whiteSpace: 'nowrap' },
      cell: (q) => (
        <>
          <Chip
            size="small"
            variant="outlined"
            icon={q.geral ? <GroupsOutlinedIcon /> : <PersonOutlineIcon />}
            label={t(q.geral ? 'quickMessages.everyone' : 'quickMessages.onlyMe')}
          />
          {q.geral && q.user ? (
            <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
              {q.user.name}
            </Typography>
          ) : null}
        </>
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={quickMessageResource}
      i18n="quickMessages"
      columns={columns}
      testIds={{ list: 'quick-messages-list', row: 'quick-message-row' }}
      xsMaxHeight="calc(100dvh - 250px)"
      canEditRow={(q) => Boolean(q.canEdit)}
      readOnly={
        <Typography variant="caption" color="text.disabled">
          {t('quickMessages.readOnly')}
        </Typography>
      }
      deleteTitle={{ key: 'shortcode', value: (q) => q.shortcode }}
      renderDialog={(d) => <QuickMessageDialog open={d.open} record={d.record} onClose={d.onClose} />}
    />
  );
}
