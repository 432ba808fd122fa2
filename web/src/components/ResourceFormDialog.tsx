import { useEffect, type ReactNode } from 'react';
import {
  Controller,
  useForm,
  useWatch,
  type ControllerFieldState,
  type ControllerRenderProps,
  type DefaultValues,
  type FieldValues,
  type Path,
  type Resolver,
  type UseFormReturn,
} from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import { Box, FormControlLabel, MenuItem, Switch, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { ApiError } from '../api/client.js';
import { useToast } from '../app/useToast.js';
import { ColorPalette } from '../pages/queues/ColorPalette.js';
import { FormDialog } from './FormDialog.js';
import { fieldErrorText } from './fieldError.js';

/**
 * The form kit (docs/web-resource-kit.md "Add/edit dialogs"): a resource's create/edit dialog from field
 * declarations, validated by the contract's zod schema, in the shared FormDialog frame.
 */

/** What a custom field renders with. */
export interface FieldRenderContext<V extends FieldValues> {
  field: ControllerRenderProps<V, Path<V>>;
  fieldState: ControllerFieldState;
  /** The field's error as translated text (or undefined). */
  errorText: string | undefined;
  values: V;
  t: TFunction;
}

export interface FormField<V extends FieldValues> {
  name: Path<V>;
  kind: 'text' | 'multiline' | 'number' | 'select' | 'switch' | 'color' | 'custom';
  /** i18n key of the label. */
  label?: string;
  /** i18n key of the hint shown under the field while it has no error. */
  hint?: string;
  required?: boolean;
  autoFocus?: boolean;
  maxLength?: number;
  /** multiline: rows shown. */
  minRows?: number;
  maxRows?: number;
  /** select: the choices (label: i18n key). */
  options?: { value: string | number; label: string }[];
  /** i18n key per zod issue type (`too_small`, `invalid_format`…) where the common text is not right. */
  messages?: Partial<Record<string, string>>;
  /** Attributes of the input element (`data-testid`, `data-field`, `aria-*`). */
  inputProps?: Record<string, unknown>;
  /** Not shown (and not touched) for these values or this user. */
  hidden?: boolean | ((values: V) => boolean);
  disabled?: boolean;
  /** kind 'custom': the escape hatch, rendered inside the field's Controller. */
  render?: (ctx: FieldRenderContext<V>) => ReactNode;
}

/** The translated error of a field: its own `messages` first, then the common texts (fieldErrorText). */
function errorTextOf<V extends FieldValues>(
  t: TFunction,
  f: FormField<V>,
  state: ControllerFieldState,
  value: unknown,
): string | undefined {
  const error = state.error;
  if (!error) return undefined;
  const empty = value === '' || value === undefined || value === null || String(value).trim() === '';
  if (error.type === 'custom') return t(error.message ?? 'common.required');
  if (!empty && error.type && f.messages?.[error.type]) return t(f.messages[error.type]!);
  return fieldErrorText(t, error, { value: empty ? '' : value, formatKey: f.messages?.invalid_format });
}

function FieldView<V extends FieldValues>({
  f,
  field,
  fieldState,
  values,
}: {
  f: FormField<V>;
  field: ControllerRenderProps<V, Path<V>>;
  fieldState: ControllerFieldState;
  values: V;
}) {
  const { t } = useTranslation();
  const errorText = errorTextOf(t, f, fieldState, field.value);
  const label = f.label ? t(f.label) : undefined;
  const helperText = errorText ?? (f.hint ? t(f.hint) : undefined);
  switch (f.kind) {
    case 'custom':
      return <>{f.render?.({ field, fieldState, errorText, values, t })}</>;
    case 'switch':
      return (
        <Box>
          <FormControlLabel
            disabled={f.disabled}
            control={
              <Switch
                checked={Boolean(field.value)}
                onChange={(e) => field.onChange(e.target.checked)}
                slotProps={{ input: { ...f.inputProps } as object }}
              />
            }
            label={label}
          />
          {f.hint ? (
            <Typography variant="caption" color="text.secondary" component="div">
              {t(f.hint)}
            </Typography>
          ) : null}
        </Box>
      );
    case 'color':
      return (
        <ColorPalette
          value={String(field.value ?? '')}
          onChange={field.onChange}
          usedBy={new Map()}
          disabled={f.disabled}
          error={errorText}
        />
      );
    default:
      return (
        <TextField
          {...field}
          value={field.value ?? ''}
          onChange={(e) =>
            field.onChange(
              f.kind === 'number' && e.target.value !== '' ? Number(e.target.value) : e.target.value,
            )
          }
          select={f.kind === 'select'}
          type={f.kind === 'number' ? 'number' : undefined}
          multiline={f.kind === 'multiline'}
          minRows={f.kind === 'multiline' ? (f.minRows ?? 4) : undefined}
          maxRows={f.kind === 'multiline' ? (f.maxRows ?? 12) : undefined}
          fullWidth
          required={f.required}
          autoFocus={f.autoFocus}
          disabled={f.disabled}
          autoComplete="off"
          label={label}
          error={Boolean(fieldState.error)}
          helperText={helperText}
          slotProps={{ htmlInput: { maxLength: f.maxLength, ...f.inputProps } }}
        >
          {f.kind === 'select'
            ? (f.options ?? []).map((o) => (
                <MenuItem key={o.value} value={o.value}>
                  {t(o.label)}
                </MenuItem>
              ))
            : undefined}
        </TextField>
      );
  }
}

/**
 * The form of a dialog: react-hook-form with the zod schema (errors as issue types the fields translate),
 * reset to `values(record)` each time the dialog opens.
 */
export function useResourceForm<V extends FieldValues, R>({
  open,
  record,
  schema,
  values,
}: {
  open: boolean;
  record: R | null;
  schema: z.ZodType<V>;
  values: (record: R | null) => V;
}): UseFormReturn<V> {
  const form = useForm<V>({
    resolver: zodResolver(schema as never) as unknown as Resolver<V>,
    defaultValues: values(record) as DefaultValues<V>,
  });
  const { reset } = form;
  useEffect(() => {
    if (open) reset(values(record));
    // `values` is a module-level mapping: reset when the dialog opens or its record changes.
  }, [open, record, reset]);
  return form;
}

export interface ResourceFormDialogProps<V extends FieldValues, R, I> {
  open: boolean;
  record: R | null;
  onClose(): void;
  form: UseFormReturn<V>;
  /** i18n prefix: `{i18n}.addTitle`, `{i18n}.editTitle`, `{i18n}.saved` (the success toast). */
  i18n: string;
  fields: FormField<V>[];
  /** The request body from the checked values. */
  toInput(values: V): I;
  /** Saves (`resource.useSave().mutateAsync`): without id a create, with one an update. */
  save(args: { id?: number; input: I }): Promise<R>;
  /** After the record is saved (uploads of the dialog), before the toast and closing. */
  afterSave?(saved: R): Promise<unknown>;
  /** Server error codes shown on a field (`ERR_TAG_ALREADY_EXISTS: 'name'`), as `errors.{code}`, besides the toast. */
  errorFields?: Partial<Record<string, Path<V>>>;
  /** Anything after the fields (a preview). */
  children?: ReactNode;
  maxWidth?: 'xs' | 'sm' | 'md' | 'lg';
}

/** The add/edit dialog of a resource: one Controller per declared field, save, toasts, server errors. */
export function ResourceFormDialog<V extends FieldValues, R extends { id: number }, I>({
  open,
  record,
  onClose,
  form,
  i18n,
  fields,
  toInput,
  save,
  afterSave,
  errorFields = {},
  children,
  maxWidth,
}: ResourceFormDialogProps<V, R, I>) {
  const { t } = useTranslation();
  const toast = useToast();
  const { control, handleSubmit, setError, formState } = form;
  const values = useWatch({ control }) as V;

  const submit = handleSubmit(async (checked) => {
    try {
      const saved = await save(
        record ? { id: record.id, input: toInput(checked) } : { input: toInput(checked) },
      );
      if (afterSave) await afterSave(saved);
      toast.success(`${i18n}.saved`);
      onClose();
    } catch (err) {
      const field = err instanceof ApiError ? errorFields[err.code] : undefined;
      if (field && err instanceof ApiError)
        setError(field, { type: 'custom', message: `errors.${err.code}` }, { shouldFocus: true });
      toast.error(err);
    }
  });

  const shown = fields.filter((f) => !(typeof f.hidden === 'function' ? f.hidden(values) : f.hidden));
  return (
    <FormDialog
      open={open}
      title={t(record ? `${i18n}.editTitle` : `${i18n}.addTitle`)}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth={maxWidth}
    >
      {shown.map((f) => (
        <Controller
          key={f.name}
          name={f.name}
          control={control}
          render={({ field, fieldState }) => (
            <FieldView f={f} field={field} fieldState={fieldState} values={values} />
          )}
        />
      ))}
      {children}
    </FormDialog>
  );
}

export default ResourceFormDialog;
