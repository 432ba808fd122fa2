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
  alpha,
  useTheme,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import EventRepeatIcon from '@mui/icons-material/EventRepeat';
import { useTranslation } from 'react-i18next';
import type { Company } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useAuth } from '../../app/auth.js';
import { useCompaniesList, useDeleteCompany, useUpdateCompany } from '../../api/companies.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { advanceDueDate, dueDateTone, formatDueDate, type DueDateTone } from './company-due-date.js';
import { CompanyDialog } from './CompanyDialog.js';
import { CompanyImportDialog } from '../company-transfer/CompanyImportDialog.js';
import { useTransferT } from '../company-transfer/company-transfer-i18n.js';

/** docs/product.md#screens colours, softened in the dark theme so the text stays readable. */
function useToneColour() {
  const theme = useTheme();
  const dark = theme.palette.mode === 'dark';
  const colours: Record<Exclude<DueDateTone, null>, string> = {
    upcoming: dark ? alpha('#fff176', 0.16) : '#fffead',
    due: dark ? alpha('#ffa726', 0.24) : '#f7cc8f',
    overdue: dark ? alpha('#ef5350', 0.3) : '#fa8c8c',
  };
  return (tone: DueDateTone) => (tone ? colours[tone] : undefined);
}

/** Super user: every company, with search, infinite scroll, add/edit, expire and delete. */
export function CompaniesTab() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const { user } = useAuth();
  const toneColour = useToneColour();
  const [search, setSearch] = useState('');
  const [importing, setImporting] = useState(false);
  const { t: tt } = useTransferT();
  const debouncedSearch = useDebouncedValue(search, 500);
  const list = useCompaniesList(debouncedSearch);
  const update = useUpdateCompany();
  const remove = useDeleteCompany();
  const [editing, setEditing] = useState<Company | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Company | null>(null);
  const [expiring, setExpiring] = useState<Company | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('companies.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };
  const confirmExpire = async () => {
    if (!expiring) return;
    const dueDate = advanceDueDate(expiring.dueDate, expiring.recurrence);
    try {
      await update.mutateAsync({ id: expiring.id, input: { dueDate } });
      toast.success('companies.expired', { date: formatDueDate(dueDate, i18n.language) });
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
      <Box sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap', justifyContent: 'space-between' }}>
        <SearchField value={search} onChange={setSearch} />
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button variant="outlined" onClick={() => setImporting(true)} data-testid="company-import-open">
            {tt('importTitle')}
          </Button>
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing(null)}>
            {t('companies.add')}
          </Button>
        </Box>
      </Box>
      <CompanyImportDialog open={importing} onClose={() => setImporting(false)} />
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer ref={list.scrollRootRef} sx={{ maxHeight: 'calc(100dvh - 360px)' }}>
          <Table stickyHeader size="small" aria-label={t('settings.tabs.companies')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('companies.name')}</TableCell>
                <TableCell>{t('companies.email')}</TableCell>
                <TableCell>{t('companies.phone')}</TableCell>
                <TableCell>{t('companies.plan')}</TableCell>
                <TableCell>{t('companies.status')}</TableCell>
                <TableCell>{t('companies.dueDate')}</TableCell>
                <TableCell>{t('companies.recurrence')}</TableCell>
                <TableCell align="right">{t('common.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((c) => {
                const tone = dueDateTone(c.dueDate);
                return (
                  <TableRow
                    key={c.id}
                    hover={!tone}
                    data-testid="company-row"
                    data-tone={tone ?? 'none'}
                    sx={{ bgcolor: toneColour(tone) }}
                  >
                    <TableCell>
                      <Typography variant="body2" sx={{ fontWeight: 500 }}>
                        {c.name}
                      </Typography>
                      {c.trialPeriod ? (
                        <Typography variant="caption" color="text.secondary">
                          {t('companies.trialPeriod')}
                        </Typography>
                      ) : null}
                    </TableCell>
                    <TableCell>{c.email}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{c.phone}</TableCell>
                    <TableCell>{c.plan?.name}</TableCell>
                    <TableCell>
                      <Chip
                        size="small"
                        color={c.status ? 'success' : 'default'}
                        variant={c.status ? 'filled' : 'outlined'}
                        label={t(c.status ? 'companies.active' : 'companies.inactive')}
                      />
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      {formatDueDate(c.dueDate, i18n.language)}
                    </TableCell>
                    <TableCell>
                      {t(`companies.recurrences.${c.recurrence}`, { defaultValue: c.recurrence })}
                    </TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(c)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('companies.expire')}>
                        <IconButton
                          size="small"
                          aria-label={t('companies.expire')}
                          onClick={() => setExpiring(c)}
                        >
                          <EventRepeatIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      {/* The platform's own company is never deleted (the server refuses it too). */}
                      {c.id !== user?.companyId ? (
                        <Tooltip title={t('common.delete')}>
                          <IconButton
                            size="small"
                            aria-label={t('common.delete')}
                            onClick={() => setDeleting(c)}
                          >
                            <DeleteOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      ) : null}
                    </TableCell>
                  </TableRow>
                );
              })}
              <ListStatusRow
                colSpan={8}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>
      {list.isError ? (
        <Typography color="error" variant="body2">
          {t('companies.loadError')}
        </Typography>
      ) : null}
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }} aria-label={t('companies.legend.title')}>
        {(['upcoming', 'due', 'overdue'] as const).map((tone) => (
          <Box key={tone} sx={{ display: 'flex', alignItems: 'center', gap: 0.75 }}>
            <Box
              sx={{
                width: 14,
                height: 14,
                borderRadius: 0.5,
                bgcolor: toneColour(tone),
                border: 1,
                borderColor: 'divider',
              }}
            />
            <Typography variant="caption" color="text.secondary">
              {t(`companies.legend.${tone}`)}
            </Typography>
          </Box>
        ))}
      </Box>

      <CompanyDialog
        open={editing !== undefined}
        company={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
      <ConfirmationDialog
        open={deleting !== null}
        title={t('companies.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('companies.deleteMessage')}
      </ConfirmationDialog>
      <ConfirmationDialog
        open={expiring !== null}
        danger={false}
        title={t('companies.expireTitle', { name: expiring?.name ?? '' })}
        onClose={() => setExpiring(null)}
        onConfirm={confirmExpire}
        confirmLabel={t('companies.expire')}
      >
        {expiring
          ? t('companies.expireMessage', {
              from: formatDueDate(expiring.dueDate, i18n.language) || '—',
              to: formatDueDate(advanceDueDate(expiring.dueDate, expiring.recurrence), i18n.language),
            })
          : ''}
      </ConfirmationDialog>
    </Box>
  );
}
