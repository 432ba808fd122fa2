import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  Autocomplete,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  CONTACT_SEARCH_MIN_LENGTH,
  formatNumber,
  type ContactPage,
  type TicketView,
} from '@recado/contracts';
import { ApiError, api } from '../../api/client.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import {
  useConnectionOptions,
  useCreateTicket,
  useQueueOptions,
  viewerOf,
  type OtherOpenTicket,
} from '../../api/tickets.js';

interface ContactOption {
  id: number;
  name: string;
  number: string;
}

const contactText = (c: ContactOption) =>
  c.name && c.name !== c.number ? `${c.name} · ${formatNumber(c.number)}` : formatNumber(c.number);

/** "This contact already has an open ticket": who holds it and in which queue. */
export function OtherOpenTicketDialog({
  other,
  onClose,
  onNavigate,
}: {
  other: OtherOpenTicket | null;
  onClose(): void;
  onNavigate?: () => void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Dialog open={Boolean(other)} onClose={onClose} maxWidth="xs" fullWidth data-testid="other-open-ticket">
      <DialogTitle>{t('tickets.newTicket.otherOpenTitle')}</DialogTitle>
      <DialogContent>
        <Typography color="text.secondary">
          {t('tickets.newTicket.otherOpenText', {
            user: other?.user?.name ?? t('tickets.newTicket.nobody'),
            queue: other?.queue?.name ?? t('tickets.row.noQueue'),
          })}
        </Typography>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button color="inherit" onClick={onClose}>
          {t('common.close')}
        </Button>
        {other ? (
          <Button
            variant="contained"
            onClick={() => {
              onClose();
              onNavigate?.();
              void navigate(`/tickets/${other.uuid}`);
            }}
          >
            {t('tickets.newTicket.goToTicket')}
          </Button>
        ) : null}
      </DialogActions>
    </Dialog>
  );
}

function NewTicketForm({
  initialContactId,
  onClose,
  onCreated,
}: {
  initialContactId: number | null;
  onClose(): void;
  onCreated(ticket: TicketView): void;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const admin = user?.profile === 'admin' || Boolean(user?.super);
  const create = useCreateTicket(viewer);

  const initial = useQuery({
    queryKey: ['contacts', 'detail', initialContactId ?? 0],
    queryFn: () => api.get<ContactOption>(`/contacts/${initialContactId}`),
    enabled: initialContactId !== null,
    retry: false,
  });
  const [picked, setPicked] = useState<{ contact: ContactOption | null } | null>(null);
  const contact = picked ? picked.contact : (initial.data ?? null);
  // What the field shows (the chosen contact's label once chosen) and what the user typed to search.
  const [input, setInput] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const search = useDebouncedValue(typed, 500).trim();
  const contacts = useQuery({
    queryKey: ['contacts', 'ticket-search', search],
    queryFn: () => api.get<ContactPage>('/contacts', { searchParam: search, pageNumber: 1 }),
    enabled: search.length >= CONTACT_SEARCH_MIN_LENGTH,
    retry: false,
  });

  const queues = useQueueOptions(user);
  const [queueChoice, setQueueChoice] = useState<number | ''>('');
  // A single available queue is pre-selected (docs/product.md#validation).
  const queueId = queueChoice || (queues.length === 1 ? queues[0]!.id : '');
  const connections = useConnectionOptions();
  const [whatsappId, setWhatsappId] = useState<number | ''>('');
  const [errors, setErrors] = useState<{ contact?: boolean; queue?: boolean }>({});
  const [other, setOther] = useState<OtherOpenTicket | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = { contact: !contact, queue: !admin && !queueId };
    setErrors(next);
    if (next.contact || next.queue || !contact) return;
    create.mutate(
      {
        contactId: contact.id,
        queueId: queueId || undefined,
        whatsappId: whatsappId || undefined,
        userId: user!.id,
        status: 'open',
      },
      {
        onSuccess: (ticket) => {
          toast.success('tickets.newTicket.created');
          onCreated(ticket);
        },
        onError: (err) => {
          toast.error(err);
          if (err instanceof ApiError && err.code === 'ERR_OTHER_OPEN_TICKET' && err.body?.ticket)
            setOther(err.body.ticket as OtherOpenTicket);
        },
      },
    );
  };

  const contactsMissing = contacts.error instanceof ApiError && contacts.error.status === 404;
  const options = contacts.data?.contacts ?? [];
  return (
    <>
      <FormDialog
        open
        title={t('tickets.newTicket.title')}
        onClose={onClose}
        onSubmit={submit}
        submitting={create.isPending}
        submitLabel={t('tickets.newTicket.submit')}
        maxWidth="xs"
      >
        <Autocomplete
          options={contact && !options.some((o) => o.id === contact.id) ? [contact, ...options] : options}
          value={contact}
          onChange={(_e, v) => {
            setPicked({ contact: v });
            setErrors((x) => ({ ...x, contact: false }));
          }}
          // Until the user types, the field shows the chosen contact (one given by the contacts page too).
          inputValue={input ?? (contact ? contactText(contact) : '')}
          onInputChange={(_e, v, reason) => {
            setInput(v);
            if (reason === 'input' || reason === 'clear') setTyped(v);
          }}
          filterOptions={(x) => x}
          getOptionLabel={contactText}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          loading={contacts.isFetching}
          noOptionsText={
            contactsMissing
              ? t('tickets.newTicket.contactsUnavailable')
              : typed.trim().length < CONTACT_SEARCH_MIN_LENGTH
                ? t('tickets.newTicket.typeToSearch')
                : t('common.noRecords')
          }
          renderOption={(props, o) => {
            const { key, ...rest } = props as typeof props & { key: string };
            return (
              <Box component="li" key={key} {...rest}>
                <Box sx={{ minWidth: 0 }}>
                  <Typography noWrap>{o.name}</Typography>
                  <Typography variant="caption" color="text.secondary">
                    {formatNumber(o.number)}
                  </Typography>
                </Box>
              </Box>
            );
          }}
          renderInput={(params) => (
            <TextField
              {...params}
              autoFocus
              required
              label={t('tickets.newTicket.contact')}
              error={errors.contact}
              helperText={errors.contact ? t('common.required') : undefined}
              data-testid="new-ticket-contact"
            />
          )}
        />
        {queues.length ? (
          <TextField
            select
            required={!admin}
            label={t('tickets.newTicket.queue')}
            value={queueId}
            onChange={(e) => {
              setQueueChoice(Number(e.target.value) || '');
              setErrors((x) => ({ ...x, queue: false }));
            }}
            error={errors.queue}
            helperText={errors.queue ? t('common.required') : undefined}
            data-testid="new-ticket-queue"
          >
            {admin ? <MenuItem value="">{t('tickets.newTicket.noQueue')}</MenuItem> : null}
            {queues.map((q) => (
              <MenuItem key={q.id} value={q.id}>
                {q.name}
              </MenuItem>
            ))}
          </TextField>
        ) : !admin ? (
          <Typography color="error" variant="body2">
            {t('tickets.newTicket.noQueues')}
          </Typography>
        ) : null}
        {(connections.data?.length ?? 0) > 1 ? (
          <TextField
            select
            label={t('tickets.newTicket.connection')}
            value={whatsappId}
            onChange={(e) => setWhatsappId(Number(e.target.value) || '')}
          >
            <MenuItem value="">{t('tickets.newTicket.defaultConnection')}</MenuItem>
            {connections.data!.map((w) => (
              <MenuItem key={w.id} value={w.id}>
                {w.name}
              </MenuItem>
            ))}
          </TextField>
        ) : null}
      </FormDialog>
      <OtherOpenTicketDialog other={other} onClose={() => setOther(null)} onNavigate={onClose} />
    </>
  );
}

/** New ticket: a contact (searched from 3 characters), a queue (required unless admin), a connection. */
export function NewTicketDialog({
  open,
  initialContactId,
  onClose,
  onCreated,
}: {
  open: boolean;
  initialContactId: number | null;
  onClose(): void;
  onCreated(ticket: TicketView): void;
}) {
  if (!open) return null;
  return <NewTicketForm initialContactId={initialContactId} onClose={onClose} onCreated={onCreated} />;
}
