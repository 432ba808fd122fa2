import { useMemo, useState, type FormEvent } from 'react';
import { Alert, Autocomplete, MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { containsSearch, type TicketView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import {
  useConnectionOptions,
  useQueueOptions,
  useUpdateTicket,
  useUserOptions,
  viewerOf,
  type UserOption,
} from '../../api/tickets.js';

/** User search starts at 3 characters (docs/product.md#validation). */
const USER_SEARCH_MIN = 3;

/**
 * Transfer: a queue (required), a user (optional; searched from 3 characters) and a connection. Only a
 * queue puts the ticket back in that queue's waiting list.
 */
export function TransferDialog({
  ticket,
  onClose,
  onDone,
}: {
  ticket: TicketView;
  onClose(): void;
  onDone(): void;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const update = useUpdateTicket(viewer);
  const queues = useQueueOptions(user);
  const users = useUserOptions();
  const connections = useConnectionOptions();
  const [queueId, setQueueId] = useState<number | ''>('');
  const [target, setTarget] = useState<UserOption | null>(null);
  const [search, setSearch] = useState('');
  const [whatsappId, setWhatsappId] = useState<number | ''>(ticket.whatsappId ?? '');
  const [queueError, setQueueError] = useState(false);

  const term = search.trim();
  const userOptions =
    term.length >= USER_SEARCH_MIN ? (users.data ?? []).filter((u) => containsSearch(u.name, term)) : [];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!queueId) {
      setQueueError(true);
      return;
    }
    update.mutate(
      {
        id: ticket.id,
        input: {
          queueId,
          ...(target ? { userId: target.id } : {}),
          ...(whatsappId ? { whatsappId } : {}),
        },
      },
      {
        onSuccess: () => {
          toast.success('tickets.transfer.done');
          onDone();
        },
        onError: (err) => toast.error(err),
      },
    );
  };

  return (
    <FormDialog
      open
      title={t('tickets.transfer.title')}
      onClose={onClose}
      onSubmit={submit}
      submitting={update.isPending}
      submitLabel={t('tickets.transfer.submit')}
      maxWidth="xs"
    >
      {queues.length === 0 ? <Alert severity="info">{t('tickets.transfer.noQueues')}</Alert> : null}
      <TextField
        select
        required
        label={t('tickets.transfer.queue')}
        value={queueId}
        onChange={(e) => {
          setQueueId(Number(e.target.value) || '');
          setQueueError(false);
        }}
        error={queueError}
        helperText={queueError ? t('common.required') : undefined}
        disabled={queues.length === 0}
        data-testid="transfer-queue"
      >
        {queues.map((q) => (
          <MenuItem key={q.id} value={q.id}>
            {q.name}
          </MenuItem>
        ))}
      </TextField>
      <Autocomplete
        options={userOptions}
        value={target}
        onChange={(_e, v) => setTarget(v)}
        inputValue={search}
        onInputChange={(_e, v) => setSearch(v)}
        getOptionLabel={(o) => o.name}
        isOptionEqualToValue={(a, b) => a.id === b.id}
        filterOptions={(x) => x}
        loading={users.isLoading}
        noOptionsText={
          term.length < USER_SEARCH_MIN ? t('tickets.transfer.typeToSearch') : t('common.noRecords')
        }
        renderInput={(params) => <TextField {...params} label={t('tickets.transfer.user')} />}
      />
      <TextField
        select
        label={t('tickets.transfer.connection')}
        value={connections.data?.some((w) => w.id === whatsappId) ? whatsappId : ''}
        onChange={(e) => setWhatsappId(Number(e.target.value) || '')}
      >
        {(connections.data ?? []).map((w) => (
          <MenuItem key={w.id} value={w.id}>
            {w.name}
          </MenuItem>
        ))}
      </TextField>
    </FormDialog>
  );
}
