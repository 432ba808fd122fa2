import { useEffect } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { HelpInput, type Help } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSaveHelp } from '../../api/helps.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

interface HelpForm {
  title: string;
  description: string;
  video: string;
}

const formValues = (h: Help | null): HelpForm => ({
  title: h?.title ?? '',
  description: h?.description ?? '',
  video: h?.video ?? '',
});

/** Pasting a YouTube address keeps only its video code. */
export function videoCode(raw: string): string {
  const text = raw.trim();
  const match = /(?:youtu\.be\/|[?&]v=|\/embed\/|\/shorts\/)([A-Za-z0-9_-]{6,})/.exec(text);
  return match ? match[1]! : text;
}

/** Add or edit a help video (super user). */
export function HelpDialog({ open, help, onClose }: { open: boolean; help: Help | null; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveHelp();
  const { control, handleSubmit, reset, formState } = useForm<HelpForm>({
    resolver: zodResolver(HelpInput) as unknown as Resolver<HelpForm>,
    defaultValues: formValues(help),
  });
  useEffect(() => {
    if (open) reset(formValues(help));
  }, [open, help, reset]);

  const submit = handleSubmit(async (values) => {
    try {
      await save.mutateAsync({ id: help?.id, input: values });
      toast.success('helpsAdmin.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  return (
    <FormDialog
      open={open}
      title={t(help ? 'helpsAdmin.editTitle' : 'helpsAdmin.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
    >
      <Controller
        name="title"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('helpsAdmin.title')}
            required
            autoFocus
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
          />
        )}
      />
      <Controller
        name="video"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            onChange={(e) => field.onChange(videoCode(e.target.value))}
            label={t('helpsAdmin.video')}
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, {
                value: field.value,
                formatKey: 'helpsAdmin.invalidVideo',
              }) ?? t('helpsAdmin.videoHelp')
            }
          />
        )}
      />
      <Controller
        name="description"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('helpsAdmin.description')}
            multiline
            minRows={3}
            maxRows={8}
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
          />
        )}
      />
    </FormDialog>
  );
}

export default HelpDialog;
