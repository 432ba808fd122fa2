import { useEffect, useMemo } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { FormControlLabel, Switch, TextField, Typography, Box } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, DEFAULT_TAG_COLOR, nextUnusedColor, TagInput, type Tag } from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useAllTags, useSaveTag } from '../../api/tags.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { ColorPalette } from '../queues/ColorPalette.js';
import { TagChip } from './TagChip.js';

const TagForm = z.object({
  name: TagInput.shape.name,
  color: z
    .string()
    .trim()
    .regex(/^#[0-9a-fA-F]{6}$/, 'tags.form.invalidColor'),
  kanban: z.boolean(),
});
type TagFormValues = z.infer<typeof TagForm>;

/** A new tag is offered the first palette colour no tag of the company uses yet (as queues do). */
const formValues = (tag: Tag | null): TagFormValues => ({
  name: tag?.name ?? '',
  color: tag?.color ?? nextUnusedColor([]),
  kanban: Boolean(tag?.kanban),
});

/** docs/team-tools.md: "Obrigatório" when empty, "Mensagem muito curta" under 3 characters. */
function nameError(t: (k: string) => string, type: string | undefined, value: string) {
  if (!type) return undefined;
  if (!value.trim()) return t('common.required');
  if (type === 'too_small') return t('tags.form.tooShort');
  if (type === 'too_big') return t('common.tooLong');
  return t('common.required');
}

/** Add or edit a tag: name, colour and — for admins and supervisors — whether it is a kanban lane. */
export function TagDialog({ open, tag, onClose }: { open: boolean; tag: Tag | null; onClose(): void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const save = useSaveTag();
  const all = useAllTags(open);
  const kanbanAllowed = can(user, 'tags:editKanban') || Boolean(user?.super);
  const { control, handleSubmit, reset, setError, setValue, getFieldState, watch, formState } =
    useForm<TagFormValues>({
      resolver: zodResolver(TagForm) as unknown as Resolver<TagFormValues>,
      defaultValues: formValues(tag),
    });
  const taken = useMemo(() => (all.data ?? []).map((x) => x.color), [all.data]);
  useEffect(() => {
    if (open) reset(formValues(tag));
  }, [open, tag, reset]);
  // The company's tags may arrive after the dialog opened: offer the free colour unless one was picked.
  useEffect(() => {
    if (open && !tag && !getFieldState('color').isDirty)
      setValue('color', nextUnusedColor(taken), { shouldDirty: false });
  }, [open, tag, taken, getFieldState, setValue]);

  const submit = handleSubmit(async (values) => {
    const input = {
      name: values.name.trim(),
      color: values.color.trim().toUpperCase(),
      // Only those allowed send the flag; the server keeps it as it is otherwise.
      ...(kanbanAllowed ? { kanban: (values.kanban ? 1 : 0) as 0 | 1 } : {}),
    };
    try {
      await save.mutateAsync(tag ? { id: tag.id, input } : { input });
      toast.success('tags.saved');
      onClose();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'ERR_TAG_ALREADY_EXISTS')
        setError('name', { type: 'custom', message: 'errors.ERR_TAG_ALREADY_EXISTS' });
      toast.error(err);
    }
  });

  const name = watch('name');
  const color = watch('color');
  return (
    <FormDialog
      open={open}
      title={t(tag ? 'tags.editTitle' : 'tags.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
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
            label={t('tags.form.name')}
            error={Boolean(fieldState.error)}
            helperText={
              fieldState.error?.type === 'custom'
                ? t(fieldState.error.message ?? 'common.required')
                : nameError(t, fieldState.error?.type, field.value)
            }
            slotProps={{ htmlInput: { maxLength: 50, 'data-field': 'name' } }}
          />
        )}
      />
      <Controller
        name="color"
        control={control}
        render={({ field, fieldState }) => (
          <ColorPalette
            value={field.value}
            onChange={field.onChange}
            usedBy={new Map()}
            error={fieldState.error ? t('tags.form.invalidColor') : undefined}
          />
        )}
      />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Typography variant="body2" color="text.secondary">
          {t('tags.form.preview')}
        </Typography>
        <TagChip
          name={name.trim() || t('tags.form.name')}
          color={/^#[0-9a-fA-F]{6}$/.test(color) ? color : DEFAULT_TAG_COLOR}
          data-testid="tag-preview"
        />
      </Box>
      {kanbanAllowed ? (
        <Controller
          name="kanban"
          control={control}
          render={({ field }) => (
            <Box>
              <FormControlLabel
                control={
                  <Switch
                    checked={field.value}
                    onChange={(e) => field.onChange(e.target.checked)}
                    slotProps={{ input: { 'data-field': 'kanban' } as object }}
                  />
                }
                label={t('tags.form.kanban')}
              />
              <Typography variant="caption" color="text.secondary" component="div">
                {t('tags.form.kanbanHelp')}
              </Typography>
            </Box>
          )}
        />
      ) : null}
    </FormDialog>
  );
}

export default TagDialog;
