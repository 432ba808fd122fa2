import { Chip, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, type FileList } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { fileListResource } from '../../api/files.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { FileListDialog } from './FileListDialog.js';

/** File lists (docs/campaigns.md): search, infinite scroll, add/edit with options, delete. */
export default function FilesPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const columns: ResourceColumn<FileList>[] = [
    {
      header: t('files.name'),
      cell: (f) => (
        <>
          <Typography variant="body2" sx={{ fontWeight: 500 }}>
            {f.name}
          </Typography>
          <Typography variant="caption" color="text.secondary" noWrap component="div" sx={{ maxWidth: 420 }}>
            {f.message}
          </Typography>
        </>
      ),
    },
    {
      header: t('files.options'),
      headSx: FROM_MD,
      cell: (f) => (
        <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
          {f.options.map((o) => (
            <Chip
              key={o.id}
              size="small"
              variant="outlined"
              color={o.path ? 'primary' : 'default'}
              label={o.name}
            />
          ))}
        </Stack>
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={fileListResource}
      i18n="files"
      columns={columns}
      testIds={{ list: 'file-lists', row: 'file-list-row', add: 'file-list-add' }}
      canManage={manage}
      deleteTitle={{ value: (f) => f.name }}
      renderDialog={(d) => <FileListDialog open={d.open} list={d.record} onClose={d.onClose} />}
    />
  );
}
