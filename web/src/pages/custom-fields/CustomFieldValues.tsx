import { FormControlLabel, MenuItem, Stack, Switch, TextField, Typography } from '@mui/material';
import { checkCustomFieldValue, type CustomFieldValue, type CustomFieldView } from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useCustomFieldsT } from './custom-fields-i18n.js';

/** What the inputs hold: text for every type but yes/no. */
export type RawCustomFields = Record<string, string | boolean>;
type Stored = Record<string, CustomFieldValue> | undefined;

/** The inputs' values for a record's stored ones. */
export const rawCustomFields = (defs: CustomFieldView[], stored: Stored): RawCustomFields =>
  Object.fromEntries(
    defs.map((d) => {
      const v = stored?.[d.key];
      return [d.key, d.type === 'boolean' ? v === true : v === undefined ? '' : String(v)];
    }),
  );

const MESSAGE_OF: Record<string, string> = {
  number: 'customFields:values.invalidNumber',
  url: 'customFields:values.invalidUrl',
  date: 'customFields:values.invalidDate',
  list: 'customFields:values.notInList',
};

/**
 * The `customFields` a write sends: what changed since `stored` (an emptied field is null), or the fields
 * the browser already knows are wrong (i18n keys by key).
 */
export function customFieldsInput(
  defs: CustomFieldView[],
  raw: RawCustomFields,
  stored: Stored,
): { input: Record<string, CustomFieldValue | null>; errors: Record<string, string> } {
  const input: Record<string, CustomFieldValue | null> = {};
  const errors: Record<string, string> = {};
  for (const d of defs) {
    const r = raw[d.key];
    const before = stored?.[d.key];
    if (d.type === 'boolean') {
      if (r === undefined || (before === undefined && r === false) || before === r) continue;
      input[d.key] = Boolean(r);
      continue;
    }
    const text = typeof r === 'string' ? r.trim() : '';
    if (text === '') {
      if (d.required) errors[d.key] = 'common.required';
      else if (before !== undefined) input[d.key] = null;
      continue;
    }
    const checked = checkCustomFieldValue(d, text);
    if (!checked.ok) errors[d.key] = MESSAGE_OF[d.type] ?? 'customFields:values.invalid';
    else if (checked.value !== before) input[d.key] = checked.value;
  }
  return { input, errors };
}

/** The field keys a server refusal names (`customFields.<key>`), with its message. */
export function customFieldErrorsOf(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const fields = (err.body as { fields?: { path?: string; message?: string }[] } | undefined)?.fields ?? [];
  return Object.fromEntries(
    fields
      .filter((f) => f.path?.startsWith('customFields.'))
      .map((f) => [f.path!.slice('customFields.'.length), f.message ?? '']),
  );
}

/** Typed inputs of a record's custom fields: text, number, date picker, list select, yes/no switch, URL. */
export function CustomFieldsEditor({
  fields,
  value,
  onChange,
  errors = {},
  disabled,
  size = 'small',
}: {
  fields: CustomFieldView[];
  value: RawCustomFields;
  onChange(next: RawCustomFields): void;
  /** i18n keys or server texts by field key. */
  errors?: Record<string, string>;
  disabled?: boolean;
  size?: 'small' | 'medium';
}) {
  const { t } = useCustomFieldsT();
  if (!fields.length)
    return (
      <Typography variant="body2" color="text.secondary">
        {t('customFields:values.none')}
      </Typography>
    );
  const set = (key: string, v: string | boolean) => onChange({ ...value, [key]: v });
  return (
    <Stack spacing={1.5} data-testid="custom-fields-editor">
      {fields.map((f) => {
        const error = errors[f.key];
        const helperText = error ? t(error) : undefined;
        const common = {
          size,
          fullWidth: true,
          disabled,
          label: f.label,
          required: f.required,
          error: Boolean(error),
          helperText,
        } as const;
        const testId = { 'data-testid': `cf-input-${f.key}` };
        switch (f.type) {
          case 'boolean':
            return (
              <FormControlLabel
                key={f.key}
                disabled={disabled}
                control={
                  <Switch
                    checked={value[f.key] === true}
                    onChange={(e) => set(f.key, e.target.checked)}
                    slotProps={{ input: testId as object }}
                  />
                }
                label={f.label}
              />
            );
          case 'list':
            return (
              <TextField
                key={f.key}
                {...common}
                select
                value={String(value[f.key] ?? '')}
                onChange={(e) => set(f.key, e.target.value)}
                slotProps={{ htmlInput: testId }}
              >
                <MenuItem value="">
                  <em>{t('customFields:values.empty')}</em>
                </MenuItem>
                {f.options.map((o) => (
                  <MenuItem key={o} value={o}>
                    {o}
                  </MenuItem>
                ))}
              </TextField>
            );
          default:
            return (
              <TextField
                key={f.key}
                {...common}
                type={
                  f.type === 'number'
                    ? 'number'
                    : f.type === 'date'
                      ? 'date'
                      : f.type === 'url'
                        ? 'url'
                        : 'text'
                }
                value={String(value[f.key] ?? '')}
                onChange={(e) => set(f.key, e.target.value)}
                placeholder={f.type === 'url' ? 'https://' : undefined}
                slotProps={{
                  htmlInput: { ...testId, maxLength: 1000 },
                  ...(f.type === 'date' ? { inputLabel: { shrink: true } } : {}),
                }}
              />
            );
        }
      })}
    </Stack>
  );
}
