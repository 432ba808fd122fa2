import { useEffect } from 'react';
import { Controller, useForm, type Path } from 'react-hook-form';
import { useSnackbar } from 'notistack';
import { Alert, Box, Button, Grid, MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  DIALOGFLOW_LANGUAGES,
  SECRET_MASK,
  QUEUE_INTEGRATION_TYPES,
  QueueIntegrationInput,
  QueueIntegrationTestSession,
  TYPEBOT_DEFAULTS,
  type QueueIntegration,
  type QueueIntegrationType,
} from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useSaveQueueIntegration, useTestDialogflowSession } from '../../api/queue-integrations.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { IntegrationTypeAvatar } from './IntegrationTypeAvatar.js';
import { HookSecret } from './HookSecret.js';

/** The form holds every field as typed; the contract's schema (by type) decides what is valid. */
interface FormValues {
  type: QueueIntegrationType;
  name: string;
  projectName: string;
  jsonContent: string;
  language: string;
  urlN8N: string;
  typebotSlug: string;
  typebotExpires: string;
  typebotDelayMessage: string;
  typebotKeywordFinish: string;
  typebotKeywordRestart: string;
  typebotUnknownMessage: string;
  typebotRestartMessage: string;
}

const formValues = (it: QueueIntegration | null): FormValues => ({
  type: it?.type ?? 'typebot',
  name: it?.name ?? '',
  projectName: it?.type === 'dialogflow' ? it.projectName : '',
  // A stored service account is never sent to the browser: the field stays empty to keep it.
  jsonContent: '',
  language: it?.language || 'pt-BR',
  urlN8N: it?.urlN8N ?? '',
  typebotSlug: it?.typebotSlug ?? '',
  typebotExpires: String(it?.typebotExpires ?? TYPEBOT_DEFAULTS.typebotExpires),
  typebotDelayMessage: String(it?.typebotDelayMessage ?? TYPEBOT_DEFAULTS.typebotDelayMessage),
  typebotKeywordFinish: it?.typebotKeywordFinish ?? '',
  typebotKeywordRestart: it?.typebotKeywordRestart ?? '',
  typebotUnknownMessage: it?.typebotUnknownMessage ?? '',
  typebotRestartMessage: it?.typebotRestartMessage ?? '',
});

/** What the form sends for its type: only that type's fields. */
function inputOf(v: FormValues): Record<string, unknown> {
  const base = { type: v.type, name: v.name };
  switch (v.type) {
    case 'dialogflow':
      return {
        ...base,
        projectName: v.projectName,
        language: v.language,
        jsonContent: v.jsonContent.trim() ? v.jsonContent : undefined,
      };
    case 'n8n':
    case 'webhook':
      return { ...base, urlN8N: v.urlN8N };
    case 'typebot':
      return {
        ...base,
        urlN8N: v.urlN8N,
        typebotSlug: v.typebotSlug,
        typebotExpires: v.typebotExpires.trim() === '' ? undefined : v.typebotExpires,
        typebotDelayMessage: v.typebotDelayMessage.trim() === '' ? undefined : v.typebotDelayMessage,
        typebotKeywordFinish: v.typebotKeywordFinish,
        typebotKeywordRestart: v.typebotKeywordRestart,
        typebotUnknownMessage: v.typebotUnknownMessage,
        typebotRestartMessage: v.typebotRestartMessage,
      };
  }
}

const FIELD_MESSAGES: Partial<Record<keyof FormValues, string>> = {
  urlN8N: 'queueIntegrations.form.invalidUrl',
  jsonContent: 'queueIntegrations.form.invalidJson',
  typebotExpires: 'queueIntegrations.form.invalidNumber',
  typebotDelayMessage: 'queueIntegrations.form.invalidNumber',
};

/** Add or edit a queue integration: its fields follow the chosen type (docs/automation.md). */
export function QueueIntegrationDialog({
  open,
  integration,
  onClose,
}: {
  open: boolean;
  integration: QueueIntegration | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const { enqueueSnackbar } = useSnackbar();
  const save = useSaveQueueIntegration();
  const testSession = useTestDialogflowSession();
  const { control, handleSubmit, reset, setError, clearErrors, getValues, watch, formState } =
    useForm<FormValues>({
      defaultValues: formValues(integration),
    });
  useEffect(() => {
    if (open) reset(formValues(integration));
  }, [open, integration, reset]);
  const type = watch('type');
  const storedAccount = integration?.type === 'dialogflow' && integration.jsonContent === SECRET_MASK;

  /** Our own codes are translated in this namespace; anything else goes to the shared handler. */
  const showError = (err: unknown) => {
    const own =
      err instanceof ApiError ? t(`queueIntegrations.errors.${err.code}`, { defaultValue: '' }) : '';
    if (own) enqueueSnackbar(own, { variant: 'error', autoHideDuration: 4000 });
    else toast.error(err);
  };

  /** Puts the schema's issues on their fields; answers whether there were any. */
  const markIssues = (issues: { path: PropertyKey[]; code: string }[]) => {
    for (const issue of issues) {
      const field = String(issue.path[0] ?? 'name') as keyof FormValues;
      const empty = String(getValues(field) ?? '').trim() === '';
      const custom = FIELD_MESSAGES[field];
      // An empty field is "required" whatever the rule; otherwise short/long, or the field's own message.
      const numeric = field === 'typebotExpires' || field === 'typebotDelayMessage';
      const typeOf = empty
        ? 'too_small'
        : numeric
          ? 'custom'
          : issue.code === 'too_small' || issue.code === 'too_big'
            ? issue.code
            : custom
              ? 'custom'
              : issue.code;
      setError(field as Path<FormValues>, { type: typeOf, message: custom ?? 'common.required' });
    }
    return issues.length > 0;
  };

  const submit = handleSubmit(async (values) => {
    clearErrors();
    const parsed = QueueIntegrationInput.safeParse(inputOf(values));
    if (!parsed.success) {
      markIssues(parsed.error.issues);
      return;
    }
    if (values.type === 'dialogflow' && !values.jsonContent.trim() && !storedAccount) {
      setError('jsonContent', { type: 'too_small', message: 'common.required' });
      return;
    }
    try {
      await save.mutateAsync(
        integration ? { id: integration.id, input: parsed.data } : { input: parsed.data },
      );
      toast.success(integration ? 'queueIntegrations.edited' : 'queueIntegrations.added');
      onClose();
    } catch (err) {
      showError(err);
    }
  });

  const runTest = async () => {
    clearErrors();
    const v = getValues();
    const parsed = QueueIntegrationTestSession.safeParse({
      projectName: v.projectName,
      jsonContent: v.jsonContent,
      language: v.language,
    });
    if (!parsed.success) {
      markIssues(parsed.error.issues);
      return;
    }
    try {
      await testSession.mutateAsync(parsed.data);
      toast.success('queueIntegrations.testSuccess');
    } catch (err) {
      showError(err);
    }
  };

  const text = (
    name: keyof FormValues,
    opts: { required?: boolean; multiline?: boolean; help?: string; size?: number; number?: boolean } = {},
  ) => (
    <Grid size={{ xs: 12, sm: opts.size ?? 12 }}>
      <Controller
        name={name}
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            fullWidth
            required={opts.required}
            multiline={opts.multiline}
            minRows={opts.multiline ? 3 : undefined}
            maxRows={opts.multiline ? 8 : undefined}
            type={opts.number ? 'number' : 'text'}
            label={t(`queueIntegrations.form.${name}`)}
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value }) ?? opts.help}
            slotProps={{ htmlInput: { 'data-field': name } }}
          />
        )}
      />
    </Grid>
  );

  return (
    <FormDialog
      open={open}
      title={t(integration ? 'queueIntegrations.editTitle' : 'queueIntegrations.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth="md"
    >
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 4 }}>
          <Controller
            name="type"
            control={control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                fullWidth
                required
                label={t('queueIntegrations.form.type')}
                onChange={(e) => {
                  field.onChange(e.target.value);
                  clearErrors();
                }}
                slotProps={{ htmlInput: { 'data-field': 'type' } }}
              >
                {QUEUE_INTEGRATION_TYPES.map((ty) => (
                  <MenuItem key={ty} value={ty} data-testid={`integration-type-${ty}`}>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                      <IntegrationTypeAvatar type={ty} size={22} />
                      {t(`queueIntegrations.types.${ty}`)}
                    </Box>
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Grid>
        {text('name', { required: true, size: 8 })}

        {type === 'dialogflow' ? (
          <>
            {text('projectName', { required: true, size: 8 })}
            <Grid size={{ xs: 12, sm: 4 }}>
              <Controller
                name="language"
                control={control}
                render={({ field, fieldState }) => (
                  <TextField
                    {...field}
                    select
                    fullWidth
                    required
                    label={t('queueIntegrations.form.language')}
                    error={Boolean(fieldState.error)}
                    slotProps={{ htmlInput: { 'data-field': 'language' } }}
                  >
                    {DIALOGFLOW_LANGUAGES.map((l) => (
                      <MenuItem key={l} value={l}>
                        {t(`queueIntegrations.languages.${l}`)}
                      </MenuItem>
                    ))}
                  </TextField>
                )}
              />
            </Grid>
            {text('jsonContent', {
              required: !storedAccount,
              multiline: true,
              help: storedAccount
                ? t('queueIntegrations.form.jsonStored', { email: integration?.clientEmail ?? '' })
                : t('queueIntegrations.form.jsonHelp'),
            })}
            <Grid size={12}>
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
                <Button
                  variant="outlined"
                  onClick={() => void runTest()}
                  disabled={testSession.isPending}
                  data-testid="integration-test-session"
                >
                  {t('queueIntegrations.form.testSession')}
                </Button>
              </Box>
            </Grid>
          </>
        ) : null}

        {type === 'n8n' || type === 'webhook' || type === 'typebot'
          ? text('urlN8N', {
              required: true,
              size: type === 'typebot' ? 8 : 12,
              help: t(`queueIntegrations.form.urlHelp.${type}`),
            })
          : null}

        {(type === 'n8n' || type === 'webhook') && integration && integration.type === type ? (
          <Grid size={12}>
            <HookSecret integrationId={integration.id} />
          </Grid>
        ) : null}

        {type === 'typebot' ? (
          <>
            {text('typebotSlug', { required: true, size: 4 })}
            {text('typebotExpires', { number: true, size: 6, help: t('queueIntegrations.form.expiresHelp') })}
            {text('typebotDelayMessage', {
              number: true,
              size: 6,
              help: t('queueIntegrations.form.delayHelp'),
            })}
            {text('typebotKeywordFinish', { size: 6 })}
            {text('typebotKeywordRestart', { size: 6 })}
            {text('typebotUnknownMessage', { size: 6, multiline: true })}
            {text('typebotRestartMessage', { size: 6, multiline: true })}
          </>
        ) : null}
      </Grid>
      {type !== 'dialogflow' ? (
        <Alert severity="info" variant="outlined">
          {t('queueIntegrations.form.projectNameNote')}
        </Alert>
      ) : null}
    </FormDialog>
  );
}

export default QueueIntegrationDialog;
