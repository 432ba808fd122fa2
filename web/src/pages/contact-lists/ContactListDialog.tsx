import { useEffect } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ContactListInput, type ContactList } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSaveContactList } from '../../api/contact-lists.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

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
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveContactList();
  const { control, handleSubmit, reset, formState } = useForm<{ name: string }>({
    resolver: zodResolver(ContactListInput) as unknown as Resolver<{ name: string }>,
    defaultValues: { name: list?.name ?? '' },
  });
  useEffect(() => {
    if (open) reset({ name: list?.name ?? '' });
  }, [open, list, reset]);

  const submit = handleSubmit(async (input) => {
    try {
      await save.mutateAsync({ id: list?.id, input });
      toast.success('contactLists.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  return (
    <FormDialog
      open={open}
      title={t(list ? 'contactLists.editTitle' : 'contactLists.addTitle')}
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
            label={t('contactLists.name')}
            autoFocus
            required
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{ htmlInput: { 'data-field': 'name' } }}
          />
        )}
      />
    </FormDialog>
  );
}

export default ContactListDialog;
