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
import { can, type Prompt } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { usePlanFlag } from '../../app/guards.js';
import { useToast } from '../../app/useToast.js';
import { useDeletePrompt, usePrompts, usePromptsRealtime } from '../../api/prompts.js';
import { useQueues, useQueuesRealtime } from '../../api/queues.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { PromptDialog } from './PromptDialog.js';

/** AI prompts (operations §2): table, add/edit dialog, delete confirmation; live; plan flag useOpenAi. */
export default function PromptsPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const toast = useToast();
  const allowed = usePlanFlag('useOpenAi');
  const manage = can(me, 'prompts:manage') || Boolean(me?.super);
  const list = usePrompts(allowed);
  usePromptsRealtime(allowed);
  const queues = useQueues(allowed && manage);
  useQueuesRealtime(allowed && manage);
  const remove = useDeletePrompt();
  /** undefined: closed; null: a new prompt; else the prompt being edited. */
  const [editing, setEditing] = useState<Prompt | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Prompt | null>(null);
  const prompts = list.data ?? [];

  // Operations §6: without the plan flag the router's PlanRoute refuses the screen (message, then /).

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('prompts.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  if (!allowed) return null;
  const columns = manage ? 4 : 3;
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('prompts.title')} count={list.data ? prompts.length : undefined}>
        {manage ? (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing(null)}
            data-testid="prompt-add"
          >
            {t('prompts.add')}
          </Button>
        ) : null}
      </PageHeader>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="prompts-list"
        >
          <Table stickyHeader size="small" aria-label={t('prompts.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('prompts.columns.name')}</TableCell>
                <TableCell>{t('prompts.columns.queue')}</TableCell>
                <TableCell align="center" sx={{ width: 160, whiteSpace: 'nowrap' }}>
                  {t('prompts.columns.maxTokens')}
                </TableCell>
                {manage ? (
                  <TableCell align="right" sx={{ width: 110 }}>
                    {t('common.actions')}
                  </TableCell>
                ) : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {prompts.map((p) => (
                <TableRow key={p.id} hover data-testid="prompt-row" data-name={p.name}>
                  <TableCell>
                    <Typography variant="body2" sx={{ fontWeight: 500 }}>
                      {p.name}
                    </Typography>
                    <Typography variant="caption" color="text.secondary">
                      {p.model}
                    </Typography>
                  </TableCell>
                  <TableCell data-testid="prompt-queue">
                    {p.queue ? (
                      <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
                        <Box
                          component="span"
                          sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: p.queue.color }}
                        />
                        <Typography variant="body2">{p.queue.name}</Typography>
                      </Box>
                    ) : (
                      '—'
                    )}
                  </TableCell>
                  <TableCell align="center" sx={{ fontVariantNumeric: 'tabular-nums' }}>
                    {p.maxTokens}
                  </TableCell>
                  {manage ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(p)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(p)}
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
                empty={!list.isLoading && prompts.length === 0}
              />
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>

      {manage ? (
        <PromptDialog
          open={editing !== undefined}
          prompt={editing ?? null}
          queues={queues.data ?? []}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t('prompts.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('prompts.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
