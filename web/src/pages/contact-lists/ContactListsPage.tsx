import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Link,
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
import PeopleOutlinedIcon from '@mui/icons-material/PeopleOutlined';
import { useTranslation } from 'react-i18next';
import { can, type ContactList } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useContactLists, useContactListsRealtime, useDeleteContactList } from '../../api/contact-lists.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { ContactListDialog } from './ContactListDialog.js';

/** Contact lists (operations §2): search, infinite scroll, add/rename, delete, open a list's items. */
export default function ContactListsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const list = useContactLists(debounced);
  useContactListsRealtime();
  const remove = useDeleteContactList();
  const [editing, setEditing] = useState<ContactList | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<ContactList | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('contactLists.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('contactLists.title')}>
        <SearchField value={search} onChange={setSearch} />
        {manage ? (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing(null)}
            data-testid="contact-list-add"
          >
            {t('contactLists.add')}
          </Button>
        ) : null}
      </PageHeader>
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="contact-lists"
        >
          <Table stickyHeader size="small" aria-label={t('contactLists.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('contactLists.name')}</TableCell>
                <TableCell align="center" sx={{ width: 140 }}>
                  {t('contactLists.contactsCount')}
                </TableCell>
                <TableCell align="right" sx={{ width: 150 }}>
                  {t('common.actions')}
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((l) => (
                <TableRow key={l.id} hover data-testid="contact-list-row">
                  <TableCell>
                    <Link
                      component={RouterLink}
                      to={`/contact-lists/${l.id}/contacts`}
                      underline="hover"
                      color="text.primary"
                      sx={{ fontWeight: 500 }}
                    >
                      {l.name}
                    </Link>
                  </TableCell>
                  <TableCell align="center">
                    <Chip
                      size="small"
                      variant="outlined"
                      label={l.contactsCount}
                      data-testid="contacts-count"
                    />
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('contactLists.openItems')}>
                      <IconButton
                        size="small"
                        component={RouterLink}
                        to={`/contact-lists/${l.id}/contacts`}
                        aria-label={t('contactLists.openItems')}
                      >
                        <PeopleOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    {manage ? (
                      <>
                        <Tooltip title={t('common.edit')}>
                          <IconButton
                            size="small"
                            aria-label={t('common.edit')}
                            onClick={() => setEditing(l)}
                          >
                            <EditOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                        <Tooltip title={t('common.delete')}>
                          <IconButton
                            size="small"
                            aria-label={t('common.delete')}
                            onClick={() => setDeleting(l)}
                          >
                            <DeleteOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      </>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={3}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>
      {manage ? (
        <ContactListDialog
          open={editing !== undefined}
          list={editing ?? null}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t('contactLists.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('contactLists.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
