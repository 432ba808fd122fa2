import { useState } from 'react';
import { Alert, Box, Button, LinearProgress, Stack, Typography } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import {
  downloadCompanyExport,
  useCompanyExports,
  useStartCompanyExport,
} from '../../api/company-transfer.js';
import { useToast } from '../../app/useToast.js';
import { useTransferT } from './company-transfer-i18n.js';

/** Bytes as KB / MB / GB, in the language's number format. */
export const sizeText = (bytes: number, lang: string) => {
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toLocaleString(lang, { maximumFractionDigits: 1 })} ${units[i]}`;
};

/** #35.4 Settings → Privacy (admins): "Export company data", its progress, then the download. */
export function CompanyExportSection() {
  const { t, i18n } = useTransferT();
  const toast = useToast();
  const exports = useCompanyExports();
  const start = useStartCompanyExport();
  const [downloading, setDownloading] = useState(false);
  const last = exports.data?.[0];
  const busy = last?.status === 'queued' || last?.status === 'running';
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(i18n.language) : '');
  const pct = last && last.tablesTotal ? Math.round((100 * last.tablesDone) / last.tablesTotal) : 0;

  return (
    <Stack spacing={1.5} data-testid="company-export" sx={{ pt: 2, borderTop: 1, borderColor: 'divider' }}>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        {t('exportTitle')}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {t('exportIntro')}
      </Typography>
      {last && busy ? (
        <Box data-testid="company-export-progress">
          <Typography variant="body2" sx={{ mb: 0.5 }}>
            {last.status === 'queued'
              ? t('exportQueued')
              : last.phase === 'archive'
                ? t('exportArchiving')
                : t('exportRunning', {
                    done: last.tablesDone,
                    total: last.tablesTotal,
                    rows: last.rowsWritten.toLocaleString(i18n.language),
                  })}
          </Typography>
          <LinearProgress variant={last.status === 'queued' ? 'indeterminate' : 'determinate'} value={pct} />
        </Box>
      ) : null}
      {last?.status === 'done' ? (
        <Alert severity="success" data-testid="company-export-done">
          {t('exportDone', {
            when: when(last.finishedAt),
            size: sizeText(last.size ?? 0, i18n.language),
            until: when(last.expiresAt),
          })}
        </Alert>
      ) : null}
      {last?.status === 'failed' ? (
        <Alert severity="error">{t('exportFailed', { error: last.error ?? '' })}</Alert>
      ) : null}
      {last?.status === 'expired' ? <Alert severity="info">{t('exportExpired')}</Alert> : null}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button
          variant="outlined"
          onClick={() => start.mutate(undefined, { onError: (e) => toast.error(e) })}
          disabled={busy || start.isPending}
          data-testid="company-export-start"
        >
          {t('exportStart')}
        </Button>
        {last?.status === 'done' ? (
          <Button
            variant="contained"
            startIcon={<DownloadIcon />}
            disabled={downloading}
            data-testid="company-export-download"
            onClick={() => {
              setDownloading(true);
              downloadCompanyExport(last)
                .then(() => toast.success('companyTransfer:downloaded'))
                .catch((e) => toast.error(e))
                .finally(() => setDownloading(false));
            }}
          >
            {t('download')}
          </Button>
        ) : null}
      </Box>
    </Stack>
  );
}
