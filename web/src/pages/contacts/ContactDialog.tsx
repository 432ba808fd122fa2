import { useEffect, useMemo, useRef, useState } from 'react';
import { Controller, useFieldArray, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { useQuery } from '@tanstack/react-query';
import {
  Autocomplete,
  Box,
  Button,
  CircularProgress,
  IconButton,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import { useTranslation } from 'react-i18next';
import {
  ContactEmail,
  ContactName,
  ContactNumber,
  MAX_CONTACT_EXTRA_INFO,
  numberForEdit,
  type ContactView,
} from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { contactKeys, fetchContact, useCreateContact, useUpdateContact } from '../../api/contacts.js';
import { useUserOptions } from '../../api/tickets.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { useCustomFields } from '../../api/custom-fields.js';
import {
  CustomFieldsEditor,
  customFieldErrorsOf,
  customFieldsInput,
  rawCustomFields,
  type RawCustomFields,
} from '../custom-fields/CustomFieldValues.js';
import { useCustomFieldsT } from '../custom-fields/custom-fields-i18n.js';
import { ContactPrivacySection } from '../privacy/ContactPrivacySection.js';

const ExtraInfoRow = z.object({
  name: z.string().trim().min(1).max(100),
  value: z.string().trim().max(1000),
});

// docs/product.md#validation: name 2–50, number 8–50 digits, e-mail valid or empty.
const schemaFor = (numberRequired: boolean) =>
  z.object({
    name: ContactName,
    number: numberRequired ? ContactNumber : ContactNumber.or(z.literal('')),
    email: ContactEmail,
    extraInfo: z.array(ExtraInfoRow).max(MAX_CONTACT_EXTRA_INFO),
    ownerId: z.number().nullable(),
  });

interface ContactForm {
  name: string;
  number: string;
  email: string;
  extraInfo: { name: string; value: string }[];
  /** #30.4 The owner attendant (a user of the company), or none. */
  ownerId: number | null;
}

const formValues = (contact: ContactView | null | undefined): ContactForm => ({
  name: contact?.name ?? '',
  // Shown without the 55 prefix; the server adds it back (docs/product.md#validation).
  number: contact ? numberForEdit(contact.number) : '',
  email: contact?.email ?? '',
  extraInfo: (contact?.extraInfo ?? []).map(({ name, value }) => ({ name, value })),
  ownerId: contact?.ownerId ?? null,
});

/** The server names the field it refused (ERR_VALIDATION with fields[].path). */
const refusedField = (err: ApiError, path: string) =>
  ((err.body as { fields?: { path?: string }[] } | undefined)?.fields ?? []).some((f) => f.path === path);

/** Server refusals that belong to the number field. */
const NUMBER_ERRORS = new Set(['ERR_DUPLICATED_CONTACT', 'ERR_WAPP_INVALID_CONTACT']);

/** Add or edit a contact: name, number, e-mail and extra name/value pairs. */
export function ContactDialog({
  open,
  contact,
  onClose,
}: {
  open: boolean;
  /** null: a new contact. */
  contact: ContactView | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const create = useCreateContact();
  const update = useUpdateContact();
  // The list rows carry no extra info: the dialog reads the whole contact.
  const detail = useQuery({
    queryKey: contactKeys.detail(contact?.id ?? 0),
    queryFn: () => fetchContact(contact!.id),
    enabled: open && Boolean(contact),
  });
  const loaded = contact ? detail.data : null;
  const schema = useMemo(() => schemaFor(!contact || contact.number !== ''), [contact]);
  const { control, handleSubmit, reset, setError, formState } = useForm<ContactForm>({
    resolver: zodResolver(schema) as unknown as Resolver<ContactForm>,
    defaultValues: formValues(contact),
  });
  const extra = useFieldArray({ control, name: 'extraInfo' });
  const users = useUserOptions(open);
  // #32.7 Custom fields: typed inputs beside the form, sent as the values that changed.
  const { t: tf } = useCustomFieldsT();
  const defs = useCustomFields('contact', open).fields;
  const [custom, setCustom] = useState<RawCustomFields>({});
  const [customErrors, setCustomErrors] = useState<Record<string, string>>({});

  // Fill the form once per opening: with the list row at first, then with the whole contact when it
  // arrives. Later changes of the cached contact (live events) never overwrite what is being typed.
  const filledWith = useRef<string | null>(null);
  useEffect(() => {
    if (!open) {
      filledWith.current = null;
      return;
    }
    const key = contact ? `${contact.id}:${loaded ? 'full' : 'row'}` : 'new';
    if (filledWith.current === key || filledWith.current === `${contact?.id}:full`) return;
    filledWith.current = key;
    reset(formValues(loaded ?? contact));
  }, [open, contact, loaded, reset]);
  const storedCustom = (loaded ?? contact)?.customFields;
  const customFilled = useRef<string | null>(null);
  useEffect(() => {
    if (!open) {
      customFilled.current = null;
      return;
    }
    const key = `${contact?.id ?? 'new'}:${defs.map((d) => d.key).join(',')}:${loaded ? 'full' : 'row'}`;
    if (customFilled.current === key) return;
    customFilled.current = key;
    setCustom(rawCustomFields(defs, storedCustom));
    setCustomErrors({});
  }, [open, contact, loaded, defs, storedCustom]);

  const submit = handleSubmit(async (values) => {
    const fields = customFieldsInput(defs, custom, storedCustom);
    setCustomErrors(fields.errors);
    if (Object.keys(fields.errors).length) return;
    const input = {
      name: values.name,
      email: values.email,
      extraInfo: values.extraInfo,
      // Sent only when changed, so other edits never trip over an owner the server would now refuse.
      ...(values.ownerId !== ((loaded ?? contact)?.ownerId ?? null) ? { ownerId: values.ownerId } : {}),
      ...(values.number ? { number: values.number } : {}),
      ...(Object.keys(fields.input).length ? { customFields: fields.input } : {}),
    };
    try {
      if (contact) await update.mutateAsync({ id: contact.id, input });
      else await create.mutateAsync({ ...input, number: values.number });
      toast.success('contacts.saved');
      onClose();
    } catch (err) {
      if (err instanceof ApiError && NUMBER_ERRORS.has(err.code))
        setError('number', { type: 'server', message: t(`errors.${err.code}`) }, { shouldFocus: true });
      else if (err instanceof ApiError && refusedField(err, 'ownerId'))
        setError('ownerId', { type: 'server', message: t('contacts.ownerRefused') });
      setCustomErrors(customFieldErrorsOf(err));
      toast.error(err);
    }
  });

  const loading = Boolean(contact) && detail.isLoading;
  return (
    <FormDialog
      open={open}
      title={t(contact ? 'contacts.editTitle' : 'contacts.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting || loading}
    >
      <Controller
        name="name"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('contacts.name')}
            autoFocus
            required
            autoComplete="off"
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{ htmlInput: { maxLength: 50 } }}
          />
        )}
      />
      <Controller
        name="number"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('contacts.number')}
            required={!contact || contact.number !== ''}
            type="tel"
            autoComplete="off"
            placeholder="(11) 98888-7777"
            error={Boolean(fieldState.error)}
            helperText={
              fieldState.error
                ? fieldState.error.type === 'server'
                  ? fieldState.error.message
                  : t(field.value.trim() ? 'contacts.invalidNumber' : 'common.required')
                : t('contacts.numberHelp')
            }
            slotProps={{ htmlInput: { maxLength: 50, inputMode: 'tel' } }}
          />
        )}
      />
      <Controller
        name="email"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            type="email"
            label={t('contacts.email')}
            autoComplete="off"
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: 'x', formatKey: 'common.invalidEmail' })}
            slotProps={{ htmlInput: { maxLength: 120 } }}
          />
        )}
      />
      <Controller
        name="ownerId"
        control={control}
        render={({ field, fieldState }) => {
          const options = users.data ?? [];
          const selected = options.find((u) => u.id === field.value) ?? null;
          return (
            <Autocomplete
              options={options}
              value={selected}
              loading={users.isLoading}
              onChange={(_, user) => field.onChange(user?.id ?? null)}
              onBlur={field.onBlur}
              getOptionLabel={(u) => u.name}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              renderInput={(params) => (
                <TextField
                  {...params}
                  label={t('contacts.owner')}
                  error={Boolean(fieldState.error)}
                  helperText={fieldState.error ? fieldState.error.message : t('contacts.ownerHelp')}
                />
              )}
            />
          );
        }}
      />

      {defs.length > 0 && (
        <Box data-testid="contact-custom-fields">
          <Typography variant="subtitle2" sx={{ mb: 1 }}>
            {tf('customFields:values.title')}
          </Typography>
          <CustomFieldsEditor fields={defs} value={custom} onChange={setCustom} errors={customErrors} />
        </Box>
      )}
      <Box>
        <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
          <Typography variant="subtitle2">{t('contacts.extraInfo')}</Typography>
          <Button
            size="small"
            startIcon={<AddIcon />}
            onClick={() => extra.append({ name: '', value: '' })}
            disabled={extra.fields.length >= MAX_CONTACT_EXTRA_INFO}
          >
            {t('contacts.addExtraInfo')}
          </Button>
        </Stack>
        {loading ? (
          <Box sx={{ display: 'flex', justifyContent: 'center', py: 1 }}>
            <CircularProgress size={20} aria-label={t('common.loading')} />
          </Box>
        ) : extra.fields.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            {t('contacts.noExtraInfo')}
          </Typography>
        ) : (
          <Stack spacing={1.5} data-testid="extra-info">
            {extra.fields.map((f, i) => (
              <Stack key={f.id} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
                <Controller
                  name={`extraInfo.${i}.name`}
                  control={control}
                  render={({ field, fieldState }) => (
                    <TextField
                      {...field}
                      size="small"
                      label={t('contacts.extraInfoName')}
                      error={Boolean(fieldState.error)}
                      helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
                      sx={{ flex: 1 }}
                      slotProps={{ htmlInput: { maxLength: 100 } }}
                    />
                  )}
                />
                <Controller
                  name={`extraInfo.${i}.value`}
                  control={control}
                  render={({ field, fieldState }) => (
                    <TextField
                      {...field}
                      size="small"
                      label={t('contacts.extraInfoValue')}
                      error={Boolean(fieldState.error)}
                      helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
                      sx={{ flex: 1.4 }}
                      slotProps={{ htmlInput: { maxLength: 1000 } }}
                    />
                  )}
                />
                <Tooltip title={t('contacts.removeExtraInfo')}>
                  <IconButton
                    aria-label={t('contacts.removeExtraInfo')}
                    onClick={() => extra.remove(i)}
                    sx={{ mt: 0.25 }}
                  >
                    <DeleteOutlinedIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              </Stack>
            ))}
          </Stack>
        )}
      </Box>
      {/* #35 The data subject requests (export, erase) and the consent state, as in the ticket's contact drawer. */}
      {contact ? <ContactPrivacySection contactId={contact.id} name={contact.name} inset={false} /> : null}
    </FormDialog>
  );
}

export default ContactDialog;
