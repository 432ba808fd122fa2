import { useState } from 'react';
import {
  Box,
  Button,
  Chip,
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
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { useTranslation } from 'react-i18next';
import { PLAN_FLAGS, type Plan } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useDeletePlan, usePlans } from '../../api/plans.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PlanDialog } from './PlanDialog.js';

/** Monthly prices in BRL, Brazilian format (docs/product.md#constants). */
export const formatBRL = (value: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(value);

/** Super user: plans with their limits, price and feature flags. */
export function PlansTab() {
  const { t } = useTranslation();
  const toast = useToast();
  const plans = usePlans();
  const remove = useDeletePlan();
  const [editing, setEditing] = useState<Plan | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Plan | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('plans.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const rows = plans.data ?? [];
  const colSpan = 7;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
      <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing(null)}>
          {t('plans.add')}
        </Button>
      </Box>
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer sx={{ maxHeight: 'calc(100dvh - 320px)' }}>
          <Table stickyHeader size="small" aria-label={t('settings.tabs.plans')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('plans.name')}</TableCell>
                <TableCell align="right">{t('plans.users')}</TableCell>
                <TableCell align="right">{t('plans.connections')}</TableCell>
                <TableCell align="right">{t('plans.queues')}</TableCell>
                <TableCell align="right">{t('plans.value')}</TableCell>
                <TableCell>{t('plans.featuresShort')}</TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((p) => (
                <TableRow key={p.id} hover data-testid="plan-row">
                  <TableCell>
                    <Typography variant="body2" sx={{ fontWeight: 500 }}>
                      {p.name}
                    </Typography>
                  </TableCell>
                  <TableCell align="right">{p.users}</TableCell>
                  <TableCell align="right">{p.connections}</TableCell>
                  <TableCell align="right">{p.queues}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {formatBRL(p.value)}
                  </TableCell>
                  <TableCell>
                    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
                      {PLAN_FLAGS.map((f) => (
                        <Chip
                          key={f}
                          size="small"
                          data-flag={f}
                          data-on={p[f]}
                          variant={p[f] ? 'filled' : 'outlined'}
                          color={p[f] ? 'success' : 'default'}
                          icon={p[f] ? <CheckIcon /> : <CloseIcon />}
                          label={t(`plans.flags.${f}`)}
                          aria-label={`${t(`plans.flags.${f}`)}: ${t(p[f] ? 'common.yes' : 'common.no')}`}
                          sx={p[f] ? undefined : { color: 'text.disabled', borderStyle: 'dashed' }}
                        />
                      ))}
                    </Box>
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(p)}>
                        <EditOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('common.delete')}>
                      <IconButton size="small" aria-label={t('common.delete')} onClick={() => setDeleting(p)}>
                        <DeleteOutlinedIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={colSpan}
                loading={plans.isLoading}
                empty={!plans.isLoading && rows.length === 0}
              />
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>
      {plans.isError ? (
        <Typography color="error" variant="body2">
          {t('plans.loadError')}
        </Typography>
      ) : null}

      <PlanDialog open={editing !== undefined} plan={editing ?? null} onClose={() => setEditing(undefined)} />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('plans.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('plans.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
