import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Stack,
  Typography,
} from '@mui/material';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import type { CompanyImportReport } from '@recado/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api/client.js';
import { importCompanyArchive } from '../../api/company-transfer.js';
import { companyKeys } from '../../api/companies.js';
import { useTransferT } from './company-transfer-i18n.js';

interface Refusal {
  message: string;
  file?: string;
  line?: number;
}

/** #35.4 The super user's Companies screen → "Import a company archive": upload with progress, then the report. */
export function CompanyImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t, i18n } = useTransferT();
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [report, setReport] = useState<CompanyImportReport | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const working = progress !== null && !report && !refusal;

  const run = () => {
    if (!file) return;
    setReport(null);
    setRefusal(null);
    setProgress(0);
    importCompanyArchive(file, setProgress)
      .then((r) => {
        setReport(r);
        void client.invalidateQueries({ queryKey: companyKeys.all });
      })
      .catch((e: unknown) => {
        const err = e instanceof ApiError ? e : new ApiError(0, 'ERR_INTERNAL_SERVER_ERROR', String(e));
        const details = (err.body?.details ?? {}) as { file?: string; line?: number };
        setRefusal({
          message: t(`errors.${err.code}`, { defaultValue: err.message }),
          file: details.file,
          line: details.line,
        });
      })
      .finally(() => setProgress(null));
  };
  const close = () => {
    if (working) return;
    setFile(null);
    setReport(null);
    setRefusal(null);
    onClose();
  };

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="company-import-title">
      <DialogTitle id="company-import-title">{t('importTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Typography variant="body2" color="text.secondary">
            {t('importIntro')}
          </Typography>
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <Button component="label" variant="outlined" startIcon={<UploadFileIcon />} disabled={working}>
              {t('importChoose')}
              <input
                hidden
                type="file"
                accept=".tar,application/x-tar"
                data-testid="company-import-file"
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              />
            </Button>
            <Typography variant="body2" sx={{ wordBreak: 'break-all' }}>
              {file?.name ?? ''}
            </Typography>
          </Box>
          {working ? (
            <Box data-testid="company-import-progress">
              <Typography variant="body2" sx={{ mb: 0.5 }}>
                {progress !== null && progress < 1
                  ? t('importUploading', { pct: Math.round(progress * 100) })
                  : t('importWorking')}
              </Typography>
              <LinearProgress
                variant={progress !== null && progress < 1 ? 'determinate' : 'indeterminate'}
                value={(progress ?? 0) * 100}
              />
            </Box>
          ) : null}
          {refusal ? (
            <Alert severity="error" data-testid="company-import-refused">
              <div>{refusal.message}</div>
              {refusal.file ? (
                <div>
                  {t('importWhere', {
                    file: refusal.file,
                    line: refusal.line ? t('importLine', { line: refusal.line }) : '',
                  })}
                </div>
              ) : null}
            </Alert>
          ) : null}
          {report ? (
            <Alert severity="success" data-testid="company-import-report">
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {t('importDone', { name: report.companyName, id: report.companyId })}
              </Typography>
              <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
                {Object.entries(report.tables)
                  .filter(([, n]) => n > 0)
                  .map(([table, n]) => (
                    <li key={table}>
                      <Typography variant="body2">
                        {t('importRows', {
                          table: t(`tables.${table}`, { defaultValue: table }),
                          count: n.toLocaleString(i18n.language) as never,
                        })}
                      </Typography>
                    </li>
                  ))}
                <li>
                  <Typography variant="body2">{t('importMedia', { count: report.mediaFiles })}</Typography>
                </li>
                {report.renamedUsers.map((u) => (
                  <li key={u.old}>
                    <Typography variant="body2" sx={{ wordBreak: 'break-all' }}>
                      {t('importRenamed', { old: u.old, new: u.new })}
                    </Typography>
                  </li>
                ))}
                {report.tables.users ? (
                  <li>
                    <Typography variant="body2">
                      {t('importUsersNoPassword', { count: report.tables.users })}
                    </Typography>
                  </li>
                ) : null}
                {report.tables.whatsapps ? (
                  <li>
                    <Typography variant="body2">
                      {t('importConnections', { count: report.tables.whatsapps })}
                    </Typography>
                  </li>
                ) : null}
              </Box>
            </Alert>
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={close} disabled={working}>
          {t('close')}
        </Button>
        <Button
          variant="contained"
          onClick={run}
          disabled={!file || working}
          data-testid="company-import-start"
        >
          {t('importStart')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
