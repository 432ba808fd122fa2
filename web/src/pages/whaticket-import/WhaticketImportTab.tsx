import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client.js';
import { useWhaticketT } from './whaticket-import-i18n.js';

interface TableReport {
  read: number;
  imported: number;
  updated: number;
  skipped: number;
  reasons: Record<string, number>;
}
interface Report {
  ok: boolean;
  recadoCompanyId: number | null;
  missingTables: string[];
  error?: string;
  tables: Record<string, TableReport>;
  notes: string[];
}

/** #35.5 Settings → Import from Whaticket (super user): POST /company-imports/whaticket and its report. */
export function WhaticketImportTab() {
  const { t } = useWhaticketT();
  const [from, setFrom] = useState('');
  const [company, setCompany] = useState('1');
  const run = useMutation({
    mutationFn: async (): Promise<Report> => {
      try {
        return await api.post<Report>('/company-imports/whaticket', { from, companyId: Number(company) });
      } catch (err) {
        // 422 carries the report (why nothing was imported); anything else is the usual error.
        if (err instanceof ApiError && err.status === 422 && err.body) return err.body as unknown as Report;
        throw err;
      }
    },
  });
  const report = run.data;
  const valid = /^postgres(ql)?:\/\//.test(from) && Number.isInteger(Number(company)) && Number(company) > 0;

  return (
    <Stack spacing={2} sx={{ maxWidth: 900 }}>
      <Typography variant="body2" color="text.secondary">
        {t('intro')}
      </Typography>
      <Box
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) run.mutate();
        }}
        sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'flex-start' }}
      >
        <TextField
          label={t('from')}
          helperText={t('fromHelp')}
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          sx={{ flex: '1 1 320px' }}
          slotProps={{ htmlInput: { 'data-testid': 'whaticket-from', autoComplete: 'off' } }}
        />
        <TextField
          label={t('company')}
          type="number"
          value={company}
          onChange={(e) => setCompany(e.target.value)}
          sx={{ width: 180 }}
          slotProps={{ htmlInput: { 'data-testid': 'whaticket-company', min: 1 } }}
        />
        <Button
          type="submit"
          variant="contained"
          disabled={!valid || run.isPending}
          data-testid="whaticket-run"
          sx={{ mt: 1 }}
        >
          {run.isPending ? t('running') : t('run')}
        </Button>
      </Box>
      {run.error && <Alert severity="error">{run.error.message}</Alert>}
      {report && (
        <Stack spacing={2} data-testid="whaticket-report">
          {report.ok ? (
            <Alert severity="success">{t('done', { id: report.recadoCompanyId })}</Alert>
          ) : (
            <Alert severity="error">{t('failed', { error: report.error ?? '' })}</Alert>
          )}
          {Object.keys(report.tables).length > 0 && (
            <Box sx={{ overflowX: 'auto' }}>
              <Table size="small">
                <TableHead>
                  <TableRow>
                    <TableCell>{t('table')}</TableCell>
                    <TableCell align="right">{t('read')}</TableCell>
                    <TableCell align="right">{t('imported')}</TableCell>
                    <TableCell align="right">{t('updated')}</TableCell>
                    <TableCell align="right">{t('skipped')}</TableCell>
                    <TableCell>{t('reasons')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {Object.entries(report.tables).map(([name, r]) => (
                    <TableRow key={name} data-testid={`whaticket-row-${name}`}>
                      <TableCell sx={{ fontFamily: 'monospace' }}>{name}</TableCell>
                      <TableCell align="right">{r.read}</TableCell>
                      <TableCell align="right">{r.imported}</TableCell>
                      <TableCell align="right">{r.updated}</TableCell>
                      <TableCell align="right">{r.skipped}</TableCell>
                      <TableCell>
                        {Object.entries(r.reasons).map(([why, n]) => (
                          <Typography key={why} variant="caption" component="div" color="text.secondary">
                            {n} × {why}
                          </Typography>
                        ))}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Box>
          )}
          {report.ok && <Alert severity="info">{t('afterwards')}</Alert>}
        </Stack>
      )}
    </Stack>
  );
}
