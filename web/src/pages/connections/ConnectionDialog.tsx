import { useEffect, useMemo, useState } from 'react';
import { Controller, useForm, useWatch, type Control, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Box,
  Button,
  FormControlLabel,
  Grid,
  IconButton,
  InputAdornment,
  MenuItem,
  Switch,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.js';
import { CHANNEL_KINDS, type Whatsapp, SECRET_MASK } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSaveWhatsapp } from '../../api/whatsapps.js';
import { useConnectionToken, useRegenerateToken } from '../../api/external-api.js';
import { useAuth } from '../../app/auth.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { useQueues } from '../../api/queues.js';
import { QueueMultiSelect } from '../queues/QueueSelect.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { ChannelChip } from './ConnectionStatus.js';
import { OutOfHoursWarning } from '../../components/OutOfHoursWarning.js';
import {
  CLOUD_SECRETS,
  MESSAGE_FIELDS,
  NUMBER_FIELDS,
  cloudConfig,
  formValues,
  isMasked,
  makeSchema,
  type CloudSecret,
  type ConnectionForm,
} from './connection-form.js';
import { CallGroupFields } from './CallGroupFields.js';
import { TelegramFields } from './TelegramFields.js';
import { MetaFields } from './MetaFields.js';
import { CopyAdornment } from './CopyAdornment.js';
import { metaChannelConfig } from './meta-form.js';
import { telegramChannelConfig } from './telegram-form.js';
import { WebchatFields } from './WebchatFields.js';
import { webchatChannelConfig } from './webchat-form.js';

function SectionTitle({ children }: { children: string }) {
  return (
    <Typography variant="overline" color="text.secondary" sx={{ display: 'block', lineHeight: 1.5, mt: 0.5 }}>
      {children}
    </Typography>
  );
}

function TextInput({
  control,
  name,
  label,
  helper,
  ...rest
}: {
  control: Control<ConnectionForm>;
  name: keyof ConnectionForm;
  label: string;
  helper?: string;
  type?: string;
  multiline?: boolean;
  required?: boolean;
  autoFocus?: boolean;
  placeholder?: string;
  autoComplete?: string;
  inputMode?: 'numeric' | 'url' | 'text';
}) {
  const { t } = useTranslation();
  const { inputMode, ...props } = rest;
  return (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          value={field.value as string}
          {...props}
          label={label}
          minRows={props.multiline ? 2 : undefined}
          maxRows={props.multiline ? 6 : undefined}
          error={Boolean(fieldState.error)}
          helperText={fieldErrorText(t, fieldState.error, { value: field.value }) ?? helper}
          slotProps={{ htmlInput: { inputMode, 'data-field': name } }}
        />
      )}
    />
  );
}

/**
 * The connection's external API token (docs/product.md#entities `token`; docs/external-api.md), admins only: masked until
 * shown, copied, or replaced by a new one after a confirmation (the old one stops working at once).
 */
function ApiTokenField({ whatsappId }: { whatsappId: number }) {
  const { t } = useTranslation();
  const toast = useToast();
  const revealed = useConnectionToken(whatsappId, true);
  const regenerate = useRegenerateToken();
  const [visible, setVisible] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const token = revealed.data?.token ?? '';
  const hidden = revealed.data && !revealed.data.token;
  return (
    <Box data-testid="connection-api-token">
      <SectionTitle>{t('connections.apiToken.section')}</SectionTitle>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexWrap: 'wrap', mt: 1.25 }}>
        <TextField
          sx={{ flex: '1 1 280px' }}
          label={t('connections.apiToken.label')}
          value={visible ? token : token ? SECRET_MASK : ''}
          helperText={
            !hidden
              ? t('connections.apiToken.help')
              : revealed.data?.hasToken
                ? t('connections.apiToken.hidden')
                : t('connections.apiToken.none')
          }
          slotProps={{
            htmlInput: { 'data-testid': 'api-token-value', spellCheck: false },
            input: {
              readOnly: true,
              endAdornment: token ? (
                <InputAdornment position="end">
                  <Tooltip title={t(visible ? 'connections.apiToken.hide' : 'connections.apiToken.show')}>
                    <IconButton
                      size="small"
                      aria-label={t(visible ? 'connections.apiToken.hide' : 'connections.apiToken.show')}
                      onClick={() => setVisible((v) => !v)}
                    >
                      {visible ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
                    </IconButton>
                  </Tooltip>
                  <Tooltip title={t('connections.apiToken.copy')}>
                    <IconButton
                      size="small"
                      edge="end"
                      aria-label={t('connections.apiToken.copy')}
                      onClick={() =>
                        void navigator.clipboard
                          ?.writeText(token)
                          .then(() => toast.info('connections.apiToken.copied'))
                      }
                    >
                      <ContentCopyIcon fontSize="small" />
                    </IconButton>
                  </Tooltip>
                </InputAdornment>
              ) : null,
            },
          }}
        />
        <Button
          variant="outlined"
          startIcon={<AutorenewIcon />}
          disabled={regenerate.isPending || revealed.isLoading}
          onClick={() => setConfirming(true)}
          sx={{ mt: 1 }}
        >
          {t('connections.apiToken.regenerate')}
        </Button>
      </Box>
      <ConfirmationDialog
        open={confirming}
        title={t('connections.apiToken.confirmTitle')}
        onClose={() => setConfirming(false)}
        confirmLabel={t('connections.apiToken.regenerate')}
        onConfirm={async () => {
          try {
            await regenerate.mutateAsync(whatsappId);
            setVisible(true);
            toast.success('connections.apiToken.regenerated');
          } catch (err) {
            toast.error(err);
            throw err;
          }
        }}
      >
        {t('connections.apiToken.confirmMessage')}
      </ConfirmationDialog>
    </Box>
  );
}

/** Add or edit a connection, with the queues its customers choose from. */
export function ConnectionDialog({
  open,
  whatsapp,
  onClose,
}: {
  open: boolean;
  whatsapp: Whatsapp | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const { user } = useAuth();
  const admin = user?.profile === 'admin' || Boolean(user?.super);
  const save = useSaveWhatsapp();
  const initial = useMemo(() => formValues(whatsapp), [whatsapp]);
  const stored = useMemo(
    () => new Set(CLOUD_SECRETS.filter((k) => isMasked(whatsapp?.channelConfig?.[k]))),
    [whatsapp],
  );
  const queues = useQueues(open);
  const { control, handleSubmit, reset, setError, formState } = useForm<ConnectionForm>({
    resolver: zodResolver(makeSchema(stored)) as unknown as Resolver<ConnectionForm>,
    defaultValues: initial,
  });
  const channel = useWatch({ control, name: 'channel' });
  const outOfHoursMessage = useWatch({ control, name: 'outOfHoursMessage' });

  useEffect(() => {
    if (open) reset(initial);
  }, [open, initial, reset]);

  const submit = handleSubmit(async (values) => {
    const base = {
      name: values.name.trim(),
      isDefault: values.isDefault,
      ...Object.fromEntries(MESSAGE_FIELDS.map((k) => [k, values[k]])),
      expiresTicket: Number(values.expiresTicket),
      timeUseBotQueues: Number(values.timeUseBotQueues),
      maxUseBotQueues: Number(values.maxUseBotQueues),
      // #33.4-5 Calls and groups.
      groupMode: values.groupMode,
      callMode: values.callMode,
      callRejectMessage: values.callRejectMessage,
      callOpensTicket: values.callOpensTicket,
      // Queues deleted since the connection was read are dropped rather than refused by the server.
      queueIds: queues.data
        ? values.queueIds.filter((id) => queues.data.some((q) => q.id === id))
        : values.queueIds,
    };
    const config =
      values.channel === 'cloud_api'
        ? cloudConfig(values, initial, Boolean(whatsapp))
        : values.channel === 'webchat'
          ? webchatChannelConfig(values.webchat)
          : values.channel === 'telegram'
            ? telegramChannelConfig(values.telegram)
            : values.channel === 'instagram' || values.channel === 'messenger'
              ? metaChannelConfig(values.channel, values.meta, whatsapp ? initial.meta : undefined)
              : undefined;
    try {
      if (whatsapp)
        await save.mutateAsync({
          id: whatsapp.id,
          input: { ...base, ...(config ? { channelConfig: config } : {}) },
        });
      else
        await save.mutateAsync({
          input: { ...base, channel: values.channel, ...(config ? { channelConfig: config } : {}) },
        });
      toast.success('connections.saved');
      onClose();
    } catch (err) {
      // The plan's connection limit answers ERR_NO_PERMISSION: say which limit it is.
      if (!whatsapp && err instanceof ApiError && err.code === 'ERR_NO_PERMISSION')
        toast.warning('connections.planLimit');
      else {
        if (err instanceof ApiError && err.code === 'ERR_WAPP_GREETING_REQUIRED')
          setError('greetingMessage', { type: 'custom', message: 'errors.ERR_WAPP_GREETING_REQUIRED' });
        // Only the Graph base URL is a URL the server calls: a private or tricked one is refused.
        if (err instanceof ApiError && err.code === 'ERR_URL_NOT_ALLOWED')
          setError(
            values.channel === 'instagram' || values.channel === 'messenger'
              ? 'meta.graphBaseUrl'
              : 'graphBaseUrl',
            { type: 'custom', message: 'errors.ERR_URL_NOT_ALLOWED' },
          );
        toast.error(err);
      }
    }
  });

  const webhookUrl = whatsapp ? `${window.location.origin}/api/webhooks/cloud-api/${whatsapp.id}` : '';
  const secretHelper = (key: CloudSecret, fallback?: string) =>
    stored.has(key) ? t('connections.cloud.secretKept') : fallback;

  return (
    <FormDialog
      open={open}
      title={t(whatsapp ? 'connections.editTitle' : 'connections.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth="md"
    >
      <Grid container spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Grid size={{ xs: 12, sm: whatsapp ? 8 : 5 }}>
          <TextInput control={control} name="name" label={t('connections.form.name')} required autoFocus />
        </Grid>
        {whatsapp ? null : (
          <Grid size={{ xs: 12, sm: 4 }}>
            <Controller
              name="channel"
              control={control}
              render={({ field }) => (
                <TextField
                  {...field}
                  select
                  label={t('connections.form.channel')}
                  helperText={t(`connections.channelHelp.${field.value}`)}
                  slotProps={{ htmlInput: { 'data-field': 'channel' } }}
                >
                  {CHANNEL_KINDS.map((c) => (
                    <MenuItem key={c} value={c}>
                      {t(`connections.channels.${c}`)}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            />
          </Grid>
        )}
        <Grid
          size={{ xs: 12, sm: whatsapp ? 4 : 3 }}
          sx={{ display: 'flex', alignItems: 'center', gap: 1, minHeight: 40 }}
        >
          {whatsapp ? <ChannelChip channel={whatsapp.channel} /> : null}
          <Controller
            name="isDefault"
            control={control}
            render={({ field }) => (
              <FormControlLabel
                sx={{ ml: 0 }}
                control={
                  <Switch
                    checked={field.value}
                    onChange={(_e, checked) => field.onChange(checked)}
                    name={field.name}
                  />
                }
                label={t('connections.form.isDefault')}
              />
            )}
          />
        </Grid>
      </Grid>

      {channel === 'cloud_api' ? (
        <Box>
          <SectionTitle>{t('connections.form.cloudSection')}</SectionTitle>
          <Grid container spacing={2} sx={{ mt: 1.25 }}>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput
                control={control}
                name="phoneNumberId"
                label={t('connections.cloud.phoneNumberId')}
                helper={t('connections.cloud.phoneNumberIdHelp')}
                inputMode="numeric"
                required
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput
                control={control}
                name="businessAccountId"
                label={t('connections.cloud.businessAccountId')}
                helper={t('connections.cloud.businessAccountIdHelp')}
                inputMode="numeric"
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput
                control={control}
                name="graphBaseUrl"
                label={t('connections.cloud.graphBaseUrl')}
                placeholder="https://graph.facebook.com"
                helper={t('connections.cloud.graphBaseUrlHelp')}
                inputMode="url"
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput
                control={control}
                name="accessToken"
                type="password"
                autoComplete="new-password"
                label={t('connections.cloud.accessToken')}
                placeholder={stored.has('accessToken') ? SECRET_MASK : undefined}
                helper={secretHelper('accessToken')}
                required={!stored.has('accessToken')}
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput
                control={control}
                name="appSecret"
                type="password"
                autoComplete="new-password"
                label={t('connections.cloud.appSecret')}
                placeholder={stored.has('appSecret') ? SECRET_MASK : undefined}
                helper={secretHelper('appSecret')}
                required={!stored.has('appSecret')}
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput
                control={control}
                name="verifyToken"
                autoComplete="off"
                label={t('connections.cloud.verifyToken')}
                placeholder={stored.has('verifyToken') ? SECRET_MASK : undefined}
                helper={secretHelper('verifyToken', t('connections.cloud.verifyTokenHelp'))}
              />
            </Grid>
            {whatsapp ? (
              <Grid size={{ xs: 12, sm: 6 }}>
                <TextField
                  label={t('connections.cloud.webhookUrl')}
                  value={webhookUrl}
                  helperText={t('connections.cloud.webhookUrlHelp')}
                  slotProps={{
                    input: {
                      readOnly: true,
                      endAdornment: <CopyAdornment value={webhookUrl} />,
                    },
                  }}
                />
              </Grid>
            ) : null}
          </Grid>
        </Box>
      ) : null}

      {channel === 'instagram' || channel === 'messenger' ? (
        <MetaFields
          control={control}
          channel={channel}
          whatsapp={whatsapp}
          stored={{ token: initial.meta.storedToken, secret: initial.meta.storedSecret }}
        />
      ) : null}
      {channel === 'telegram' ? (
        <TelegramFields control={control} whatsapp={whatsapp} stored={initial.telegram.stored} />
      ) : null}
      <Controller
        name="queueIds"
        control={control}
        render={({ field }) => (
          <QueueMultiSelect
            queues={queues.data ?? []}
            value={field.value}
            onChange={field.onChange}
            label={t('connections.form.queues')}
            helperText={t('connections.form.queuesHelp')}
          />
        )}
      />

      <Box>
        <SectionTitle>{t('connections.form.messagesSection')}</SectionTitle>
        <Grid container spacing={2} sx={{ mt: 1.25 }}>
          {MESSAGE_FIELDS.map((k) => (
            <Grid key={k} size={{ xs: 12, sm: k === 'greetingMessage' ? 12 : 6 }}>
              <TextInput
                control={control}
                name={k}
                multiline
                label={t(`connections.form.${k}`)}
                helper={t(`connections.form.${k}Help`)}
              />
            </Grid>
          ))}
          <Grid size={12}>
            <OutOfHoursWarning message={outOfHoursMessage ?? ''} />
          </Grid>
        </Grid>
      </Box>

      <Box>
        <SectionTitle>{t('connections.form.botSection')}</SectionTitle>
        <Grid container spacing={2} sx={{ mt: 1.25 }}>
          {(Object.keys(NUMBER_FIELDS) as (keyof typeof NUMBER_FIELDS)[]).map((k) => (
            <Grid key={k} size={{ xs: 12, sm: 4 }}>
              <TextInput
                control={control}
                name={k}
                inputMode="numeric"
                label={t(`connections.form.${k}`)}
                helper={t(`connections.form.${k}Help`)}
              />
            </Grid>
          ))}
        </Grid>
      </Box>

      {channel === 'baileys' ? <CallGroupFields control={control} /> : null}
      {channel === 'webchat' ? <WebchatFields control={control} whatsapp={whatsapp} /> : null}

      {whatsapp && admin ? <ApiTokenField whatsappId={whatsapp.id} /> : null}
    </FormDialog>
  );
}

export default ConnectionDialog;
