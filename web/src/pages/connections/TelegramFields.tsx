import { Controller, type Control } from 'react-hook-form';
import { Box, Grid, TextField, Typography } from '@mui/material';
import { SECRET_MASK, type Whatsapp } from '@recado/contracts';
import { useTranslation } from 'react-i18next';
import { fieldErrorText } from '../../components/fieldError.js';
import type { ConnectionForm } from './connection-form.js';
import { useTelegramT } from './telegram-i18n.js';
import { SetupSteps } from './SetupSteps.js';

/** #34 The connection form's Telegram section: the bot token (masked once saved) and BotFather's steps. */
export function TelegramFields({
  control,
  whatsapp,
  stored,
}: {
  control: Control<ConnectionForm>;
  whatsapp: Whatsapp | null;
  stored: boolean;
}) {
  const { t } = useTelegramT();
  const { t: tApp } = useTranslation();
  const steps = t('steps', { returnObjects: true }) as unknown as string[];
  return (
    <Box data-section="telegram">
      <Typography
        variant="overline"
        color="text.secondary"
        sx={{ display: 'block', lineHeight: 1.5, mt: 0.5 }}
      >
        {t('section')}
      </Typography>
      <Grid container spacing={2} sx={{ mt: 1.25 }}>
        <Grid size={12}>
          <Controller
            name="telegram.botToken"
            control={control}
            render={({ field, fieldState }) => (
              <TextField
                {...field}
                fullWidth
                type="password"
                autoComplete="new-password"
                label={t('botToken')}
                required={!stored}
                placeholder={stored ? SECRET_MASK : undefined}
                error={Boolean(fieldState.error)}
                helperText={
                  fieldErrorText(tApp, fieldState.error, { value: field.value }) ??
                  (stored ? t('botTokenKept') : t('botTokenHelp'))
                }
                slotProps={{ htmlInput: { 'data-field': 'telegram.botToken' } }}
              />
            )}
          />
        </Grid>
        {whatsapp ? (
          <Grid size={12}>
            <TextField
              fullWidth
              size="small"
              label={t('webhook')}
              value={`${window.location.origin}/api/webhooks/telegram/${whatsapp.id}`}
              helperText={t('webhookHelp')}
              slotProps={{ input: { readOnly: true } }}
            />
          </Grid>
        ) : null}
        <Grid size={12}>
          <SetupSteps title={t('stepsTitle')} steps={steps} note={t('groups')} />
        </Grid>
      </Grid>
    </Box>
  );
}
