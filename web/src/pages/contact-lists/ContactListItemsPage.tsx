import { useRef, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import {
  Box,
  Button,
  CircularProgress,
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
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CheckCircleOutlinedIcon from '@mui/icons-material/CheckCircleOutlined';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import HighlightOffIcon from '@mui/icons-material/HighlightOff';
import UploadFileOutlinedIcon from '@mui/icons-material/UploadFileOutlined';
import { useTranslation } from 'react-i18next';
import {
  CONTACT_LIST_UPLOAD_EXTENSIONS,
  MAX_CONTACT_LIST_UPLOAD_BYTES,
  can,
  formatNumber,
  type ContactListItemView,
  type ContactListUploadResult,
} from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import {
  useContactList,
  useContactListItems,
  useContactListItemsRealtime,
  useContactListsRealtime,
  useDeleteContactListItem,
  useUploadContactList,
} from '../../api/contact-lists.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { ContactListItemDialog } from './ContactListItemDialog.js';
import { ListUploadReportDialog } from './ListUploadReportDialog.js';

/** isWhatsappValid: true, false, or null while no connection could check the number. */
function WhatsappStatus({ valid }: { valid: boolean | null }) {
  const { t } = useTranslation();
  const [label, icon, color] =
    valid === true
      ? [t('contactLists.valid'), <CheckCircleOutlinedIcon key="v" fontSize="small" />, 'success.main']
      : valid === false
        ? [t('contactLists.invalid'), <HighlightOffIcon key="i" fontSize="small" />, 'error.main']
        : [t('contactLists.unchecked'), <HelpOutlineIcon key="u" fontSize="small" />, 'text.disabled'];
  return (
    <Tooltip title={label}>
      <Box
        component="span"
        role="img"
        aria-label={label}
        data-valid={String(valid)}
        sx={{ color, display: 'inline-flex', verticalAlign: 'middle' }}
      >
        {icon}
      </Box>
    </Tooltip>
  );
}

/** The items of one contact list (docs/campaigns.md): search, import .xls/.xlsx, add/edit, delete, back. */
export default function ContactListItemsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const listId = Number(useParams().contactListId) || 0;
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const canDelete = can(user, 'contacts-page:deleteContact') || Boolean(user?.super);
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const contactList = useContactList(listId);
  const items = useContactListItems(listId, debounced);
  useContactListItemsRealtime(listId);
  useContactListsRealtime();
  const remove = useDeleteContactListItem();
  const upload = useUploadContactList(listId);
  const fileInput = useRef<HTMLInputElement>(null);
  const [editing, setEditing] = useState<ContactListItemView | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<ContactListItemView | null>(null);
  const [report, setReport] = useState<ContactListUploadResult | null>(null);

  const onFile = async (file: File | undefined) => {
    if (fileInput.current) fileInput.current.value = '';
    if (!file) return;
    const lower = file.name.toLowerCase();
    if (!CONTACT_LIST_UPLOAD_EXTENSIONS.some((ext) => lower.endsWith(ext)))
      return void toast.warning('contactLists.onlySpreadsheets');
    if (file.size > MAX_CONTACT_LIST_UPLOAD_BYTES) return void toast.warning('contactLists.fileTooLarge');
    try {
      setReport(await upload.mutateAsync(file));
    } catch (err) {
      toast.error(err);
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting);
      toast.success('contactLists.itemDeleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const columns = 5;
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader
        title={
          <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
            <Tooltip title={t('contactLists.back')}>
              <IconButton
                component={RouterLink}
                to="/contact-lists"
                aria-label={t('contactLists.back')}
                size="small"
              >
                <ArrowBackIcon />
              </IconButton>
            </Tooltip>
            <span data-testid="contact-list-title">
              {contactList.data?.name ?? t('contactLists.itemsTitle')}
            </span>
          </Box>
        }
        count={contactList.data?.contactsCount}
      >
        <SearchField value={search} onChange={setSearch} />
        {manage ? (
          <>
            <input
              ref={fileInput}
              type="file"
              hidden
              accept={`${CONTACT_LIST_UPLOAD_EXTENSIONS.join(',')},application/vnd.ms-excel,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`}
              onChange={(e) => void onFile(e.target.files?.[0])}
              data-testid="contact-list-upload-input"
            />
            <Button
              variant="outlined"
              startIcon={upload.isPending ? <CircularProgress size={16} /> : <UploadFileOutlinedIcon />}
              disabled={upload.isPending}
              onClick={() => fileInput.current?.click()}
            >
              {t('contactLists.import')}
            </Button>
            <Button
              variant="contained"
              startIcon={<AddIcon />}
              onClick={() => setEditing(null)}
              data-testid="contact-list-item-add"
            >
              {t('contactLists.addItem')}
            </Button>
          </>
        ) : null}
      </PageHeader>
      {manage ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: -1 }}>
          {t('contactLists.importHelp')}
        </Typography>
      ) : null}
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={items.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 230px)', sm: 'calc(100dvh - 200px)' } }}
          data-testid="contact-list-items"
        >
          <Table stickyHeader size="small" aria-label={t('contactLists.itemsTitle')}>
            <TableHead>
              <TableRow>
                <TableCell sx={{ width: 56 }} align="center">
                  {t('contactLists.whatsapp')}
                </TableCell>
                <TableCell>{t('contactLists.name')}</TableCell>
                <TableCell>{t('contactLists.number')}</TableCell>
                <TableCell>{t('contactLists.email')}</TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {items.items.map((i) => (
                <TableRow key={i.id} hover data-testid="contact-list-item-row">
                  <TableCell align="center">
                    <WhatsappStatus valid={i.isWhatsappValid} />
                  </TableCell>
                  <TableCell sx={{ fontWeight: 500 }}>{i.name}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatNumber(i.number)}</TableCell>
                  <TableCell sx={{ color: 'text.secondary' }}>{i.email || '—'}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {manage ? (
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(i)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    ) : null}
                    {canDelete ? (
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(i)}
                        >
                          <DeleteOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={columns}
                loading={items.isLoading || items.isFetchingNextPage}
                empty={!items.isLoading && items.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={items.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>
      {manage ? (
        <ContactListItemDialog
          open={editing !== undefined}
          listId={listId}
          item={editing ?? null}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ListUploadReportDialog report={report} onClose={() => setReport(null)} />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('contactLists.deleteItemTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('contactLists.deleteItemMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
