import { useState } from 'react';
import { Box, Button, Chip, CircularProgress, Typography } from '@mui/material';
import DownloadOutlinedIcon from '@mui/icons-material/DownloadOutlined';
import PersonOffOutlinedIcon from '@mui/icons-material/PersonOffOutlined';
import { isOptedOut } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { downloadContactExport, useContactConsent, useEraseContact } from '../../api/privacy.js';
import { dateTime } from '../tickets/ticket-format.js';
import { usePrivacyT } from './privacy-i18n.js';

/**
 * #35 The contact drawer's privacy part: the consent state, and for admins the data subject requests —
 * export (a ZIP) and erase (after a confirmation), two clicks each (docs/privacy.md).
 */
export function ContactPrivacySection({
  contactId,
  name,
  inset = true,
}: {
  contactId: number;
  name: string;
  /** false: inside a dialog's content, which has its own padding. */
  inset?: boolean;
}) {
  const { t, i18n } = usePrivacyT();
  const { user } = useAuth();
  const toast = useToast();
  const admin = user?.profile === 'admin' || user?.super === true;
  const consent = useContactConsent(contactId);
  const erase = useEraseContact();
  const [exporting, setExporting] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const status = consent.data?.status ?? null;
  const optedOut = isOptedOut(status);

  const doExport = async () => {
    setExporting(true);
    try {
      await downloadContactExport(contactId);
      toast.success('privacy:exported');
    } catch (err) {
      toast.error(err);
    } finally {
      setExporting(false);
    }
  };

  return (
    <Box sx={{ px: inset ? 2 : 0, py: 1.5 }} data-testid="contact-privacy">
      <Typography variant="subtitle2" sx={{ mb: 1 }}>
        {t('section')}
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', mb: admin ? 1.5 : 0 }}>
        {consent.data?.erased ? (
          <Chip size="small" label={t('erasedMark')} data-testid="contact-erased" />
        ) : (
          <Chip
            size="small"
            color={optedOut ? 'warning' : status === 'granted' ? 'success' : 'default'}
            variant={status ? 'filled' : 'outlined'}
            label={t(`consent.${status ?? 'none'}`)}
            data-testid="contact-consent"
            data-status={status ?? 'none'}
          />
        )}
        {consent.data?.at ? (
          <Typography variant="caption" color="text.secondary">
            {t('consent.at', { when: dateTime(consent.data.at, i18n.language) })}
          </Typography>
        ) : null}
      </Box>
      {admin ? (
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button
            size="small"
            variant="outlined"
            startIcon={exporting ? <CircularProgress size={14} color="inherit" /> : <DownloadOutlinedIcon />}
            disabled={exporting}
            onClick={() => void doExport()}
            data-testid="contact-export"
          >
            {t('export')}
          </Button>
          <Button
            size="small"
            variant="outlined"
            color="error"
            startIcon={<PersonOffOutlinedIcon />}
            onClick={() => setConfirming(true)}
            disabled={consent.data?.erased}
            data-testid="contact-erase"
          >
            {t('erase')}
          </Button>
        </Box>
      ) : null}
      <ConfirmationDialog
        open={confirming}
        title={t('eraseTitle')}
        confirmLabel={t('eraseConfirm')}
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          try {
            await erase.mutateAsync(contactId);
            toast.success('privacy:erased');
          } catch (err) {
            toast.error(err);
            throw err;
          }
        }}
      >
        {t('eraseText', { name })}
      </ConfirmationDialog>
    </Box>
  );
}
