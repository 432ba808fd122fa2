import { useRef, useState, type ChangeEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import {
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
  type ButtonProps,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ContactPhoneIcon from '@mui/icons-material/ContactPhone';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import FileUploadIcon from '@mui/icons-material/FileUpload';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import MergeIcon from '@mui/icons-material/MergeType';
import PeopleAltOutlinedIcon from '@mui/icons-material/PeopleAltOutlined';
import { useTranslation } from 'react-i18next';
import { can, formatNumber, type ContactUploadResult, type ContactView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import {
  fetchContactsCsv,
  useContactsList,
  useContactsRealtime,
  useDeleteContact,
  useImportContacts,
  useUploadContacts,
} from '../../api/contacts.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { ContactAvatar } from '../../components/ContactAvatar.js';
import { ContactDialog } from './ContactDialog.js';
import { UploadReportDialog } from './UploadReportDialog.js';
import { MergeDialog } from './merge/MergeDialog.js';
import { DuplicatesDialog } from './merge/DuplicatesDialog.js';
import { useMergeT } from './merge/merge-i18n.js';
import { SpreadsheetError, csvHasRows, downloadText, readSpreadsheet } from './contact-files.js';
import { OptedOutChip } from '../privacy/OptedOutChip.js';
import { CustomFieldFilter, type CustomFieldFilterValue } from '../custom-fields/CustomFieldFilter.js';

const EXPORT_FILE_NAME = 'contatos.csv';

/** Header buttons: icon and text, only the icon on phones (the text stays as the accessible name). */
function ToolButton({
  label,
  icon,
  ...rest
}: { label: string; icon: ReactNode } & Omit<ButtonProps, 'children'>) {
  return (
    <Button
      aria-label={label}
      startIcon={icon}
      sx={{ minWidth: 0, '& .MuiButton-startIcon': { mr: { xs: 0, sm: 1 }, ml: { xs: 0, sm: -0.5 } } }}
      {...rest}
    >
      <Box component="span" sx={{ display: { xs: 'none', sm: 'inline' } }}>
        {label}
      </Box>
    </Button>
  );
}

/** Contacts of the company (docs/product.md#screens): search, infinite scroll, add/edit, import, export, delete, start a ticket. */
export default function ContactsPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const canDelete = can(me, 'contacts-page:deleteContact');
  // The command bar opens a contact by its number (?search=).
  const [search, setSearch] = useState(() => new URLSearchParams(window.location.search).get('search') ?? '');
  const debouncedSearch = useDebouncedValue(search, 500);
  // #32.7 The custom-field filter (one field and value).
  const [cfFilter, setCfFilter] = useState<CustomFieldFilterValue | null>(null);
  const list = useContactsList(debouncedSearch, cfFilter);
  useContactsRealtime();
  const remove = useDeleteContact();
  const importBook = useImportContacts();
  const upload = useUploadContacts();

  /** undefined: closed; null: a new contact; else the contact being edited. */
  const [editing, setEditing] = useState<ContactView | null | undefined>(undefined);
  const [dialogSession, setDialogSession] = useState(0);
  const [deleting, setDeleting] = useState<ContactView | null>(null);
  // #32.8 Merge into a contact, and the duplicate suggestions.
  const { t: tm } = useMergeT();
  const [merging, setMerging] = useState<ContactView | null>(null);
  const [duplicatesOpen, setDuplicatesOpen] = useState(false);
  const [importMenu, setImportMenu] = useState<HTMLElement | null>(null);
  const [confirmImport, setConfirmImport] = useState(false);
  const [report, setReport] = useState<ContactUploadResult | null>(null);
  const [reading, setReading] = useState(false);
  const [exporting, setExporting] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const openDialog = (contact: ContactView | null) => {
    setDialogSession((n) => n + 1);
    setEditing(contact);
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('contacts.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const runImport = async () => {
    try {
      const result = await importBook.mutateAsync();
      if (result.unsupported) toast.info('contacts.importUnsupported');
      else toast.success('contacts.importDone', { imported: result.imported, skipped: result.skipped });
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setReading(true);
    try {
      const rows = await readSpreadsheet(file);
      setReport(await upload.mutateAsync(rows));
    } catch (err) {
      if (err instanceof SpreadsheetError) toast.warning(`contacts.${err.code}`);
      else toast.error(err);
    } finally {
      setReading(false);
    }
  };

  // #32.6 The server builds the file (same search and filter as the list) and records the export.
  const exportCsv = async () => {
    setExporting(true);
    try {
      const csv = await fetchContactsCsv(debouncedSearch, cfFilter);
      if (!csvHasRows(csv)) {
        toast.info('contacts.exportEmpty');
        return;
      }
      // fetch's text() drops the BOM; put it back so spreadsheets read the accents as UTF-8.
      downloadText(`\uFEFF${csv.replace(/^\uFEFF/, '')}`, EXPORT_FILE_NAME);
    } catch (err) {
      toast.error(err);
    } finally {
      setExporting(false);
    }
  };

  // POST /tickets arrives with the tickets module; until then the tickets screen receives the contact.
  const startTicket = (c: ContactView) => navigate('/tickets', { state: { contactId: c.id } });

  const busyUpload = reading || upload.isPending;
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('contacts.title')}>
        <SearchField value={search} onChange={setSearch} placeholder={t('contacts.searchPlaceholder')} />
        <CustomFieldFilter entity="contact" value={cfFilter} onChange={setCfFilter} />
        <ToolButton
          variant="outlined"
          label={t(busyUpload ? 'contacts.uploading' : 'contacts.import')}
          icon={busyUpload ? <CircularProgress size={16} color="inherit" /> : <FileUploadIcon />}
          disabled={busyUpload}
          onClick={(e) => setImportMenu(e.currentTarget)}
          aria-haspopup="menu"
        />
        <ToolButton
          variant="outlined"
          label={t(exporting ? 'contacts.exporting' : 'contacts.export')}
          icon={exporting ? <CircularProgress size={16} color="inherit" /> : <FileDownloadIcon />}
          disabled={exporting}
          onClick={() => void exportCsv()}
        />
        <ToolButton
          variant="outlined"
          label={tm('duplicates')}
          icon={<PeopleAltOutlinedIcon />}
          onClick={() => setDuplicatesOpen(true)}
          data-testid="contacts-duplicates"
        />
        <ToolButton
          variant="contained"
          label={t('contacts.add')}
          icon={<AddIcon />}
          onClick={() => openDialog(null)}
        />
      </PageHeader>

      <Menu anchorEl={importMenu} open={importMenu !== null} onClose={() => setImportMenu(null)}>
        <MenuItem
          onClick={() => {
            setImportMenu(null);
            setConfirmImport(true);
          }}
        >
          <ListItemIcon>
            <ContactPhoneIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText
            primary={t('contacts.importFromConnection')}
            secondary={t('contacts.importFromConnectionHint')}
          />
        </MenuItem>
        <MenuItem
          onClick={() => {
            setImportMenu(null);
            fileInput.current?.click();
          }}
        >
          <ListItemIcon>
            <UploadFileIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('contacts.importFromFile')} secondary={t('contacts.importFromFileHint')} />
        </MenuItem>
      </Menu>
      <input
        ref={fileInput}
        type="file"
        hidden
        accept=".xlsx,.csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,text/csv"
        onChange={(e) => void onFile(e)}
        data-testid="contacts-file"
      />

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 250px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="contacts-list"
        >
          <Table stickyHeader size="small" aria-label={t('contacts.title')}>
            <TableHead>
              <TableRow>
                <TableCell sx={{ width: 56, px: { xs: 1, sm: 2 } }} />
                <TableCell>{t('contacts.name')}</TableCell>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                  {t('contacts.number')}
                </TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>
                  {t('contacts.email')}
                </TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((c) => (
                <TableRow key={c.id} hover data-testid="contact-row">
                  <TableCell sx={{ px: { xs: 1, sm: 2 } }}>
                    <ContactAvatar contact={c} size={36} />
                  </TableCell>
                  <TableCell>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                      <Typography variant="body2" sx={{ fontWeight: 500 }}>
                        {c.name}
                      </Typography>
                      {c.isGroup ? (
                        <Chip size="small" variant="outlined" label={t('contacts.group')} />
                      ) : null}
                      <OptedOutChip contactId={c.id} />
                    </Box>
                    {/* Phones have no number column: the number goes under the name. */}
                    <Typography
                      variant="caption"
                      color="text.secondary"
                      sx={{ display: { xs: 'block', sm: 'none' }, whiteSpace: 'nowrap' }}
                    >
                      {c.isGroup ? '' : formatNumber(c.number)}
                    </Typography>
                  </TableCell>
                  <TableCell
                    sx={{ whiteSpace: 'nowrap', display: { xs: 'none', sm: 'table-cell' } }}
                    data-testid="contact-number"
                  >
                    {c.isGroup ? '—' : formatNumber(c.number)}
                  </TableCell>
                  <TableCell sx={{ color: 'text.secondary', display: { xs: 'none', md: 'table-cell' } }}>
                    {c.email}
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap', px: { xs: 0.5, sm: 2 } }}>
                    <Tooltip title={t('contacts.startTicket')}>
                      <IconButton
                        size="small"
                        aria-label={t('contacts.startTicket')}
                        onClick={() => startTicket(c)}
                        sx={{ color: 'success.main' }}
                      >
                        <WhatsAppIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" aria-label={t('common.edit')} onClick={() => openDialog(c)}>
                        <EditOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    {c.isGroup ? null : (
                      <Tooltip title={tm('merge')}>
                        <IconButton size="small" aria-label={tm('merge')} onClick={() => setMerging(c)}>
                          <MergeIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                    {canDelete ? (
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(c)}
                        >
                          <DeleteOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={5}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>

      <ContactDialog
        key={dialogSession}
        open={editing !== undefined}
        contact={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('contacts.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('contacts.deleteMessage')}
      </ConfirmationDialog>
      <ConfirmationDialog
        open={confirmImport}
        title={t('contacts.importTitle')}
        onClose={() => setConfirmImport(false)}
        onConfirm={runImport}
        confirmLabel={t('contacts.importConfirm')}
        danger={false}
      >
        {t('contacts.importMessage')}
      </ConfirmationDialog>
      <UploadReportDialog report={report} onClose={() => setReport(null)} />
      <MergeDialog key={merging?.id ?? 0} survivor={merging} onClose={() => setMerging(null)} />
      <DuplicatesDialog open={duplicatesOpen} onClose={() => setDuplicatesOpen(false)} />
    </Box>
  );
}
