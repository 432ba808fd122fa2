import { useEffect, useMemo } from 'react';
import { useWatch } from 'react-hook-form';
import { z } from 'zod';
import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, DEFAULT_TAG_COLOR, nextUnusedColor, TagInput, type Tag } from '@recado/contracts';
import { useAllTags, useSaveTag } from '../../api/tags.js';
import { useAuth } from '../../app/auth.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';
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

/** Add or edit a tag: name, colour and — for admins and supervisors — whether it is a kanban lane. */
export function TagDialog({ open, tag, onClose }: { open: boolean; tag: Tag | null; onClose(): void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const save = useSaveTag();
  const all = useAllTags(open);
  const kanbanAllowed = can(user, 'tags:editKanban') || Boolean(user?.super);
  const form = useResourceForm({ open, record: tag, schema: TagForm, values: formValues });
  const { setValue, getFieldState, control } = form;
  const taken = useMemo(() => (all.data ?? []).map((x) => x.color), [all.data]);
  // The company's tags may arrive after the dialog opened: offer the free colour unless one was picked.
  useEffect(() => {
    if (open && !tag && !getFieldState('color').isDirty)
      setValue('color', nextUnusedColor(taken), { shouldDirty: false });
  }, [open, tag, taken, getFieldState, setValue]);
  const name = useWatch({ control, name: 'name' });
  const color = useWatch({ control, name: 'color' });

  const fields: FormField<TagFormValues>[] = [
    {
      name: 'name',
      kind: 'text',
      label: 'tags.form.name',
      required: true,
      autoFocus: true,
      maxLength: 50,
      // docs/team-tools.md: "Obrigatório" when empty, "Mensagem muito curta" under 3 characters.
      messages: { too_small: 'tags.form.tooShort' },
      inputProps: { 'data-field': 'name' },
    },
    { name: 'color', kind: 'color', messages: { invalid_format: 'tags.form.invalidColor' } },
    {
      name: 'kanban',
      kind: 'switch',
      label: 'tags.form.kanban',
      hint: 'tags.form.kanbanHelp',
      hidden: !kanbanAllowed,
      inputProps: { 'data-field': 'kanban' },
    },
  ];

  return (
    <ResourceFormDialog
      open={open}
      record={tag}
      onClose={onClose}
      form={form}
      i18n="tags"
      fields={fields}
      toInput={(values) => ({
        name: values.name.trim(),
        color: values.color.trim().toUpperCase(),
        // Only those allowed send the flag; the server keeps it as it is otherwise.
        ...(kanbanAllowed ? { kanban: (values.kanban ? 1 : 0) as 0 | 1 } : {}),
      })}
      save={save.mutateAsync}
      errorFields={{ ERR_TAG_ALREADY_EXISTS: 'name' }}
    >
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
    </ResourceFormDialog>
  );
}

export default TagDialog;
