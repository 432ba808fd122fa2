import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { formatNumber, type ContactListUploadError, type ContactListUploadResult } from '@recado/contracts';

const FIELDS = new Set(['name', 'number', 'email']);

/** The answer of POST /contact-lists/{id}/upload: what was added or updated, and every row refused. */
export function ListUploadReportDialog({
  report,
  onClose,
}: {
  report: ContactListUploadResult | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const problem = (e: ContactListUploadError) =>
    e.error.code === 'ERR_VALIDATION'
      ? t(`contactLists.uploadErrors.${FIELDS.has(e.error.field ?? '') ? e.error.field : 'row'}`)
      : t(`contactLists.uploadErrors.${e.error.code === 'ERR_DUPLICATED_CONTACT' ? 'duplicated' : 'row'}`);
  const created = report?.created ?? 0;
  const updated = report?.updated ?? 0;
  const unchanged = report?.unchanged ?? 0;
  const failed = report?.errorBag ?? [];
  return (
    <Dialog
      open={report !== null}
      onClose={onClose}
      maxWidth="md"
      fullWidth
      aria-labelledby="list-upload-report-title"
      data-testid="list-upload-report"
    >
      <DialogTitle id="list-upload-report-title">{t('contactLists.uploadReportTitle')}</DialogTitle>
      <DialogContent dividers>
        <Alert
          severity={failed.length ? (created + updated + unchanged ? 'warning' : 'error') : 'success'}
          sx={{ mb: failed.length ? 2 : 0 }}
          data-testid="list-upload-summary"
        >
          {t('contactLists.uploadSummary', { created, updated, unchanged, failed: failed.length })}
        </Alert>
        {failed.length ? (
          <TableContainer sx={{ maxHeight: '50vh' }}>
            <Table size="small" stickyHeader aria-label={t('contactLists.rejectedRows')}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: 72 }}>{t('contactLists.row')}</TableCell>
                  <TableCell>{t('contactLists.name')}</TableCell>
                  <TableCell>{t('contactLists.number')}</TableCell>
                  <TableCell>{t('contactLists.problem')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {failed.map((e) => (
                  <TableRow key={e.row} data-testid="list-upload-error-row">
                    <TableCell>{e.row}</TableCell>
                    <TableCell>{e.name || '—'}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      {!e.number
                        ? '—'
                        : e.error.code === 'ERR_VALIDATION'
                          ? e.number
                          : formatNumber(e.number)}
                    </TableCell>
                    <TableCell>{problem(e)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        ) : null}
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 1.5 }}>
        <Button variant="contained" onClick={onClose}>
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default ListUploadReportDialog;
