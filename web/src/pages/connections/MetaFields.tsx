import { Controller, type Control } from 'react-hook-form';
import { Box, Grid, TextField, Typography } from '@mui/material';
import { SECRET_MASK, type Whatsapp } from '@recado/contracts';
import { useTranslation } from 'react-i18next';
import { fieldErrorText } from '../../components/fieldError.js';
import type { ConnectionForm } from './connection-form.js';
import { CopyAdornment } from './CopyAdornment.js';
import { SetupSteps } from './SetupSteps.js';
import type { MetaForm } from './meta-form.js';
import { useMetaT } from './meta-i18n.js';

type Field = Exclude<keyof MetaForm, 'storedToken' | 'storedSecret'>;

/**
 * #34 The connection form's Instagram / Messenger section: the account id, the page token and app secret
 * (masked once saved), the verify token and the webhook URL to paste into Meta's dashboard, and the steps.
 */
export function MetaFields({
  control,
  channel,
  whatsapp,
  stored,
}: {
  control: Control<ConnectionForm>;
  channel: 'instagram' | 'messenger';
  whatsapp: Whatsapp | null;
  stored: { token: boolean; secret: boolean };
}) {
  const { t } = useMetaT();
  const { t: tApp } = useTranslation();
  const steps = t(`steps.${channel}`, { returnObjects: true }) as unknown as string[];
  const webhookUrl = whatsapp ? `${window.location.origin}/api/webhooks/meta/${whatsapp.id}` : '';

  const input = (
    name: Field,
    label: string,
    helper: string | undefined,
    extra: { secret?: boolean; kept?: boolean; required?: boolean; copy?: boolean; numeric?: boolean } = {},
  ) => (
    <Controller
      name={`meta.${name}`}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          value={field.value as string}
          fullWidth
          label={label}
          required={extra.required}
          type={extra.secret ? 'password' : 'text'}
          autoComplete={extra.secret ? 'new-password' : 'off'}
          placeholder={extra.kept ? SECRET_MASK : undefined}
          error={Boolean(fieldState.error)}
          helperText={fieldErrorText(tApp, fieldState.error, { value: field.value }) ?? helper}
          slotProps={{
            htmlInput: { 'data-field': `meta.${name}`, ...(extra.numeric ? { inputMode: 'numeric' } : {}) },
            ...(extra.copy && field.value
              ? { input: { endAdornment: <CopyAdornment value={field.value as string} /> } }
              : {}),
          }}
        />
      )}
    />
  );

  return (
    <Box data-section={channel}>
      <Typography variant="subtitle2" component="h3" color="text.secondary">
        {t(`section.${channel}`)}
      </Typography>
      <Grid container spacing={2} sx={{ mt: 1.25 }}>
        <Grid size={{ xs: 12, sm: 6 }}>
          {input('accountId', t(`accountId.${channel}`), t(`accountIdHelp.${channel}`), {
            required: true,
            numeric: true,
          })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {input('graphBaseUrl', t('graphBaseUrl'), t('graphBaseUrlHelp'))}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {input('pageAccessToken', t('pageAccessToken'), stored.token ? t('secretKept') : undefined, {
            secret: true,
            kept: stored.token,
            required: !stored.token,
          })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {input('appSecret', t('appSecret'), stored.secret ? t('secretKept') : undefined, {
            secret: true,
            kept: stored.secret,
            required: !stored.secret,
          })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {input('verifyToken', t('verifyToken'), t('verifyTokenHelp'), { copy: true })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <TextField
            fullWidth
            label={t('webhookUrl')}
            value={webhookUrl}
            helperText={whatsapp ? t('webhookUrlHelp') : t('webhookAfterSave')}
            slotProps={{
              input: {
                readOnly: true,
                ...(webhookUrl ? { endAdornment: <CopyAdornment value={webhookUrl} /> } : {}),
              },
              htmlInput: { 'data-field': 'meta.webhookUrl' },
            }}
          />
        </Grid>
        <Grid size={12}>
          <SetupSteps title={t('stepsTitle')} steps={steps} note={t('window')} />
        </Grid>
      </Grid>
    </Box>
  );
}
