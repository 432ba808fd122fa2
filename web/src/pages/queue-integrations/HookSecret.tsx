import { useState } from 'react';
import { Box, Button, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { regenerateHookSecret, revealHookSecret } from '../../api/queue-integrations.js';
import { useToast } from '../../app/useToast.js';

/**
 * The secret an n8n / webhook integration signs its POSTs with (docs/automation.md): shown on request to
 * admins, regenerated on request. The receiver checks `X-Recado-Signature` with it (docs/webhooks.md#signature).
 */
export function HookSecret({ integrationId }: { integrationId: number }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [secret, setSecret] = useState<string | null>(null);
  const run = async (regenerate: boolean) => {
    try {
      const answer = regenerate
        ? await regenerateHookSecret(integrationId)
        : await revealHookSecret(integrationId);
      setSecret(answer.secret);
      if (regenerate) toast.success('queueIntegrations.form.secretRegenerated');
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }} data-testid="hook-secret">
      <Typography variant="body2" color="text.secondary">
        {t('queueIntegrations.form.secretHelp')}
      </Typography>
      {secret ? (
        <TextField
          label={t('queueIntegrations.form.secret')}
          value={secret}
          size="small"
          fullWidth
          slotProps={{ input: { readOnly: true } }}
        />
      ) : null}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        <Button variant="outlined" onClick={() => void run(false)}>
          {t('queueIntegrations.form.secretReveal')}
        </Button>
        <Button variant="outlined" color="warning" onClick={() => void run(true)}>
          {t('queueIntegrations.form.secretRegenerate')}
        </Button>
      </Box>
    </Box>
  );
}
