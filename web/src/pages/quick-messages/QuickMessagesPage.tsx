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
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import GroupsOutlinedIcon from '@mui/icons-material/GroupsOutlined';
import PersonOutlineIcon from '@mui/icons-material/PersonOutlined';
import { useTranslation } from 'react-i18next';
import type { QuickMessage } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import {
  useDeleteQuickMessage,
  useQuickMessageList,
  useQuickMessagesRealtime,
} from '../../api/quick-messages.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { QuickMessageDialog } from './QuickMessageDialog.js';

/** Quick messages (operations §2): searchable list, add/edit dialog with an attachment, delete. */
export default function QuickMessagesPage() {
  const { t } = useTranslation();
  const toast = useToast();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const list = useQuickMessageList(debounced);
  useQuickMessagesRealtime();
  const remove = useDeleteQuickMessage();
  /** undefined: closed; null: new. */
  const [editing, setEditing] = useState<QuickMessage | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<QuickMessage | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('quickMessages.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('quickMessages.title')}>
        <SearchField value={search} onChange={setSearch} />
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing(null)}>
          {t('quickMessages.add')}
        </Button>
      </PageHeader>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 250px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="quick-messages-list"
        >
          <Table stickyHeader size="small" aria-label={t('quickMessages.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('quickMessages.shortcode')}</TableCell>
                <TableCell>{t('quickMessages.message')}</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>
                  {t('quickMessages.visibility')}
                </TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((q) => (
                <TableRow key={q.id} hover data-testid="quick-message-row">
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>
                    <Typography
                      variant="body2"
                      sx={{ fontWeight: 600, fontFamily: 'monospace', opacity: q.status ? 1 : 0.55 }}
                    >
                      /{q.shortcode}
                    </Typography>
                    {!q.status ? (
                      <Chip size="small" label={t('quickMessages.inactive')} sx={{ mt: 0.5 }} />
                    ) : null}
                  </TableCell>
                  <TableCell sx={{ maxWidth: 480 }}>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                      {q.isMedia ? (
                        <Tooltip title={q.mediaName ?? ''}>
                          <AttachFileIcon
                            fontSize="small"
                            color="action"
                            aria-label={t('quickMessages.hasMedia')}
                          />
                        </Tooltip>
                      ) : null}
                      <Typography variant="body2" color="text.secondary" noWrap title={q.message}>
                        {q.message}
                      </Typography>
                    </Box>
                  </TableCell>
                  <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>
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
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {q.canEdit ? (
                      <>
                        <Tooltip title={t('common.edit')}>
                          <IconButton
                            size="small"
                            aria-label={t('common.edit')}
                            onClick={() => setEditing(q)}
                          >
                            <EditOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                        <Tooltip title={t('common.delete')}>
                          <IconButton
                            size="small"
                            aria-label={t('common.delete')}
                            onClick={() => setDeleting(q)}
                          >
                            <DeleteOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      </>
                    ) : (
                      <Typography variant="caption" color="text.disabled">
                        {t('quickMessages.readOnly')}
                      </Typography>
                    )}
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

      <QuickMessageDialog
        open={editing !== undefined}
        record={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('quickMessages.deleteTitle', { shortcode: deleting?.shortcode ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('quickMessages.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
