import { useState } from 'react';
import {
  Box,
  Button,
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
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { useTranslation } from 'react-i18next';
import type { Help } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useDeleteHelp, useHelps } from '../../api/helps.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { HelpDialog } from './HelpDialog.js';

/** Super user: the help videos every company sees on /helps. */
export function HelpsTab() {
  const { t } = useTranslation();
  const toast = useToast();
  const helps = useHelps();
  const remove = useDeleteHelp();
  const [editing, setEditing] = useState<Help | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Help | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('helpsAdmin.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const rows = helps.data ?? [];
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
      <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing(null)}>
          {t('helpsAdmin.add')}
        </Button>
      </Box>
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer sx={{ maxHeight: 'calc(100dvh - 320px)' }}>
          <Table stickyHeader size="small" aria-label={t('settings.tabs.helps')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('helpsAdmin.title')}</TableCell>
                <TableCell>{t('helpsAdmin.description')}</TableCell>
                <TableCell>{t('helpsAdmin.video')}</TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((h) => (
                <TableRow key={h.id} hover data-testid="help-row">
                  <TableCell sx={{ fontWeight: 500 }}>{h.title}</TableCell>
                  <TableCell sx={{ maxWidth: 420 }}>
                    <Typography variant="body2" color="text.secondary" noWrap title={h.description}>
                      {h.description}
                    </Typography>
                  </TableCell>
                  <TableCell>
                    {h.video ? (
                      <Link
                        href={`https://www.youtube.com/watch?v=${encodeURIComponent(h.video)}`}
                        target="_blank"
                        rel="noopener noreferrer"
                        sx={{ fontFamily: 'monospace' }}
                      >
                        {h.video}
                      </Link>
                    ) : null}
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(h)}>
                        <EditOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.delete')}>
                      <IconButton size="small" aria-label={t('common.delete')} onClick={() => setDeleting(h)}>
                        <DeleteOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={4}
                loading={helps.isLoading}
                empty={!helps.isLoading && rows.length === 0}
              />
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>
      {helps.isError ? (
        <Typography color="error" variant="body2">
          {t('helpsAdmin.loadError')}
        </Typography>
      ) : null}

      <HelpDialog open={editing !== undefined} help={editing ?? null} onClose={() => setEditing(undefined)} />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('helpsAdmin.deleteTitle', { title: deleting?.title ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('helpsAdmin.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
