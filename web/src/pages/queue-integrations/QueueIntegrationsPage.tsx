import { useState } from 'react';
import {
  Box,
  Button,
  IconButton,
  Paper,
  Stack,
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
import { can, type QueueIntegration } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { usePlanFlag } from '../../app/guards.js';
import { useToast } from '../../app/useToast.js';
import {
  useDeleteQueueIntegration,
  useQueueIntegrationsList,
  useQueueIntegrationsRealtime,
} from '../../api/queue-integrations.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { IntegrationTypeAvatar } from './IntegrationTypeAvatar.js';
import { QueueIntegrationDialog } from './QueueIntegrationDialog.js';

/**
 * Queue integrations (operations §2): a searchable list with the type's logo, id and name, add/edit
 * dialog and delete confirmation; live. Without the plan flag useIntegrations: error, then / after 1 s.
 */
export default function QueueIntegrationsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const allowed = usePlanFlag('useIntegrations');
  const manager = can(user, 'queues:manage') || Boolean(user?.super);
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search, 500);
  const list = useQueueIntegrationsList(debouncedSearch, allowed);
  useQueueIntegrationsRealtime(allowed);
  const remove = useDeleteQueueIntegration();
  /** undefined: closed; null: a new integration; else the one being edited. */
  const [editing, setEditing] = useState<QueueIntegration | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<QueueIntegration | null>(null);

  // Without useIntegrations the router's PlanRoute refuses the screen (message, then /).

  if (!allowed) return null;

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('queueIntegrations.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('queueIntegrations.title')}>
        <SearchField value={search} onChange={setSearch} />
        {manager ? (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing(null)}
            data-testid="integration-add"
          >
            {t('queueIntegrations.add')}
          </Button>
        ) : null}
      </PageHeader>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="integrations-list"
        >
          <Table stickyHeader size="small" aria-label={t('queueIntegrations.title')}>
            <TableHead>
              <TableRow>
                <TableCell sx={{ width: 64 }}>{t('queueIntegrations.columns.type')}</TableCell>
                <TableCell sx={{ width: 80 }}>{t('queueIntegrations.columns.id')}</TableCell>
                <TableCell>{t('queueIntegrations.columns.name')}</TableCell>
                {manager ? (
                  <TableCell align="right" sx={{ width: 110 }}>
                    {t('common.actions')}
                  </TableCell>
                ) : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((it) => (
                <TableRow
                  key={it.id}
                  hover
                  data-testid="integration-row"
                  data-name={it.name}
                  data-type={it.type}
                >
                  <TableCell>
                    <Tooltip title={t(`queueIntegrations.types.${it.type}`)}>
                      <Box sx={{ display: 'inline-flex' }}>
                        <IntegrationTypeAvatar type={it.type} />
                      </Box>
                    </Tooltip>
                  </TableCell>
                  <TableCell data-testid="integration-id">{it.id}</TableCell>
                  <TableCell>
                    <Stack spacing={0}>
                      <Typography variant="body2" sx={{ fontWeight: 500 }}>
                        {it.name}
                      </Typography>
                      <Typography variant="caption" color="text.secondary">
                        {t(`queueIntegrations.types.${it.type}`)}
                        {it.type === 'dialogflow'
                          ? ` · ${it.projectName}`
                          : it.urlN8N
                            ? ` · ${it.urlN8N}`
                            : ''}
                      </Typography>
                    </Stack>
                  </TableCell>
                  {manager ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(it)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(it)}
                        >
                          <DeleteOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={manager ? 4 : 3}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>

      <QueueIntegrationDialog
        open={editing !== undefined}
        integration={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('queueIntegrations.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('queueIntegrations.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
