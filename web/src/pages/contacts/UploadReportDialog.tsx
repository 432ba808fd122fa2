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
import { formatNumber, type ContactUploadError, type ContactUploadResult } from '@recado/contracts';

const FIELDS = new Set(['name', 'number', 'email']);

/** Why one row was not imported, in the user's language. */
function useProblemText() {
  const { t } = useTranslation();
  return (e: ContactUploadError) => {
    if (e.error.code === 'ERR_VALIDATION')
      return t(`contacts.uploadErrors.${FIELDS.has(e.error.field ?? '') ? e.error.field : 'row'}`);
    return t(`errors.${e.error.code}`, { defaultValue: e.error.message });
  };
}

/** The answer of POST /contacts/upload: how many were created, and every row that was not. */
export function UploadReportDialog({
  report,
  onClose,
}: {
  report: ContactUploadResult | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const problem = useProblemText();
  const created = report?.newContacts.length ?? 0;
  const failed = report?.errorBag ?? [];
  return (
    <Dialog
      open={report !== null}
      onClose={onClose}
      maxWidth="md"
      fullWidth
      aria-labelledby="upload-report-title"
      data-testid="upload-report"
    >
      <DialogTitle id="upload-report-title">{t('contacts.uploadReportTitle')}</DialogTitle>
      <DialogContent dividers>
        <Alert
          severity={failed.length ? (created ? 'warning' : 'error') : 'success'}
          sx={{ mb: failed.length ? 2 : 0 }}
        >
          {failed.length
            ? t('contacts.uploadSummary', { created, failed: failed.length })
            : t('contacts.uploadAllGood', { created })}
        </Alert>
        {failed.length ? (
          <TableContainer sx={{ maxHeight: '50vh' }}>
            <Table size="small" stickyHeader aria-label={t('contacts.uploadErrorsTitle')}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: 72 }}>{t('contacts.row')}</TableCell>
                  <TableCell>{t('contacts.name')}</TableCell>
                  <TableCell>{t('contacts.number')}</TableCell>
                  <TableCell>{t('contacts.problem')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {failed.map((e) => (
                  <TableRow key={e.row} data-testid="upload-error-row">
                    <TableCell>{e.row + 1}</TableCell>
                    <TableCell>{e.contactName || '—'}</TableCell>
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

export default UploadReportDialog;
