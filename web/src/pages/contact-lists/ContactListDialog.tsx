import { ContactListInput, type ContactList } from '@recado/contracts';
import { useSaveContactList } from '../../api/contact-lists.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';

type Form = { name: string };
const valuesOf = (list: ContactList | null): Form => ({ name: list?.name ?? '' });
const fields: FormField<Form>[] = [
  {
    name: 'name',
    kind: 'text',
    label: 'contactLists.name',
    autoFocus: true,
    required: true,
    inputProps: { 'data-field': 'name' },
  },
];

/** Add or rename a contact list (docs/campaigns.md: name 2 to 50 characters). */
export function ContactListDialog({
  open,
  list,
  onClose,
}: {
  open: boolean;
  list: ContactList | null;
  onClose(): void;
}) {
  const save = useSaveContactList();
  const form = useResourceForm({ open, record: list, schema: ContactListInput, values: valuesOf });
  return (
    <ResourceFormDialog
      open={open}
      record={list}
      onClose={onClose}
      form={form}
      i18n="contactLists"
      fields={fields}
      toInput={(values) => values}
      save={save.mutateAsync}
    />
  );
}

export default ContactListDialog;
