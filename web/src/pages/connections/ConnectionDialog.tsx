import { useEffect, useMemo } from 'react';
import { Controller, useForm, useWatch, type Control, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Box,
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
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.js';
import { CHANNEL_KINDS, type Whatsapp, SECRET_MASK } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSaveWhatsapp } from '../../api/whatsapps.js';
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
      token: values.token.trim(),
      expiresTicket: Number(values.expiresTicket),
      timeUseBotQueues: Number(values.timeUseBotQueues),
      maxUseBotQueues: Number(values.maxUseBotQueues),
      // Queues deleted since the connection was read are dropped rather than refused by the server.
      queueIds: queues.data
        ? values.queueIds.filter((id) => queues.data.some((q) => q.id === id))
        : values.queueIds,
    };
    const config =
      values.channel === 'cloud_api' ? cloudConfig(values, initial, Boolean(whatsapp)) : undefined;
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
          setError('graphBaseUrl', { type: 'custom', message: 'errors.ERR_URL_NOT_ALLOWED' });
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
                      endAdornment: (
                        <InputAdornment position="end">
                          <Tooltip title={t('connections.cloud.copy')}>
                            <IconButton
                              size="small"
                              edge="end"
                              aria-label={t('connections.cloud.copy')}
                              onClick={() =>
                                void navigator.clipboard
                                  ?.writeText(webhookUrl)
                                  .then(() => toast.info('connections.cloud.copied'))
                              }
                            >
                              <ContentCopyIcon fontSize="small" />
                            </IconButton>
                          </Tooltip>
                        </InputAdornment>
                      ),
                    },
                  }}
                />
              </Grid>
            ) : null}
          </Grid>
        </Box>
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
          <Grid size={12}>
            <TextInput
              control={control}
              name="token"
              autoComplete="off"
              label={t('connections.form.token')}
              helper={t('connections.form.tokenHelp')}
            />
          </Grid>
        </Grid>
      </Box>
    </FormDialog>
  );
}

export default ConnectionDialog;
