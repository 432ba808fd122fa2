import { useState } from 'react';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import ViewKanbanOutlinedIcon from '@mui/icons-material/ViewKanbanOutlined';
import { useTranslation } from 'react-i18next';
import type { Tag } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useDeleteTag, useTagsList, useTagsRealtime } from '../../api/tags.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { TagChip } from './TagChip.js';
import { TagDialog } from './TagDialog.js';

/** Tags (operations §2): search, infinite scroll, add/edit dialog, delete confirmation; live. */
export default function TagsPage() {
  const { t } = useTranslation();
  const toast = useToast();
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search, 500);
  const list = useTagsList(debouncedSearch);
  useTagsRealtime();
  const remove = useDeleteTag();
  /** undefined: closed; null: a new tag; else the tag being edited. */
  const [editing, setEditing] = useState<Tag | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Tag | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('tags.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('tags.title')}>
        <SearchField value={search} onChange={setSearch} />
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          onClick={() => setEditing(null)}
          data-testid="tag-add"
        >
          {t('tags.add')}
        </Button>
      </PageHeader>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="tags-list"
        >
          <Table stickyHeader size="small" aria-label={t('tags.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('tags.columns.name')}</TableCell>
                <TableCell align="center" sx={{ width: 120 }}>
                  {t('tags.columns.kanban')}
                </TableCell>
                <TableCell align="center" sx={{ width: 130 }}>
                  {t('tags.columns.tickets')}
                </TableCell>
                <TableCell align="right" sx={{ width: 110 }}>
                  {t('common.actions')}
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((tag) => (
                <TableRow
                  key={tag.id}
                  hover
                  data-testid="tag-row"
                  data-name={tag.name}
                  data-kanban={tag.kanban}
                >
                  <TableCell>
                    <TagChip
                      name={tag.name}
                      color={tag.color}
                      data-testid="tag-chip"
                      data-color={tag.color}
                    />
                  </TableCell>
                  <TableCell align="center">
                    {tag.kanban ? (
                      <Chip
                        size="small"
                        variant="outlined"
                        color="primary"
                        icon={<ViewKanbanOutlinedIcon />}
                        label={t('tags.lane')}
                        data-testid="tag-kanban"
                      />
                    ) : (
                      <Box component="span" sx={{ color: 'text.disabled' }}>
                        —
                      </Box>
                    )}
                  </TableCell>
                  <TableCell align="center" data-testid="tag-count">
                    {tag.ticketsCount}
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(tag)}>
                        <EditOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.delete')}>
                      <IconButton
                        size="small"
                        aria-label={t('common.delete')}
                        onClick={() => setDeleting(tag)}
                      >
                        <DeleteOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={4}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>

      <TagDialog open={editing !== undefined} tag={editing ?? null} onClose={() => setEditing(undefined)} />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('tags.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('tags.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
