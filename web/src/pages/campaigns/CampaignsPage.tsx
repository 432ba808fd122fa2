import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
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
import AssessmentOutlinedIcon from '@mui/icons-material/AssessmentOutlined';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import PauseCircleOutlineIcon from '@mui/icons-material/PauseCircleOutlined';
import PlayCircleOutlineIcon from '@mui/icons-material/PlayCircleOutlined';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { useTranslation } from 'react-i18next';
import { can, type Campaign } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import {
  useCampaignAction,
  useCampaigns,
  useCampaignsRealtime,
  useDeleteCampaign,
} from '../../api/campaigns.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { CampaignDialog } from './CampaignDialog.js';
import { CampaignStatusChip, useCampaignErrors } from './campaign-ui.js';
import { useDateFormat } from '../../i18n/format.js';

function Placeholder({ children }: { children: string }) {
  return (
    <Typography component="span" variant="body2" color="text.secondary" sx={{ fontStyle: 'italic' }}>
      {children}
    </Typography>
  );
}

/** Campaigns (operations §2): search, infinite scroll, row actions by status, the add/edit dialog. */
export default function CampaignsPage() {
  const { t } = useTranslation();
  const { dateTime: formatDateTime } = useDateFormat();
  const { user } = useAuth();
  const toast = useToast();
  const showError = useCampaignErrors();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const list = useCampaigns(debounced);
  useCampaignsRealtime();
  const remove = useDeleteCampaign();
  const action = useCampaignAction();
  const [editing, setEditing] = useState<Campaign | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Campaign | null>(null);

  const run = async (c: Campaign, kind: 'cancel' | 'restart') => {
    try {
      await action.mutateAsync({ id: c.id, action: kind });
      toast.success(kind === 'cancel' ? 'campaigns.canceled' : 'campaigns.restarted');
    } catch (err) {
      showError(err);
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('campaigns.deleted');
    } catch (err) {
      showError(err);
      throw err;
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('campaigns.title')}>
        <SearchField value={search} onChange={setSearch} />
        {manage ? (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing(null)}
            data-testid="campaign-add"
          >
            {t('campaigns.add')}
          </Button>
        ) : null}
      </PageHeader>
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="campaigns"
        >
          <Table stickyHeader size="small" aria-label={t('campaigns.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('campaigns.name')}</TableCell>
                <TableCell align="center">{t('campaigns.statusLabel')}</TableCell>
                <TableCell>{t('campaigns.contactList')}</TableCell>
                <TableCell>{t('campaigns.whatsapp')}</TableCell>
                <TableCell align="center">{t('campaigns.scheduledAt')}</TableCell>
                <TableCell align="center">{t('campaigns.completedAt')}</TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((c) => (
                <TableRow key={c.id} hover data-testid="campaign-row" data-campaign-id={c.id}>
                  <TableCell sx={{ fontWeight: 500 }}>{c.name}</TableCell>
                  <TableCell align="center">
                    <CampaignStatusChip status={c.status} />
                  </TableCell>
                  <TableCell>
                    {c.contactList?.name ??
                      (c.tag ? (
                        `${t('campaigns.tag')}: ${c.tag.name}`
                      ) : (
                        <Placeholder>{t('campaigns.notDefined')}</Placeholder>
                      ))}
                  </TableCell>
                  <TableCell>
                    {c.whatsapp?.name ?? <Placeholder>{t('campaigns.notDefined')}</Placeholder>}
                  </TableCell>
                  <TableCell align="center">
                    {c.scheduledAt ? (
                      formatDateTime(c.scheduledAt)
                    ) : (
                      <Placeholder>{t('campaigns.notScheduled')}</Placeholder>
                    )}
                  </TableCell>
                  <TableCell align="center">
                    {c.completedAt ? (
                      formatDateTime(c.completedAt)
                    ) : (
                      <Placeholder>{t('campaigns.notConcluded')}</Placeholder>
                    )}
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {manage && c.status === 'EM_ANDAMENTO' ? (
                      <Tooltip title={t('campaigns.stop')}>
                        <IconButton
                          size="small"
                          aria-label={t('campaigns.stop')}
                          onClick={() => void run(c, 'cancel')}
                        >
                          <PauseCircleOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    ) : null}
                    {manage && c.status === 'CANCELADA' ? (
                      <Tooltip title={t('campaigns.restart')}>
                        <IconButton
                          size="small"
                          aria-label={t('campaigns.restart')}
                          onClick={() => void run(c, 'restart')}
                        >
                          <PlayCircleOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    ) : null}
                    <Tooltip title={t('campaigns.report')}>
                      <IconButton
                        size="small"
                        component={RouterLink}
                        to={`/campaign/${c.id}/report`}
                        aria-label={t('campaigns.report')}
                      >
                        <AssessmentOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    {manage ? (
                      <>
                        <Tooltip title={t(c.editable ? 'common.edit' : 'campaigns.view')}>
                          <IconButton
                            size="small"
                            aria-label={t(c.editable ? 'common.edit' : 'campaigns.view')}
                            onClick={() => setEditing(c)}
                          >
                            {c.editable ? (
                              <EditOutlinedIcon fontSize="small" />
                            ) : (
                              <VisibilityOutlinedIcon fontSize="small" />
                            )}
                          </IconButton>
                        </Tooltip>
                        <Tooltip title={t('common.delete')}>
                          <IconButton
                            size="small"
                            aria-label={t('common.delete')}
                            onClick={() => setDeleting(c)}
                          >
                            <DeleteOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      </>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={7}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>
      {manage ? (
        <CampaignDialog
          open={editing !== undefined}
          campaign={editing ?? null}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t('campaigns.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('campaigns.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
