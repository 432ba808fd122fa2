import { useState } from 'react';
import {
  Box,
  Button,
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
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { useTranslation } from 'react-i18next';
import { can, type Queue } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useDeleteQueue, useQueues, useQueuesRealtime } from '../../api/queues.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { inkOn } from './ColorPalette.js';
import { QueueDialog } from './QueueDialog.js';

/** Queues and their chatbot (operations §2): list, add/edit dialog, delete confirmation; live. */
export default function QueuesPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const toast = useToast();
  const manage = can(me, 'queues:manage') || Boolean(me?.super);
  const list = useQueues();
  useQueuesRealtime();
  const remove = useDeleteQueue();
  /** undefined: closed; null: a new queue; else the queue being edited. */
  const [editing, setEditing] = useState<Queue | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Queue | null>(null);
  const queues = list.data ?? [];

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('queues.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const columns = manage ? 5 : 4;
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('queues.title')} count={list.data ? queues.length : undefined}>
        {manage ? (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing(null)}
            data-testid="queue-add"
          >
            {t('queues.add')}
          </Button>
        ) : null}
      </PageHeader>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="queues-list"
        >
          <Table stickyHeader size="small" aria-label={t('queues.title')}>
            <TableHead>
              <TableRow>
                <TableCell sx={{ width: 120 }}>{t('queues.columns.color')}</TableCell>
                <TableCell>{t('queues.columns.name')}</TableCell>
                <TableCell align="center" sx={{ width: 90 }}>
                  {t('queues.columns.order')}
                </TableCell>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                  {t('queues.columns.greeting')}
                </TableCell>
                {manage ? (
                  <TableCell align="right" sx={{ width: 110 }}>
                    {t('common.actions')}
                  </TableCell>
                ) : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {queues.map((q) => (
                <TableRow key={q.id} hover data-testid="queue-row" data-name={q.name}>
                  <TableCell>
                    <Box
                      component="span"
                      data-testid="queue-color"
                      data-color={q.color}
                      sx={{
                        display: 'inline-flex',
                        alignItems: 'center',
                        px: 1,
                        py: 0.25,
                        borderRadius: 1,
                        bgcolor: q.color,
                        color: inkOn(q.color),
                        fontFamily: 'monospace',
                        fontSize: 12,
                        letterSpacing: 0.5,
                      }}
                    >
                      {q.color}
                    </Box>
                  </TableCell>
                  <TableCell>
                    <Typography variant="body2" sx={{ fontWeight: 500 }}>
                      {q.name}
                    </Typography>
                  </TableCell>
                  <TableCell align="center" sx={{ color: 'text.secondary' }}>
                    {q.orderQueue ?? '—'}
                  </TableCell>
                  <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' }, maxWidth: 0, width: '45%' }}>
                    <Typography
                      variant="body2"
                      color="text.secondary"
                      noWrap
                      title={q.greetingMessage || undefined}
                    >
                      {q.greetingMessage || '—'}
                    </Typography>
                  </TableCell>
                  {manage ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(q)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(q)}
                        >
                          <DeleteOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={columns}
                loading={list.isLoading}
                empty={!list.isLoading && queues.length === 0}
              />
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>

      {manage ? (
        <QueueDialog
          open={editing !== undefined}
          queue={editing ?? null}
          queues={queues}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t('queues.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('queues.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
