import { useState } from 'react';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { useTranslation } from 'react-i18next';
import { can, type FileList } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useDeleteFileList, useFileLists, useFileListsRealtime } from '../../api/files.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { FileListDialog } from './FileListDialog.js';

/** File lists (operations §2): search, infinite scroll, add/edit with options, delete. */
export default function FilesPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const list = useFileLists(debounced);
  useFileListsRealtime();
  const remove = useDeleteFileList();
  const [editing, setEditing] = useState<FileList | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<FileList | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('files.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('files.title')}>
        <SearchField value={search} onChange={setSearch} />
        {manage ? (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing(null)}
            data-testid="file-list-add"
          >
            {t('files.add')}
          </Button>
        ) : null}
      </PageHeader>
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="file-lists"
        >
          <Table stickyHeader size="small" aria-label={t('files.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('files.name')}</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>{t('files.options')}</TableCell>
                {manage ? <TableCell align="right">{t('common.actions')}</TableCell> : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((f) => (
                <TableRow key={f.id} hover data-testid="file-list-row">
                  <TableCell>
                    <Typography variant="body2" sx={{ fontWeight: 500 }}>
                      {f.name}
                    </Typography>
                    <Typography
                      variant="caption"
                      color="text.secondary"
                      noWrap
                      component="div"
                      sx={{ maxWidth: 420 }}
                    >
                      {f.message}
                    </Typography>
                  </TableCell>
                  <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>
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
                  </TableCell>
                  {manage ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(f)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(f)}
                        >
                          <DeleteOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={manage ? 3 : 2}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>
      {manage ? (
        <FileListDialog
          open={editing !== undefined}
          list={editing ?? null}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t('files.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('files.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
