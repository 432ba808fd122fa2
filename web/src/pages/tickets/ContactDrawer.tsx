import { useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Box,
  Button,
  Chip,
  CircularProgress,
  Divider,
  Drawer,
  IconButton,
  Link,
  List,
  ListItem,
  ListItemText,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import EmailOutlinedIcon from '@mui/icons-material/EmailOutlined';
import PhoneOutlinedIcon from '@mui/icons-material/PhoneOutlined';
import { useTranslation } from 'react-i18next';
import { formatNumber, onlyDigits, type ContactView, type TicketView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { contactKeys, fetchContact } from '../../api/contacts.js';
import {
  useAddNote,
  useDeleteNote,
  useTicketHistories,
  useTicketNotes,
  useUserOptions,
  type TicketNote,
} from '../../api/tickets.js';
import { ContactDialog } from '../contacts/ContactDialog.js';
import { ContactIdentities } from './ContactIdentities.js';
import { TicketAvatar, contactLabel } from './TicketList.js';
import { dateTime } from './ticket-format.js';
import { ContactPrivacySection } from '../privacy/ContactPrivacySection.js';

export const DRAWER_WIDTH = 320;
const NOTE_MIN = 2;

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box sx={{ px: 2, py: 1.5 }}>
      <Typography variant="overline" color="text.secondary" sx={{ display: 'block', lineHeight: 2 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

function Notes({ ticket }: { ticket: TicketView }) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const notes = useTicketNotes(ticket.id);
  const add = useAddNote(ticket.id);
  const remove = useDeleteNote(ticket.id);
  const [text, setText] = useState('');
  const [error, setError] = useState(false);
  const [deleting, setDeleting] = useState<TicketNote | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const note = text.trim();
    if (note.length < NOTE_MIN) {
      setError(true);
      return;
    }
    add.mutate(note, {
      onSuccess: () => {
        setText('');
        toast.success('tickets.notes.saved');
      },
      onError: (err) => toast.error(err),
    });
  };

  return (
    <Section title={t('tickets.notes.title')}>
      <Box
        component="form"
        onSubmit={submit}
        noValidate
        sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}
      >
        <TextField
          multiline
          minRows={2}
          maxRows={5}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setError(false);
          }}
          placeholder={t('tickets.notes.placeholder')}
          error={error}
          helperText={error ? t('tickets.notes.tooShort') : undefined}
          slotProps={{
            htmlInput: {
              maxLength: 5000,
              'aria-label': t('tickets.notes.placeholder'),
              'data-testid': 'note-input',
            },
          }}
        />
        <Button
          type="submit"
          variant="contained"
          size="small"
          disabled={add.isPending}
          startIcon={add.isPending ? <CircularProgress size={14} color="inherit" /> : undefined}
          sx={{ alignSelf: 'flex-end' }}
          data-testid="note-save"
        >
          {t('common.save')}
        </Button>
      </Box>
      <List dense disablePadding sx={{ maxHeight: 200, overflow: 'auto', mt: 1 }} data-testid="notes">
        {notes.isLoading ? <CircularProgress size={18} aria-label={t('common.loading')} /> : null}
        {notes.data?.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            {t('tickets.notes.empty')}
          </Typography>
        ) : null}
        {(notes.data ?? []).map((n) => (
          <ListItem
            key={n.id}
            disableGutters
            data-testid="note"
            secondaryAction={
              n.user?.id === user?.id || user?.profile === 'admin' ? (
                <Tooltip title={t('common.delete')}>
                  <IconButton
                    edge="end"
                    size="small"
                    onClick={() => setDeleting(n)}
                    aria-label={t('common.delete')}
                  >
                    <DeleteOutlineIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              ) : null
            }
            sx={{ alignItems: 'flex-start', borderBottom: 1, borderColor: 'divider', pr: 4 }}
          >
            <ListItemText
              primary={n.note}
              secondary={`${n.user?.name ?? ''} · ${dateTime(n.createdAt, i18n.language)}`}
              slotProps={{ primary: { sx: { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } } }}
            />
          </ListItem>
        ))}
      </List>
      <ConfirmationDialog
        open={Boolean(deleting)}
        title={t('tickets.notes.deleteTitle')}
        onClose={() => setDeleting(null)}
        confirmLabel={t('common.delete')}
        onConfirm={async () => {
          try {
            await remove.mutateAsync(deleting!.id);
            toast.success('tickets.notes.deleted');
          } catch (err) {
            toast.error(err);
            throw err;
          }
        }}
      >
        {t('tickets.notes.deleteText')}
      </ConfirmationDialog>
    </Section>
  );
}

const ACTIONS = ['create', 'accept', 'return', 'close', 'reopen', 'transfer', 'update'];

function History({ ticket }: { ticket: TicketView }) {
  const { t, i18n } = useTranslation();
  const histories = useTicketHistories(ticket.id);
  return (
    <Section title={t('tickets.history.title')}>
      {histories.isLoading ? <CircularProgress size={18} aria-label={t('common.loading')} /> : null}
      <List dense disablePadding data-testid="history">
        {(histories.data ?? []).map((h) => (
          <ListItem key={h.id} disableGutters sx={{ display: 'block', py: 0.5 }}>
            <Typography variant="body2" sx={{ fontWeight: 500 }}>
              {t(`tickets.history.${ACTIONS.includes(h.action) ? h.action : 'update'}`)}
              {h.user ? ` · ${h.user.name}` : ''}
            </Typography>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, flexWrap: 'wrap' }}>
              <Typography variant="caption" color="text.secondary">
                {dateTime(h.createdAt, i18n.language)}
                {h.whatsapp ? ` · ${h.whatsapp.name}` : ''}
              </Typography>
              {h.queue ? (
                <Chip
                  size="small"
                  label={h.queue.name}
                  sx={{
                    height: 18,
                    fontSize: 11,
                    bgcolor: h.queue.color || undefined,
                    color: h.queue.color ? '#fff' : undefined,
                  }}
                />
              ) : null}
            </Box>
          </ListItem>
        ))}
      </List>
    </Section>
  );
}

/** The contact drawer of a ticket: contact data, internal notes and the ticket's history. */
export function ContactDrawer({
  ticket,
  open,
  onClose,
}: {
  ticket: TicketView;
  open: boolean;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const contact = ticket.contact;
  const detail = useQuery({
    queryKey: contactKeys.detail(contact.id),
    queryFn: () => fetchContact(contact.id),
    enabled: open,
    retry: false,
  });
  const extra = detail.data?.extraInfo ?? [];
  const identities = detail.data?.identities ?? [];
  // #30.4 The owner attendant's name, from the company's users.
  const ownerId = detail.data?.ownerId ?? null;
  const users = useUserOptions(open && ownerId !== null);
  const owner = ownerId === null ? undefined : users.data?.find((u) => u.id === ownerId);
  const digits = onlyDigits(contact.number);
  const asContactView: ContactView = detail.data ?? {
    ...contact,
    ownerId: null,
    createdAt: ticket.createdAt,
    updatedAt: ticket.updatedAt,
  };

  return (
    <Drawer
      anchor="right"
      open={open}
      onClose={onClose}
      slotProps={{
        paper: { sx: { width: DRAWER_WIDTH, maxWidth: '100vw' }, 'data-testid': 'contact-drawer' } as object,
      }}
    >
      <Box
        sx={{ display: 'flex', alignItems: 'center', px: 1, py: 1, borderBottom: 1, borderColor: 'divider' }}
      >
        <IconButton onClick={onClose} aria-label={t('common.close')}>
          <CloseIcon />
        </IconButton>
        <Typography sx={{ fontWeight: 600, ml: 1 }}>{t('tickets.drawer.title')}</Typography>
      </Box>
      <Box sx={{ overflow: 'auto', flex: 1 }}>
        <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1, px: 2, py: 2.5 }}>
          <TicketAvatar contact={contact} size={96} />
          <Typography
            variant="h6"
            sx={{ textAlign: 'center', overflowWrap: 'anywhere' }}
            data-testid="drawer-name"
          >
            {contactLabel(contact)}
          </Typography>
          {digits ? (
            <Link
              href={`tel:+${digits}`}
              sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}
              data-testid="drawer-phone"
            >
              <PhoneOutlinedIcon fontSize="small" />
              {formatNumber(contact.number)}
            </Link>
          ) : null}
          {contact.email ? (
            <Link href={`mailto:${contact.email}`} sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
              <EmailOutlinedIcon fontSize="small" />
              {contact.email}
            </Link>
          ) : null}
          {owner ? (
            <Typography variant="body2" color="text.secondary" data-testid="drawer-owner">
              {t('contacts.owner')}: {owner.name}
            </Typography>
          ) : null}
          <Button
            size="small"
            variant="outlined"
            startIcon={<EditOutlinedIcon />}
            onClick={() => setEditing(true)}
          >
            {t('tickets.drawer.edit')}
          </Button>
        </Box>
        {extra.length ? (
          <>
            <Divider />
            <Section title={t('tickets.drawer.extraInfo')}>
              {extra.map((x, i) => (
                <Box key={`${x.name}-${i}`} sx={{ mb: 0.75 }}>
                  <Typography variant="caption" color="text.secondary">
                    {x.name}
                  </Typography>
                  <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                    {x.value}
                  </Typography>
                </Box>
              ))}
            </Section>
          </>
        ) : null}
        {identities.length ? (
          <>
            <Divider />
            <Section title={t('tickets.drawer.identities')}>
              <ContactIdentities identities={identities} />
            </Section>
          </>
        ) : null}
        <Divider />
        <ContactPrivacySection contactId={contact.id} name={contactLabel(contact)} />
        <Divider />
        <Notes ticket={ticket} />
        <Divider />
        <History ticket={ticket} />
      </Box>
      {editing ? <ContactDialog open contact={asContactView} onClose={() => setEditing(false)} /> : null}
    </Drawer>
  );
}
