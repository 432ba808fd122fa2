import { z } from 'zod';
import { MACRO_MAX_ACTIONS, MacroInput, type Macro } from '@recado/contracts';
import { macroResource } from '../../api/macros.js';
import { useAuth } from '../../app/auth.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';
import { MacroActionsEditor, toActions, type DraftAction } from './MacroActionsEditor.js';
import './macros-i18n.js';

const MacroForm = z.object({
  name: MacroInput.shape.name,
  visibility: z.enum(['personal', 'company']),
  actions: z
    .array(z.looseObject({ type: z.string() }))
    .min(1, 'macros:macros.noActions')
    .max(MACRO_MAX_ACTIONS, 'macros:macros.maxActions'),
});
type MacroFormValues = z.infer<typeof MacroForm>;

const formValues = (m: Macro | null): MacroFormValues => ({
  name: m?.name ?? '',
  visibility: m?.visibility ?? 'personal',
  actions: (m?.actions ?? []) as MacroFormValues['actions'],
});

/** Add or edit a macro: its name, who sees it (admins may share it with the company) and its ordered actions. */
export function MacroDialog({
  open,
  record,
  onClose,
}: {
  open: boolean;
  record: Macro | null;
  onClose(): void;
}) {
  const { user } = useAuth();
  const save = macroResource.useSave();
  const admin = user?.profile === 'admin' || Boolean(user?.super);
  const form = useResourceForm({ open, record, schema: MacroForm, values: formValues });
  const fields: FormField<MacroFormValues>[] = [
    {
      name: 'name',
      kind: 'text',
      label: 'macros:macros.name',
      required: true,
      autoFocus: true,
      maxLength: 100,
      inputProps: { 'data-field': 'name' },
    },
    {
      name: 'visibility',
      kind: 'select',
      label: 'macros:macros.visibility',
      options: [
        { value: 'personal', label: 'macros:macros.personal' },
        { value: 'company', label: 'macros:macros.company' },
      ],
      hidden: !admin,
      inputProps: { 'data-field': 'visibility' },
    },
    {
      name: 'actions',
      kind: 'custom',
      render: ({ field, errorText }) => (
        <MacroActionsEditor
          value={(field.value ?? []) as DraftAction[]}
          onChange={(next) => field.onChange(next)}
          error={errorText}
        />
      ),
    },
  ];
  return (
    <ResourceFormDialog
      open={open}
      record={record}
      onClose={onClose}
      form={form}
      i18n="macros:macros"
      fields={fields}
      toInput={(v) => ({
        name: v.name.trim(),
        visibility: v.visibility,
        actions: toActions(v.actions as DraftAction[]),
      })}
      save={save.mutateAsync}
    />
  );
}
