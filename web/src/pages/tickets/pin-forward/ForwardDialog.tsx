import { useEffect, useMemo, useState } from 'react';
import {
  Autocomplete,
  Box,
  Button,
  Checkbox,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Radio,
  RadioGroup,
  TextField,
  Typography,
} from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import type { ContactView, MessageView, TicketView } from '@recado/contracts';
import { api } from '../../../api/client.js';
import { flattenMessages, messageKeys, type MessageData } from '../../../api/messages.js';
import { forwardMessages } from '../../../api/merge.js';
import { useToast } from '../../../app/useToast.js';
import { useDebouncedValue } from '../../../components/useDebouncedValue.js';
import { ContactPicker } from '../../contacts/merge/ContactPicker.js';
import { useMergeT } from '../../contacts/merge/merge-i18n.js';

const preview = (m: MessageView) => m.body || (m.mediaName ? `📎 ${m.mediaName}` : `[${m.mediaType ?? ''}]`);

/** An open ticket found by its contact's name or number. */
function OpenTicketPicker({
  label,
  value,
  onChange,
  exclude,
}: {
  label: string;
  value: TicketView | null;
  onChange(t: TicketView | null): void;
  exclude: number;
}) {
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input, 300);
  const [options, setOptions] = useState<TicketView[]>([]);
  useEffect(() => {
    let live = true;
    api
      .get<{ tickets: TicketView[] }>(
        `/tickets?status=open&showAll=true&pageNumber=1&searchParam=${encodeURIComponent(search.trim())}`,
      )
      .then((p) => live && setOptions(p.tickets.filter((x) => x.id !== exclude)))
      .catch(() => live && setOptions([]));
    return () => {
      live = false;
    };
  }, [search, exclude]);
  return (
    <Autocomplete
      options={options}
      value={value}
      filterOptions={(x) => x}
      onChange={(_e, v) => onChange(v)}
      onInputChange={(_e, v) => setInput(v)}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      getOptionLabel={(x) => `${x.contact.name} · #${x.id}`}
      renderInput={(params) => <TextField {...params} label={label} data-testid="forward-ticket" />}
    />
  );
}

/**
 * #32.9 Forward messages of this chat: the one the menu was opened on is ticked, others of the loaded
 * conversation can be ticked too; the target is an open ticket or a contact (its ticket, or a new one).
 */
export function ForwardDialog({
  open,
  message,
  ticketId,
  onClose,
}: {
  open: boolean;
  message: MessageView;
  ticketId: number;
  onClose(): void;
}) {
  const { t } = useMergeT();
  const toast = useToast();
  const client = useQueryClient();
  const [selected, setSelected] = useState<Set<number>>(() => new Set([message.id]));
  const [mode, setMode] = useState<'ticket' | 'contact'>('ticket');
  const [ticket, setTicket] = useState<TicketView | null>(null);
  const [contact, setContact] = useState<ContactView | null>(null);
  const [busy, setBusy] = useState(false);
  const messages = useMemo(
    () =>
      open
        ? flattenMessages(client.getQueryData<MessageData>(messageKeys.list(ticketId)))
            .filter((m) => !m.isDeleted && (m.body || m.mediaUrl))
            .slice(-30)
        : [],
    [open, client, ticketId],
  );
  const toggle = (id: number) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const ready = selected.size > 0 && (mode === 'ticket' ? ticket !== null : contact !== null);
  const send = async () => {
    setBusy(true);
    try {
      await forwardMessages({
        messageIds: [...selected],
        ...(mode === 'ticket' ? { ticketId: ticket!.id } : { contactId: contact!.id }),
      });
      toast.success('merge:forwarded');
      onClose();
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="forward-title">
      <DialogTitle id="forward-title">{t('forwardTitle', { count: selected.size })}</DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
        <Box
          sx={{
            maxHeight: 220,
            overflowY: 'auto',
            border: 1,
            borderColor: 'divider',
            borderRadius: 1,
            px: 1,
          }}
          data-testid="forward-messages"
        >
          {messages.map((m) => (
            <FormControlLabel
              key={m.id}
              sx={{ display: 'flex', mr: 0 }}
              control={<Checkbox size="small" checked={selected.has(m.id)} onChange={() => toggle(m.id)} />}
              label={
                <Typography variant="body2" noWrap sx={{ maxWidth: { xs: 260, sm: 440 } }}>
                  {preview(m)}
                </Typography>
              }
            />
          ))}
        </Box>
        <RadioGroup row value={mode} onChange={(e) => setMode(e.target.value as 'ticket' | 'contact')}>
          <FormControlLabel value="ticket" control={<Radio size="small" />} label={t('forwardToTicket')} />
          <FormControlLabel value="contact" control={<Radio size="small" />} label={t('forwardToContact')} />
        </RadioGroup>
        {mode === 'ticket' ? (
          <OpenTicketPicker
            label={t('forwardTicketPick')}
            value={ticket}
            onChange={setTicket}
            exclude={ticketId}
          />
        ) : (
          <ContactPicker label={t('forwardToContact')} value={contact} onChange={setContact} />
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          disabled={!ready || busy}
          onClick={() => void send()}
          data-testid="forward-send"
        >
          {busy ? <CircularProgress size={18} color="inherit" /> : t('forwardSend')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
