import { useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  FormControlLabel,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { DEFAULT_OPT_OUT_WORD, type PrivacySettingsInput } from '@recado/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import {
  privacyKeys,
  usePrivacySettings,
  useRetentionPreview,
  useSavePrivacySettings,
} from '../../api/privacy.js';
import { useToast } from '../../app/useToast.js';
import { usePrivacyT } from './privacy-i18n.js';
import { CompanyExportSection } from '../company-transfer/CompanyExportSection.js';

interface Form {
  consentRequired: boolean;
  consentText: string;
  optOutWord: string;
  mediaRetentionDays: string;
  ticketRetentionMonths: string;
}

const num = (s: string) => (s.trim() === '' ? null : Number(s));

/** #35 Settings → Privacy (admins): consent, the opt-out word, retention and what its next run touches. */
export function PrivacySettingsTab() {
  const { t } = usePrivacyT();
  const toast = useToast();
  const client = useQueryClient();
  const settings = usePrivacySettings();
  const preview = useRetentionPreview();
  const save = useSavePrivacySettings();
  const [form, setForm] = useState<Form | null>(null);
  const [running, setRunning] = useState(false);

  useEffect(() => {
    if (settings.data && !form)
      setForm({
        consentRequired: settings.data.consentRequired,
        consentText: settings.data.consentText,
        optOutWord: settings.data.optOutWord || DEFAULT_OPT_OUT_WORD,
        mediaRetentionDays: settings.data.mediaRetentionDays?.toString() ?? '',
        ticketRetentionMonths: settings.data.ticketRetentionMonths?.toString() ?? '',
      });
  }, [settings.data, form]);

  if (!form) return <CircularProgress size={24} aria-label={t('common.loading')} />;
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setForm({ ...form, [k]: v });
  const days = num(form.mediaRetentionDays);
  const months = num(form.ticketRetentionMonths);
  const daysBad = days !== null && (!Number.isInteger(days) || days < 1 || days > 3650);
  const monthsBad = months !== null && (!Number.isInteger(months) || months < 1 || months > 120);
  const wordBad = !/^\S{1,30}$/.test(form.optOutWord.trim());

  const submit = () => {
    const input: PrivacySettingsInput = {
      consentRequired: form.consentRequired,
      consentText: form.consentText.trim(),
      optOutWord: form.optOutWord.trim(),
      mediaRetentionDays: days,
      ticketRetentionMonths: months,
    };
    save.mutate(input, {
      onSuccess: () => toast.success('privacy:settings.saved'),
      onError: (e) => toast.error(e),
    });
  };

  const runNow = async () => {
    setRunning(true);
    try {
      const r = await api.post<{ media: number; tickets: number }>('/privacy/retention/run');
      toast.success('privacy:settings.ran', { media: r.media, tickets: r.tickets });
      await client.invalidateQueries({ queryKey: privacyKeys.preview });
    } catch (err) {
      toast.error(err);
    } finally {
      setRunning(false);
    }
  };

  const p = preview.data;
  const retentionOn =
    settings.data?.mediaRetentionDays != null || settings.data?.ticketRetentionMonths != null;
  return (
    <Stack spacing={2.5} sx={{ maxWidth: 640 }} data-testid="privacy-settings">
      <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
        {t('settings.consentTitle')}
      </Typography>
      <Box>
        <FormControlLabel
          control={
            <Switch
              checked={form.consentRequired}
              onChange={(e) => set('consentRequired', e.target.checked)}
              slotProps={{ input: { 'data-testid': 'privacy-consent-required' } as object }}
            />
          }
          label={t('settings.consentRequired')}
        />
        <Typography variant="caption" color="text.secondary" component="div">
          {t('settings.consentRequiredHint')}
        </Typography>
      </Box>
      <TextField
        label={t('settings.consentText')}
        value={form.consentText}
        onChange={(e) => set('consentText', e.target.value)}
        multiline
        minRows={2}
        maxRows={6}
        helperText={t('settings.consentTextHint')}
        slotProps={{ htmlInput: { maxLength: 1000, 'data-testid': 'privacy-consent-text' } }}
      />
      <TextField
        label={t('settings.optOutWord')}
        value={form.optOutWord}
        onChange={(e) => set('optOutWord', e.target.value)}
        error={wordBad}
        helperText={t('settings.optOutWordHint')}
        slotProps={{ htmlInput: { maxLength: 30, 'data-testid': 'privacy-opt-out-word' } }}
        sx={{ maxWidth: 280 }}
      />
      <Typography variant="subtitle1" sx={{ fontWeight: 600, pt: 1 }}>
        {t('settings.retentionTitle')}
      </Typography>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
        <TextField
          label={t('settings.mediaDays')}
          value={form.mediaRetentionDays}
          onChange={(e) => set('mediaRetentionDays', e.target.value.replace(/\D/g, ''))}
          error={daysBad}
          helperText={t('settings.keep')}
          slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'privacy-media-days' } }}
          sx={{ flex: '1 1 220px' }}
        />
        <TextField
          label={t('settings.ticketMonths')}
          value={form.ticketRetentionMonths}
          onChange={(e) => set('ticketRetentionMonths', e.target.value.replace(/\D/g, ''))}
          error={monthsBad}
          helperText={t('settings.keep')}
          slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'privacy-ticket-months' } }}
          sx={{ flex: '1 1 220px' }}
        />
      </Box>
      <Alert severity="info" variant="outlined" data-testid="privacy-preview">
        {!p ? (
          <CircularProgress size={16} />
        ) : !retentionOn ? (
          t('settings.previewOff')
        ) : (
          <>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {t('settings.previewTitle')}
            </Typography>
            <Typography variant="body2" data-testid="privacy-preview-media">
              {t('settings.previewMedia', { count: p.media })}
            </Typography>
            <Typography variant="body2" data-testid="privacy-preview-tickets">
              {t('settings.previewTickets', { count: p.tickets, messages: p.ticketMessages })}
            </Typography>
          </>
        )}
      </Alert>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button
          variant="contained"
          onClick={submit}
          disabled={save.isPending || daysBad || monthsBad || wordBad}
          data-testid="privacy-save"
        >
          {t('settings.save')}
        </Button>
        {retentionOn ? (
          <Button
            variant="outlined"
            onClick={() => void runNow()}
            disabled={running}
            data-testid="privacy-run"
          >
            {t('settings.runNow')}
          </Button>
        ) : null}
      </Box>
      <CompanyExportSection />
    </Stack>
  );
}
