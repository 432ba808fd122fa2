import { useEffect, useState } from 'react';
import { Alert, Box, CircularProgress, Grid, InputAdornment, MenuItem, TextField } from '@mui/material';
import { useSnackbar } from 'notistack';
import { useTranslation } from 'react-i18next';
import {
  SETTING_DEFAULTS,
  SETTING_KEYS,
  SETTING_VALUES,
  SUPER_ONLY_SETTINGS,
  BOT_TEXT_DEFAULTS,
  BOT_TEXT_KEYS,
  companyLanguage,
  can,
  type BotTextKey,
  isSuper,
  type SettingKey,
} from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useSettings, useUpdateSetting } from '../../api/settings.js';
import { OutOfHoursWarning } from '../../components/OutOfHoursWarning.js';

/** Time zones offered for business hours: Brazil first, then Latin America. */
export const TIME_ZONES = [
  'America/Sao_Paulo',
  'America/Bahia',
  'America/Fortaleza',
  'America/Recife',
  'America/Belem',
  'America/Maceio',
  'America/Araguaina',
  'America/Manaus',
  'America/Cuiaba',
  'America/Campo_Grande',
  'America/Porto_Velho',
  'America/Boa_Vista',
  'America/Rio_Branco',
  'America/Noronha',
  'America/Argentina/Buenos_Aires',
  'America/Montevideo',
  'America/Asuncion',
  'America/Santiago',
  'America/La_Paz',
  'America/Lima',
  'America/Bogota',
  'America/Guayaquil',
  'America/Caracas',
  'America/Panama',
  'America/Mexico_City',
  'UTC',
] as const;

/** Shown in this order; the rest of SETTING_DEFAULTS follows. */
const ORDER: SettingKey[] = [
  'userRating',
  'scheduleType',
  'call',
  'CheckMsgIsGroup',
  'sendGreetingAccepted',
  'sendMsgTransfTicket',
  'sendGreetingMessageOneQueues',
  'chatBotType',
  'sideMenuOpen',
  'campaignsEnabled',
  'timezone',
  'language',
  'asaas',
];
const isBotText = (k: SettingKey): k is BotTextKey => (BOT_TEXT_KEYS as readonly string[]).includes(k);
const KEYS = [...ORDER, ...SETTING_KEYS.filter((k) => !ORDER.includes(k))];

function useSaveSetting(key: SettingKey) {
  const save = useUpdateSetting();
  const toast = useToast();
  const { t } = useTranslation();
  const { enqueueSnackbar } = useSnackbar();
  const run = async (value: string) => {
    try {
      await save.mutateAsync({ key, value });
      // docs/product.md#constants: the schedule type toast stays 2 s, the others 3 s.
      if (key === 'scheduleType')
        enqueueSnackbar(t('settings.options.saved'), { variant: 'success', autoHideDuration: 2000 });
      else toast.success('settings.options.saved');
    } catch (err) {
      toast.error(err);
    }
  };
  return { run, pending: save.isPending, pendingValue: save.isPending ? save.variables?.value : undefined };
}

function SettingField({
  settingKey,
  value,
  disabled,
  language,
}: {
  settingKey: SettingKey;
  value: string;
  disabled: boolean;
  language: string;
}) {
  const { t } = useTranslation();
  const { run, pending, pendingValue } = useSaveSetting(settingKey);
  const shown = pendingValue ?? value;
  const label = t(`settings.keys.${settingKey}`);
  const helperText = t(`settings.help.${settingKey}`);
  const spinner = pending ? (
    <InputAdornment position="end" sx={{ mr: 2 }}>
      <CircularProgress size={16} />
    </InputAdornment>
  ) : undefined;

  const allowed = SETTING_VALUES[settingKey];
  if (allowed || settingKey === 'timezone') {
    const options: readonly string[] =
      allowed ?? (TIME_ZONES.includes(shown as never) ? TIME_ZONES : [shown, ...TIME_ZONES]);
    return (
      <TextField
        select
        id={`setting-${settingKey}`}
        name={settingKey}
        label={label}
        helperText={helperText}
        value={shown}
        disabled={disabled}
        onChange={(e) => {
          if (e.target.value !== value) void run(e.target.value);
        }}
        slotProps={{ input: { endAdornment: spinner } }}
      >
        {options.map((v) => (
          <MenuItem key={v} value={v}>
            {allowed ? t(`settings.values.${settingKey}.${v}`) : v.replace(/_/g, ' ')}
          </MenuItem>
        ))}
      </TextField>
    );
  }
  return (
    <TextSetting
      settingKey={settingKey}
      value={value}
      disabled={disabled}
      label={label}
      helperText={helperText}
      fallback={isBotText(settingKey) ? BOT_TEXT_DEFAULTS[companyLanguage(language)][settingKey] : undefined}
    />
  );
}

/**
 * Free text (the payment gateway token, the bot's texts): saved when the field loses focus or on Enter
 * (Ctrl+Enter for the bot's texts, which may hold several lines). A bot text shows its default in the
 * company's language while the company has none of its own; saving that default (or nothing) stores "".
 */
function TextSetting({
  settingKey,
  value,
  disabled,
  label,
  helperText,
  fallback,
}: {
  settingKey: SettingKey;
  value: string;
  disabled: boolean;
  label: string;
  helperText: string;
  fallback?: string;
}) {
  const { run, pending } = useSaveSetting(settingKey);
  const shown = fallback !== undefined && !value.trim() ? fallback : value;
  const [draft, setDraft] = useState(shown);
  useEffect(() => setDraft(shown), [shown]);
  const commit = () => {
    const next = fallback !== undefined && draft.trim() === fallback ? '' : draft.trim();
    if (next !== value) void run(next);
  };
  return (
    <TextField
      id={`setting-${settingKey}`}
      name={settingKey}
      label={label}
      helperText={helperText}
      value={draft}
      disabled={disabled}
      autoComplete="off"
      onChange={(e) => setDraft(e.target.value)}
      onBlur={commit}
      multiline={fallback !== undefined}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && (fallback === undefined || e.ctrlKey || e.metaKey)) commit();
      }}
      slotProps={{
        input: {
          endAdornment: pending ? (
            <InputAdornment position="end">
              <CircularProgress size={16} />
            </InputAdornment>
          ) : undefined,
        },
      }}
    />
  );
}

/** docs/product.md#screens settings, options tab: one select per setting, saved as soon as it changes. */
export function OptionsTab() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { data, isError } = useSettings();
  const manage = can(user, 'settings:manage');
  const superUser = isSuper(user);
  const values = new Map(data?.map((s) => [s.key, s.value]));
  const keys = KEYS.filter((k) => superUser || !SUPER_ONLY_SETTINGS.includes(k));

  return (
    <Box>
      {!manage ? (
        <Alert severity="info" sx={{ mb: 2 }}>
          {t('settings.options.adminOnly')}
        </Alert>
      ) : null}
      {isError ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {t('settings.options.loadError')}
        </Alert>
      ) : null}
      <Box sx={{ mb: 2 }}>
        <OutOfHoursWarning />
      </Box>
      <Grid container spacing={2.5}>
        {keys.map((key) => (
          <Grid key={key} size={isBotText(key) ? { xs: 12, lg: 6 } : { xs: 12, sm: 6, lg: 4 }}>
            <SettingField
              settingKey={key}
              language={values.get('language') ?? SETTING_DEFAULTS.language}
              value={values.get(key) ?? SETTING_DEFAULTS[key]}
              disabled={!manage || (SUPER_ONLY_SETTINGS.includes(key) && !superUser)}
            />
          </Grid>
        ))}
      </Grid>
    </Box>
  );
}
