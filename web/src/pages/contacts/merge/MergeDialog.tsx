import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Typography,
} from '@mui/material';
import { formatNumber, type ContactView } from '@recado/contracts';
import { useMergeContacts, useMergePreview } from '../../../api/merge.js';
import { useToast } from '../../../app/useToast.js';
import { ContactPicker } from './ContactPicker.js';
import { useMergeT } from './merge-i18n.js';

const who = (c: ContactView) => (c.number ? `${c.name} (${formatNumber(c.number)})` : c.name);

/**
 * #32.8 Merge a contact into `survivor`: pick the other (or receive it from a duplicate suggestion), see what
 * moves, confirm. The survivor keeps its data; the other is deleted after everything moved.
 */
export function MergeDialog({
  survivor,
  other: given,
  onClose,
}: {
  survivor: ContactView | null;
  other?: ContactView | null;
  onClose(): void;
}) {
  const { t } = useMergeT();
  const toast = useToast();
  const [picked, setPicked] = useState<ContactView | null>(null);
  const other = given ?? picked;
  const preview = useMergePreview(survivor?.id, other?.id);
  const merge = useMergeContacts();
  const close = () => {
    setPicked(null);
    onClose();
  };
  const run = async () => {
    if (!survivor || !other) return;
    try {
      await merge.mutateAsync({ id: survivor.id, otherId: other.id });
      toast.success('merge:merged');
      close();
    } catch (err) {
      toast.error(err);
    }
  };
  const p = preview.data;
  return (
    <Dialog open={survivor !== null} onClose={close} fullWidth maxWidth="sm" aria-labelledby="merge-title">
      <DialogTitle id="merge-title">{t('mergeTitle')}</DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: '8px !important' }}>
        {survivor ? <Typography variant="body2">{t('mergeInto', { name: who(survivor) })}</Typography> : null}
        {given ? (
          <Typography variant="body2" sx={{ fontWeight: 500 }}>
            {who(given)}
          </Typography>
        ) : survivor ? (
          <ContactPicker
            label={t('pickOther', { name: survivor.name })}
            helperText={t('pickHint')}
            value={picked}
            onChange={setPicked}
            exclude={survivor.id}
          />
        ) : null}
        {other && survivor ? (
          preview.isLoading ? (
            <CircularProgress size={20} />
          ) : preview.error ? (
            <Alert severity="error">{String((preview.error as Error).message)}</Alert>
          ) : p ? (
            <Box data-testid="merge-preview">
              <Typography variant="body2" sx={{ fontWeight: 500 }}>
                {t('moves', { name: survivor.name })}
              </Typography>
              <Box component="ul" sx={{ m: 0, pl: 3 }}>
                <li>{t('movesTickets', { count: p.tickets, open: p.openTickets })}</li>
                <li>{t('movesMessages', { count: p.messages })}</li>
                <li>{t('movesNotes', { count: p.notes, schedules: p.schedules })}</li>
                {p.ownerMoves ? <li>{t('movesOwner')}</li> : null}
                <li>{t('movesRest')}</li>
              </Box>
              <Alert severity="info" sx={{ mt: 1 }}>
                {t('openRule', { name: survivor.name })}
              </Alert>
            </Box>
          ) : null
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          color="warning"
          disabled={!other || !p || merge.isPending}
          onClick={() => void run()}
          data-testid="merge-confirm"
        >
          {merge.isPending ? <CircularProgress size={18} color="inherit" /> : t('confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
