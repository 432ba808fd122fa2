import { z } from 'zod';
import { ClosingReasonInput, type ClosingReason } from '@recado/contracts';
import { closingReasonResource } from '../../api/closing-reasons.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';

const schema = z.object({
  name: ClosingReasonInput.shape.name,
  active: z.boolean(),
  position: z.number().int().min(0).max(10000),
});
type Form = z.infer<typeof schema>;

const valuesOf = (r: ClosingReason | null): Form => ({
  name: r?.name ?? '',
  active: r?.active ?? true,
  position: r?.position ?? 0,
});

/** Add or edit a closing reason (#32.3): name, active, order. */
export function ClosingReasonDialog({
  open,
  record,
  onClose,
}: {
  open: boolean;
  record: ClosingReason | null;
  onClose(): void;
}) {
  const save = closingReasonResource.useSave();
  const form = useResourceForm({ open, record, schema, values: valuesOf });
  const fields: FormField<Form>[] = [
    {
      name: 'name',
      kind: 'text',
      label: 'closing:page.name',
      required: true,
      autoFocus: true,
      maxLength: 80,
      inputProps: { 'data-testid': 'closing-reason-name' },
    },
    {
      name: 'active',
      kind: 'switch',
      label: 'closing:page.active',
      hint: 'closing:page.activeHint',
      inputProps: { 'data-testid': 'closing-reason-active' },
    },
    {
      name: 'position',
      kind: 'number',
      label: 'closing:page.position',
      inputProps: { min: 0, 'data-testid': 'closing-reason-position' },
    },
  ];
  return (
    <ResourceFormDialog
      open={open}
      record={record}
      onClose={onClose}
      form={form}
      i18n="closing:page"
      fields={fields}
      toInput={(v) => ({ name: v.name.trim(), active: v.active, position: v.position })}
      save={(args) => save.mutateAsync(args)}
    />
  );
}
