import { z } from 'zod';
import { Autocomplete, Chip, TextField } from '@mui/material';
import {
  CUSTOM_FIELD_ENTITIES,
  CUSTOM_FIELD_TYPES,
  CustomFieldKey,
  type CustomFieldEntity,
  type CustomFieldType,
  type CustomFieldView,
} from '@recado/contracts';
import { customFieldResource } from '../../api/custom-fields.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';
import { useCustomFieldsT } from './custom-fields-i18n.js';

const schema = z
  .object({
    entity: z.enum(CUSTOM_FIELD_ENTITIES),
    key: CustomFieldKey,
    label: z.string().trim().min(1).max(60),
    type: z.enum(CUSTOM_FIELD_TYPES),
    options: z.array(z.string().trim().min(1).max(100)).max(100),
    required: z.boolean(),
    order: z.number().int().min(0).max(10000),
  })
  .refine((v) => v.type !== 'list' || v.options.length > 0, {
    path: ['options'],
    message: 'customFields:page.needsOptions',
  });
type Form = z.infer<typeof schema>;

const valuesOf = (f: CustomFieldView | null): Form => ({
  entity: (f?.entity ?? 'contact') as CustomFieldEntity,
  key: f?.key ?? '',
  label: f?.label ?? '',
  type: (f?.type ?? 'text') as CustomFieldType,
  options: f?.options ?? [],
  required: f?.required ?? false,
  order: f?.order ?? 0,
});

/** Add or edit a custom field: entity, key and type are chosen once; label, options, required, order change. */
export function CustomFieldDialog({
  open,
  record,
  onClose,
}: {
  open: boolean;
  record: CustomFieldView | null;
  onClose(): void;
}) {
  const { t } = useCustomFieldsT();
  const save = customFieldResource.useSave();
  const form = useResourceForm({ open, record, schema, values: valuesOf });
  const editing = Boolean(record);
  const fields: FormField<Form>[] = [
    {
      name: 'label',
      kind: 'text',
      label: 'customFields:page.label',
      required: true,
      autoFocus: true,
      maxLength: 60,
      inputProps: { 'data-testid': 'cf-label' },
    },
    {
      name: 'key',
      kind: 'text',
      label: 'customFields:page.key',
      hint: 'customFields:page.keyHint',
      required: true,
      maxLength: 40,
      disabled: editing,
      inputProps: { 'data-testid': 'cf-key' },
    },
    {
      name: 'entity',
      kind: 'select',
      label: 'customFields:page.entity',
      disabled: editing,
      options: CUSTOM_FIELD_ENTITIES.map((e) => ({ value: e, label: `customFields:entity.${e}` })),
      inputProps: { 'data-testid': 'cf-entity' },
    },
    {
      name: 'type',
      kind: 'select',
      label: 'customFields:page.type',
      disabled: editing,
      options: CUSTOM_FIELD_TYPES.map((ty) => ({ value: ty, label: `customFields:type.${ty}` })),
      inputProps: { 'data-testid': 'cf-type' },
    },
    {
      name: 'options',
      kind: 'custom',
      hidden: (v) => v.type !== 'list',
      render: ({ field, errorText }) => (
        <Autocomplete
          multiple
          freeSolo
          size="small"
          options={[] as string[]}
          value={field.value as string[]}
          onChange={(_e, v) => field.onChange([...new Set(v.map((x) => String(x).trim()).filter(Boolean))])}
          renderValue={(value, getItemProps) =>
            value.map((o, index) => {
              const { key, ...props } = getItemProps({ index });
              return <Chip key={key} size="small" label={o} {...props} />;
            })
          }
          renderInput={(params) => (
            <TextField
              {...params}
              label={t('customFields:page.options')}
              error={Boolean(errorText)}
              helperText={errorText ?? t('customFields:page.optionsHint')}
              slotProps={{
                ...params.slotProps,
                htmlInput: { ...params.slotProps?.htmlInput, 'data-testid': 'cf-options' },
              }}
            />
          )}
        />
      ),
    },
    { name: 'required', kind: 'switch', label: 'customFields:page.required' },
    { name: 'order', kind: 'number', label: 'customFields:page.order', inputProps: { min: 0 } },
  ];
  return (
    <ResourceFormDialog
      open={open}
      record={record}
      onClose={onClose}
      form={form}
      i18n="customFields:page"
      fields={fields}
      toInput={(v) =>
        editing
          ? { label: v.label, options: v.options, required: v.required, order: v.order }
          : {
              entity: v.entity,
              key: v.key,
              label: v.label,
              type: v.type,
              options: v.type === 'list' ? v.options : [],
              required: v.required,
              order: v.order,
            }
      }
      save={(args) => save.mutateAsync(args)}
    />
  );
}
