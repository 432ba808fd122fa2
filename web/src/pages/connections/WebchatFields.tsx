import { Controller, useWatch, type Control } from 'react-hook-form';
import {
  Box,
  Button,
  FormControlLabel,
  FormHelperText,
  Grid,
  MenuItem,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import type { Whatsapp } from '@recado/contracts';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../app/useToast.js';
import { fieldErrorText } from '../../components/fieldError.js';
import type { ConnectionForm } from './connection-form.js';
import { widgetSnippet } from './webchat-form.js';
import { useWebchatT } from './webchat-i18n.js';

type Name = `webchat.${'color' | 'title' | 'greeting' | 'allowedOrigins' | 'consentText'}`;

/** #34.1 The connection form's website chat section: looks, allowed sites, forms, and the snippet to paste. */
export function WebchatFields({
  control,
  whatsapp,
}: {
  control: Control<ConnectionForm>;
  whatsapp: Whatsapp | null;
}) {
  const { t } = useWebchatT();
  const { t: tApp } = useTranslation();
  const toast = useToast();
  const preChat = useWatch({ control, name: 'webchat.preChatForm' });
  const publicId = whatsapp?.channel === 'webchat' ? String(whatsapp.channelConfig.publicId ?? '') : '';
  const snippet = publicId ? widgetSnippet(window.location.origin, publicId) : '';

  const text = (
    name: Name,
    label: string,
    helper?: string,
    opts: { multiline?: boolean; formatKey?: string } = {},
  ) => (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          fullWidth
          size="small"
          label={label}
          multiline={opts.multiline}
          minRows={opts.multiline ? 2 : undefined}
          maxRows={opts.multiline ? 6 : undefined}
          error={Boolean(fieldState.error)}
          helperText={
            fieldErrorText(tApp, fieldState.error, { value: field.value, formatKey: opts.formatKey }) ??
            helper
          }
          slotProps={{ htmlInput: { 'data-field': name } }}
        />
      )}
    />
  );
  const toggle = (name: 'webchat.preChatForm' | 'webchat.offlineForm', label: string, helper?: string) => (
    <Controller
      name={name}
      control={control}
      render={({ field }) => (
        <Box>
          <FormControlLabel
            sx={{ ml: 0 }}
            control={
              <Switch
                checked={field.value}
                onChange={(_e, checked) => field.onChange(checked)}
                slotProps={{ input: { 'data-field': name } as object }}
              />
            }
            label={label}
          />
          {helper ? <FormHelperText sx={{ mt: 0 }}>{helper}</FormHelperText> : null}
        </Box>
      )}
    />
  );

  return (
    <Box data-testid="connection-webchat">
      <Typography
        variant="overline"
        color="text.secondary"
        sx={{ display: 'block', lineHeight: 1.5, mt: 0.5 }}
      >
        {t('section')}
      </Typography>
      <Grid container spacing={2} sx={{ mt: 1.25 }}>
        {publicId ? (
          <Grid size={12}>
            <TextField
              fullWidth
              size="small"
              label={t('snippet')}
              value={snippet}
              helperText={t('snippetHelp')}
              multiline
              slotProps={{ input: { readOnly: true }, htmlInput: { 'data-testid': 'webchat-snippet' } }}
            />
            <Button
              size="small"
              startIcon={<ContentCopyIcon />}
              sx={{ mt: 0.5 }}
              onClick={() =>
                void navigator.clipboard.writeText(snippet).then(
                  () => toast.success('webchat:copied'),
                  () => undefined,
                )
              }
            >
              {t('copy')}
            </Button>
          </Grid>
        ) : (
          <Grid size={12}>
            <Typography variant="body2" color="text.secondary">
              {t('snippetAfterSave')}
            </Typography>
          </Grid>
        )}
        <Grid size={{ xs: 12, sm: 6 }}>{text('webchat.title', t('title'), t('titleHelp'))}</Grid>
        <Grid size={{ xs: 6, sm: 3 }}>
          {text('webchat.color', t('color'), undefined, { formatKey: 'webchat:invalidColor' })}
        </Grid>
        <Grid size={{ xs: 6, sm: 3 }}>
          <Controller
            name="webchat.position"
            control={control}
            render={({ field }) => (
              <TextField {...field} select fullWidth size="small" label={t('position')}>
                {(['right', 'left'] as const).map((p) => (
                  <MenuItem key={p} value={p}>
                    {t(`positions.${p}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Grid>
        <Grid size={12}>
          {text('webchat.greeting', t('greeting'), t('greetingHelp'), { multiline: true })}
        </Grid>
        <Grid size={12}>
          {text('webchat.allowedOrigins', t('allowedOrigins'), t('allowedOriginsHelp'), { multiline: true })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>{toggle('webchat.preChatForm', t('preChatForm'))}</Grid>
        {preChat ? (
          <Grid size={{ xs: 12, sm: 6 }}>
            <Controller
              name="webchat.preChatContact"
              control={control}
              render={({ field }) => (
                <TextField {...field} select fullWidth size="small" label={t('preChatContact')}>
                  {(['either', 'email', 'phone'] as const).map((p) => (
                    <MenuItem key={p} value={p}>
                      {t(`preChatContacts.${p}`)}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            />
          </Grid>
        ) : null}
        <Grid size={12}>{text('webchat.consentText', t('consentText'), t('consentTextHelp'))}</Grid>
        <Grid size={12}>{toggle('webchat.offlineForm', t('offlineForm'), t('offlineFormHelp'))}</Grid>
      </Grid>
    </Box>
  );
}
