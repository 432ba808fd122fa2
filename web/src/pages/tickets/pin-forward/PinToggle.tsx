import { useMemo, useState } from 'react';
import { IconButton, Tooltip } from '@mui/material';
import PushPinIcon from '@mui/icons-material/PushPin';
import PushPinOutlinedIcon from '@mui/icons-material/PushPinOutlined';
import { useQueryClient } from '@tanstack/react-query';
import { useAuth } from '../../../app/auth.js';
import { useToast } from '../../../app/useToast.js';
import { cachedTicket, putTicket, viewerOf, type TicketView } from '../../../api/tickets.js';
import { setTicketPin } from '../../../api/merge.js';
import { useMergeT } from '../../contacts/merge/merge-i18n.js';

/** #32.9 Pin the ticket to the top of one's own list (or unpin it): the chat header's toggle. */
export function PinToggle({ ticket }: { ticket: TicketView }) {
  const { t } = useMergeT();
  const { user } = useAuth();
  const viewer = useMemo(() => (user ? viewerOf(user) : null), [user]);
  const client = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const pinned = Boolean(cachedTicket(client, ticket.id)?.pinned ?? ticket.pinned);
  const toggle = async () => {
    setBusy(true);
    try {
      const r = await setTicketPin(ticket.id, !pinned);
      const current = cachedTicket(client, ticket.id) ?? ticket;
      if (viewer) putTicket(client, { ...current, pinned: r.pinned }, viewer);
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  const label = t(pinned ? 'unpin' : 'pin');
  return (
    <Tooltip title={label}>
      <IconButton
        onClick={() => void toggle()}
        disabled={busy}
        aria-label={label}
        aria-pressed={pinned}
        data-testid="chat-pin"
      >
        {pinned ? <PushPinIcon /> : <PushPinOutlinedIcon />}
      </IconButton>
    </Tooltip>
  );
}
