import { useTranslation } from 'react-i18next';
import {
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import SyncIcon from '@mui/icons-material/Sync';
import type { Whatsapp } from '@recado/contracts';
import { useSyncTemplates, useTemplates } from '../../api/templates.js';
import { useToast } from '../../app/useToast.js';

const STATUS_COLOR: Record<string, 'success' | 'warning' | 'error' | 'default'> = {
  APPROVED: 'success',
  PENDING: 'warning',
  IN_APPEAL: 'warning',
  REJECTED: 'error',
  PAUSED: 'error',
  DISABLED: 'error',
};

/** A Cloud API connection's message templates with Meta's status, and "sync now" (admins). */
export function TemplatesDialog({ whatsapp, onClose }: { whatsapp: Whatsapp; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const list = useTemplates(whatsapp.id, false);
  const sync = useSyncTemplates(whatsapp.id);
  const rows = list.data ?? [];
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" data-testid="templates-dialog">
      <DialogTitle>{t('templates.title', { name: whatsapp.name })}</DialogTitle>
      <DialogContent sx={{ px: { xs: 1, sm: 3 } }}>
        {list.isLoading ? (
          <CircularProgress size={24} />
        ) : !rows.length ? (
          <Typography color="text.secondary">{t('templates.empty')}</Typography>
        ) : (
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('templates.columns.name')}</TableCell>
                <TableCell>{t('templates.columns.language')}</TableCell>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                  {t('templates.columns.category')}
                </TableCell>
                <TableCell>{t('templates.columns.status')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((x) => (
                <TableRow key={x.id} data-testid="template-row" data-status={x.status}>
                  <TableCell sx={{ wordBreak: 'break-all' }}>{x.name}</TableCell>
                  <TableCell>{x.language}</TableCell>
                  <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>{x.category}</TableCell>
                  <TableCell>
                    <Tooltip title={x.usable ? '' : t('templates.notUsable')}>
                      <Chip size="small" label={x.status} color={STATUS_COLOR[x.status] ?? 'default'} />
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
        <Button
          variant="contained"
          startIcon={sync.isPending ? <CircularProgress size={16} color="inherit" /> : <SyncIcon />}
          disabled={sync.isPending}
          onClick={() =>
            sync.mutate(undefined, {
              onSuccess: () => toast.success('templates.synced'),
              onError: (err) => toast.error(err),
            })
          }
        >
          {t('templates.sync')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
