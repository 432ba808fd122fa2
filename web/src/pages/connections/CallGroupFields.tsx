import { Controller, useWatch, type Control } from 'react-hook-form';
import {
  Box,
  FormControlLabel,
  FormHelperText,
  Grid,
  MenuItem,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { CALL_MODES, GROUP_MODES } from '@recado/contracts';
import { useTranslation } from 'react-i18next';
import { fieldErrorText } from '../../components/fieldError.js';
import type { ConnectionForm } from './connection-form.js';
import { useGapT } from './gap-i18n.js';

/** #33.4-5 The connection form's calls and groups section (Baileys connections). */
export function CallGroupFields({ control }: { control: Control<ConnectionForm> }) {
  const { t } = useGapT();
  const { t: tApp } = useTranslation();
  const callMode = useWatch({ control, name: 'callMode' });
  return (
    <Box data-testid="connection-calls-groups">
      <Typography
        variant="overline"
        color="text.secondary"
        sx={{ display: 'block', lineHeight: 1.5, mt: 0.5 }}
      >
        {t('section')}
      </Typography>
      <Grid container spacing={2} sx={{ mt: 1.25 }}>
        <Grid size={{ xs: 12, sm: 6 }}>
          <Controller
            name="groupMode"
            control={control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                fullWidth
                size="small"
                label={t('groupMode')}
                helperText={t('groupModeHelp')}
                slotProps={{ htmlInput: { 'data-testid': 'connection-group-mode' } }}
              >
                {GROUP_MODES.map((m) => (
                  <MenuItem key={m} value={m}>
                    {t(`groupModes.${m}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <Controller
            name="callMode"
            control={control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                fullWidth
                size="small"
                label={t('callMode')}
                slotProps={{ htmlInput: { 'data-testid': 'connection-call-mode' } }}
              >
                {CALL_MODES.map((m) => (
                  <MenuItem key={m} value={m}>
                    {t(`callModes.${m}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Grid>
        {callMode === 'reject' ? (
          <Grid size={12}>
            <Controller
              name="callRejectMessage"
              control={control}
              render={({ field, fieldState }) => (
                <TextField
                  {...field}
                  fullWidth
                  multiline
                  size="small"
                  label={t('callRejectMessage')}
                  error={Boolean(fieldState.error)}
                  helperText={
                    fieldState.error ? fieldErrorText(tApp, fieldState.error) : t('callRejectMessageHelp')
                  }
                />
              )}
            />
          </Grid>
        ) : null}
        <Grid size={12}>
          <Controller
            name="callOpensTicket"
            control={control}
            render={({ field }) => (
              <FormControlLabel
                control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
                label={t('callOpensTicket')}
              />
            )}
          />
          <FormHelperText sx={{ mt: -0.5 }}>{t('callOpensTicketHelp')}</FormHelperText>
        </Grid>
      </Grid>
    </Box>
  );
}
