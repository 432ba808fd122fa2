import { useEffect } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ContactListItemInput, numberForEdit, type ContactListItemView } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSaveContactListItem } from '../../api/contact-lists.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

interface ItemForm {
  name: string;
  number: string;
  email: string;
}

const schema = ContactListItemInput.omit({ contactListId: true });
const values = (item: ContactListItemView | null): ItemForm => ({
  name: item?.name ?? '',
  number: item ? numberForEdit(item.number) : '',
  email: item?.email ?? '',
});

/** Add or edit one item of a list (docs/campaigns.md: name 2–50, number 8–50, e-mail valid). */
export function ContactListItemDialog({
  open,
  listId,
  item,
  onClose,
}: {
  open: boolean;
  listId: number;
  item: ContactListItemView | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveContactListItem();
  const { control, handleSubmit, reset, formState } = useForm<ItemForm>({
    resolver: zodResolver(schema) as unknown as Resolver<ItemForm>,
    defaultValues: values(item),
  });
  useEffect(() => {
    if (open) reset(values(item));
  }, [open, item, reset]);

  const submit = handleSubmit(async (input) => {
    try {
      if (item) await save.mutateAsync({ id: item.id, input });
      else await save.mutateAsync({ input: { ...input, contactListId: listId } });
      toast.success('contactLists.itemSaved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  const field = (name: keyof ItemForm, label: string, extra: object = {}) => (
    <Controller
      name={name}
      control={control}
      render={({ field: f, fieldState }) => (
        <TextField
          {...f}
          label={label}
          error={Boolean(fieldState.error)}
          helperText={fieldErrorText(t, fieldState.error, {
            value: f.value,
            formatKey: name === 'number' ? 'contactLists.invalidNumber' : undefined,
          })}
          slotProps={{ htmlInput: { 'data-field': name } }}
          {...extra}
        />
      )}
    />
  );

  return (
    <FormDialog
      open={open}
      title={t(item ? 'contactLists.editItemTitle' : 'contactLists.addItemTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
    >
      {field('name', t('contactLists.name'), { autoFocus: true, required: true })}
      {field('number', t('contactLists.number'), {
        required: true,
        placeholder: '11 98888-7777',
        inputMode: 'tel',
      })}
      {field('email', t('contactLists.email'), { type: 'email' })}
    </FormDialog>
  );
}

export default ContactListItemDialog;
