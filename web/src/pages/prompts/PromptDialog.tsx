import { useEffect } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Grid, MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  SECRET_MASK,
  PROMPT_DEFAULTS,
  PROMPT_MODELS,
  PromptInput,
  type Prompt,
  type PromptUpdate,
  type Queue,
} from '@recado/contracts';
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
const PromptForm = z.object({
  name: PromptInput.shape.name,
  prompt: PromptInput.shape.prompt,
  model: z.enum(PROMPT_MODELS),
  maxTokens: number(1, 32000, true, 'prompts.form.invalidMaxTokens'),
  temperature: number(0, 1, false, 'prompts.form.invalidTemperature'),
  apiKey: z.string().trim().min(1),
  queueId: z.string().refine((v) => v !== '', 'prompts.form.queueRequired'),
  maxMessages: number(1, 100, true, 'prompts.form.invalidMaxMessages'),
  baseUrl: z.string().trim().max(500),
});
type PromptFormValues = z.infer<typeof PromptForm>;

const formValues = (p: Prompt | null): PromptFormValues => ({
  name: p?.name ?? '',
  prompt: p?.prompt ?? '',
  model: (PROMPT_MODELS as readonly string[]).includes(p?.model ?? '')
    ? (p!.model as PromptFormValues['model'])
    : PROMPT_DEFAULTS.model,
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
  const { control, handleSubmit, reset, formState } = useForm<PromptFormValues>({
    resolver: zodResolver(PromptForm) as unknown as Resolver<PromptFormValues>,
    defaultValues: formValues(prompt),
  });

  useEffect(() => {
    if (open) reset(formValues(prompt));
  }, [open, prompt, reset]);

  const submit = handleSubmit(async (v) => {
    const input: PromptUpdate = {
      name: v.name.trim(),
      prompt: v.prompt.trim(),
      model: v.model,
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
            render={({ field }) => (
              <TextField
                {...field}
                select
                fullWidth
                required
                label={t('prompts.form.model')}
                slotProps={{ htmlInput: { 'data-field': 'model' } }}
              >
                {PROMPT_MODELS.map((m) => (
                  <MenuItem key={m} value={m}>
                    {m}
                  </MenuItem>
                ))}
              </TextField>
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
    </FormDialog>
  );
}

export default PromptDialog;
