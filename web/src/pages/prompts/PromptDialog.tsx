import { useEffect, useState } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  CircularProgress,
  Grid,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import ScienceOutlinedIcon from '@mui/icons-material/ScienceOutlined';
import { useTranslation } from 'react-i18next';
import {
  SECRET_MASK,
  PROMPT_DEFAULTS,
  PROMPT_HANDOFF_LINE,
  PROMPT_MODELS,
  PromptInput,
  PromptModelName,
  promptModelAllowed,
  type Prompt,
  type PromptTestAnswer,
  type PromptUpdate,
  type Queue,
} from '@recado/contracts';
import { api, ApiError } from '../../api/client.js';
import { useSavePrompt } from '../../api/prompts.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

const number = (min: number, max: number, integer: boolean, key: string) =>
  z.string().refine((v) => {
    const n = Number(v.trim().replace(',', '.'));
    return v.trim() !== '' && Number.isFinite(n) && n >= min && n <= max && (!integer || Number.isInteger(n));
  }, key);

/** docs/automation.md: every field required; name 5–100, prompt 50+, temperature 0–1 in steps of 0.1. */
const PromptForm = z
  .object({
    name: PromptInput.shape.name,
    prompt: PromptInput.shape.prompt,
    model: PromptModelName,
    maxTokens: number(1, 32000, true, 'prompts.form.invalidMaxTokens'),
    temperature: number(0, 1, false, 'prompts.form.invalidTemperature'),
    apiKey: z.string().trim().min(1),
    queueId: z.string().refine((v) => v !== '', 'prompts.form.queueRequired'),
    maxMessages: number(1, 100, true, 'prompts.form.invalidMaxMessages'),
    baseUrl: z.string().trim().max(500),
  })
  // OpenAI's own server knows the listed names; a base URL of your own takes any name it serves.
  .refine((v) => promptModelAllowed(v.model, v.baseUrl), {
    path: ['model'],
    message: 'prompts.form.modelNeedsBaseUrl',
  });
type PromptFormValues = z.infer<typeof PromptForm>;

const formValues = (p: Prompt | null): PromptFormValues => ({
  name: p?.name ?? '',
  prompt: p?.prompt ?? '',
  model: p?.model ?? PROMPT_DEFAULTS.model,
  maxTokens: String(p?.maxTokens ?? PROMPT_DEFAULTS.maxTokens),
  temperature: String(p?.temperature ?? PROMPT_DEFAULTS.temperature),
  // A stored key comes back masked: sending the mask keeps it.
  apiKey: p ? SECRET_MASK : '',
  queueId: p ? String(p.queueId) : '',
  maxMessages: String(p?.maxMessages ?? PROMPT_DEFAULTS.maxMessages),
  baseUrl: p?.baseUrl ?? '',
});

const toNumber = (v: string) => Number(v.trim().replace(',', '.'));

/** Add or edit an AI prompt (docs/automation.md). */
export function PromptDialog({
  open,
  prompt,
  queues,
  onClose,
}: {
  open: boolean;
  prompt: Prompt | null;
  queues: Queue[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSavePrompt();
  const { control, handleSubmit, reset, formState, getValues, trigger, watch } = useForm<PromptFormValues>({
    resolver: zodResolver(PromptForm) as unknown as Resolver<PromptFormValues>,
    defaultValues: formValues(prompt),
  });
  const customServer = Boolean(watch('baseUrl').trim());
  const [testMessage, setTestMessage] = useState('');
  const [testing, setTesting] = useState(false);
  const [testResult, setTestResult] = useState<
    { ok: true; answer: PromptTestAnswer } | { ok: false; error: string } | null
  >(null);

  useEffect(() => {
    if (open) {
      reset(formValues(prompt));
      setTestResult(null);
      setTestMessage(t('prompts.test.defaultMessage'));
    }
  }, [open, prompt, reset, t]);

  /** One exchange with the provider with the values as they are in the dialog (saved or not). */
  const runTest = async () => {
    if (!(await trigger(['prompt', 'model', 'maxTokens', 'temperature', 'apiKey', 'baseUrl']))) return;
    const v = getValues();
    setTesting(true);
    setTestResult(null);
    try {
      const answer = await api.post<PromptTestAnswer>('/prompt/test', {
        ...(prompt ? { promptId: prompt.id } : {}),
        prompt: v.prompt.trim(),
        model: v.model.trim(),
        maxTokens: toNumber(v.maxTokens),
        temperature: Math.round(toNumber(v.temperature) * 10) / 10,
        apiKey: v.apiKey.trim(),
        baseUrl: v.baseUrl.trim(),
        message: testMessage.trim() || t('prompts.test.defaultMessage'),
      });
      setTestResult({ ok: true, answer });
    } catch (err) {
      const reason = err instanceof ApiError ? err.body?.reason : undefined;
      const code = err instanceof ApiError ? err.code : 'ERR_INTERNAL_SERVER_ERROR';
      setTestResult({
        ok: false,
        error: `${t(`errors.${code}`, { defaultValue: t('errors.ERR_INTERNAL_SERVER_ERROR') })}${
          typeof reason === 'string' ? ` (${reason})` : ''
        }`,
      });
    } finally {
      setTesting(false);
    }
  };

  const submit = handleSubmit(async (v) => {
    const input: PromptUpdate = {
      name: v.name.trim(),
      prompt: v.prompt.trim(),
      model: v.model.trim(),
      maxTokens: toNumber(v.maxTokens),
      temperature: Math.round(toNumber(v.temperature) * 10) / 10,
      queueId: Number(v.queueId),
      maxMessages: toNumber(v.maxMessages),
      baseUrl: v.baseUrl.trim(),
      // Unchanged mask: leave the stored key as it is.
      ...(v.apiKey.trim() !== SECRET_MASK ? { apiKey: v.apiKey.trim() } : {}),
    };
    try {
      await save.mutateAsync(prompt ? { id: prompt.id, input } : { input });
      toast.success('prompts.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  const numeric = (
    name: 'maxTokens' | 'temperature' | 'maxMessages',
    input: { min: number; max: number; step: number },
  ) => (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          fullWidth
          required
          type="number"
          label={t(`prompts.form.${name}`)}
          error={Boolean(fieldState.error)}
          helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
          slotProps={{ htmlInput: { ...input, 'data-field': name } }}
        />
      )}
    />
  );

  return (
    <FormDialog
      open={open}
      title={t(prompt ? 'prompts.editTitle' : 'prompts.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth="md"
    >
      <Controller
        name="name"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            fullWidth
            required
            autoFocus
            label={t('prompts.form.name')}
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, { value: field.value }) ?? t('prompts.form.nameHelp')
            }
            slotProps={{ htmlInput: { maxLength: 100, 'data-field': 'name' } }}
          />
        )}
      />
      <Controller
        name="apiKey"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            fullWidth
            required
            type="password"
            autoComplete="new-password"
            label={t('prompts.form.apiKey')}
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, { value: field.value }) ??
              (prompt ? t('prompts.form.apiKeyKeep') : t('prompts.form.apiKeyHelp'))
            }
            onFocus={(e) => {
              // Typing over the mask replaces the key; the field starts empty for that.
              if (field.value === SECRET_MASK) e.target.select();
            }}
            slotProps={{ htmlInput: { maxLength: 500, 'data-field': 'apiKey' } }}
          />
        )}
      />
      <Controller
        name="prompt"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            fullWidth
            required
            multiline
            minRows={5}
            maxRows={14}
            label={t('prompts.form.prompt')}
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, { value: field.value }) ??
              t('prompts.form.promptHelp', { count: field.value.trim().length })
            }
            slotProps={{ htmlInput: { maxLength: 10000, 'data-field': 'prompt' } }}
          />
        )}
      />
      <Alert
        severity="info"
        data-testid="prompt-handoff-help"
        sx={{ '& .MuiAlert-message': { minWidth: 0 } }}
      >
        {t('prompts.form.handoffHelp')}
        <Box component="code" sx={{ display: 'block', mt: 0.5, fontWeight: 700, overflowWrap: 'anywhere' }}>
          {PROMPT_HANDOFF_LINE}
        </Box>
      </Alert>
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6 }}>
          <Controller
            name="queueId"
            control={control}
            render={({ field, fieldState }) => (
              <TextField
                {...field}
                select
                fullWidth
                required
                label={t('prompts.form.queue')}
                error={Boolean(fieldState.error)}
                helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
                slotProps={{ htmlInput: { 'data-field': 'queueId' } }}
              >
                {queues.length === 0 ? (
                  <MenuItem value="" disabled>
                    {t('prompts.form.noQueues')}
                  </MenuItem>
                ) : null}
                {queues.map((q) => (
                  <MenuItem key={q.id} value={String(q.id)} data-testid="prompt-queue-option">
                    {q.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <Controller
            name="model"
            control={control}
            render={({ field, fieldState }) => (
              // OpenAI's names to pick from; with a base URL of your own, any name that server serves.
              <Autocomplete
                freeSolo
                disableClearable
                options={[...PROMPT_MODELS]}
                // A listed name in the field still offers every name; anything else filters them.
                filterOptions={(options, state) =>
                  options.includes(state.inputValue)
                    ? options
                    : options.filter((o) => o.includes(state.inputValue.trim()))
                }
                value={field.value}
                inputValue={field.value}
                onInputChange={(_e, value) => field.onChange(value)}
                onChange={(_e, value) => field.onChange(value ?? '')}
                renderInput={(params) => (
                  <TextField
                    {...params}
                    inputRef={field.ref}
                    onBlur={field.onBlur}
                    required
                    label={t('prompts.form.model')}
                    error={Boolean(fieldState.error)}
                    helperText={
                      fieldErrorText(t, fieldState.error, {
                        value: field.value,
                        formatKey: 'prompts.form.modelInvalid',
                      }) ?? t(customServer ? 'prompts.form.modelFreeHelp' : 'prompts.form.modelHelp')
                    }
                    slotProps={{
                      ...params.slotProps,
                      htmlInput: { ...params.slotProps.htmlInput, maxLength: 200, 'data-field': 'model' },
                    }}
                  />
                )}
              />
            )}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 4 }}>{numeric('maxTokens', { min: 1, max: 32000, step: 1 })}</Grid>
        <Grid size={{ xs: 12, sm: 4 }}>{numeric('temperature', { min: 0, max: 1, step: 0.1 })}</Grid>
        <Grid size={{ xs: 12, sm: 4 }}>{numeric('maxMessages', { min: 1, max: 100, step: 1 })}</Grid>
      </Grid>
      <Controller
        name="baseUrl"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            fullWidth
            label={t('prompts.form.baseUrl')}
            placeholder="https://api.openai.com/v1"
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, { value: field.value }) ?? t('prompts.form.baseUrlHelp')
            }
            slotProps={{ htmlInput: { maxLength: 500, 'data-field': 'baseUrl' } }}
          />
        )}
      />
      <Box data-testid="prompt-test" sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.5 }}>
        <Typography variant="subtitle2" gutterBottom>
          {t('prompts.test.title')}
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
          <TextField
            fullWidth
            size="small"
            label={t('prompts.test.message')}
            value={testMessage}
            onChange={(e) => setTestMessage(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 2000, 'data-field': 'testMessage' } }}
          />
          <Button
            variant="outlined"
            data-testid="prompt-test-button"
            startIcon={testing ? <CircularProgress size={16} /> : <ScienceOutlinedIcon />}
            disabled={testing}
            onClick={() => void runTest()}
            sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}
          >
            {t('prompts.test.run')}
          </Button>
        </Stack>
        {testResult?.ok === true && (
          <Alert severity="success" data-testid="prompt-test-reply" sx={{ mt: 1, whiteSpace: 'pre-wrap' }}>
            {testResult.answer.reply || t('prompts.test.empty')}
            {testResult.answer.handoff && (
              <Typography variant="body2" sx={{ mt: 0.5, fontWeight: 700 }}>
                {t('prompts.test.handoff')}
              </Typography>
            )}
          </Alert>
        )}
        {testResult?.ok === false && (
          <Alert severity="error" data-testid="prompt-test-error" sx={{ mt: 1 }}>
            {testResult.error}
          </Alert>
        )}
      </Box>
    </FormDialog>
  );
}

export default PromptDialog;
