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
import { formatNumber } from '@recado/contracts';

/** One row of a spreadsheet that was not imported, as the report shows it. */
export interface UploadReportRow {
  /** The row's number as the user sees it in the sheet. */
  row: number;
  name: string;
  number: string;
  /** The error's code: a number refused by validation is shown as typed, any other one formatted. */
  code: string;
  /** Why the row was refused, in the user's language. */
  problem: string;
}

/**
 * The result of a CSV/XLSX import (contacts, a contact list's items): a summary of what went in, and a
 * table of every row refused. Each screen brings its own texts and test ids.
 */
export function UploadReport({
  open,
  onClose,
  testId,
  title,
  summary,
  summaryTestId,
  imported,
  rows,
  rowTestId,
  labels,
}: {
  open: boolean;
  onClose(): void;
  /** The dialog's data-testid; its title's id is `${testId}-title`. */
  testId: string;
  title: string;
  summary: string;
  summaryTestId?: string;
  /** How many rows went in: with refused rows too the summary is a warning, with none an error. */
  imported: number;
  rows: UploadReportRow[];
  rowTestId: string;
  labels: { table: string; row: string; name: string; number: string; problem: string };
}) {
  const { t } = useTranslation();
  return (
    <Dialog
      open={open}
      onClose={onClose}
      maxWidth="md"
      fullWidth
      aria-labelledby={`${testId}-title`}
      data-testid={testId}
    >
      <DialogTitle id={`${testId}-title`}>{title}</DialogTitle>
      <DialogContent dividers>
        <Alert
          severity={rows.length ? (imported ? 'warning' : 'error') : 'success'}
          sx={{ mb: rows.length ? 2 : 0 }}
          data-testid={summaryTestId}
        >
          {summary}
        </Alert>
        {rows.length ? (
          <TableContainer sx={{ maxHeight: '50vh' }}>
            <Table size="small" stickyHeader aria-label={labels.table}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: 72 }}>{labels.row}</TableCell>
                  <TableCell>{labels.name}</TableCell>
                  <TableCell>{labels.number}</TableCell>
                  <TableCell>{labels.problem}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((r) => (
                  <TableRow key={r.row} data-testid={rowTestId}>
                    <TableCell>{r.row}</TableCell>
                    <TableCell>{r.name || '—'}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      {!r.number ? '—' : r.code === 'ERR_VALIDATION' ? r.number : formatNumber(r.number)}
                    </TableCell>
                    <TableCell>{r.problem}</TableCell>
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

export default UploadReport;
