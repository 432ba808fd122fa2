import { useEffect } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Divider, FormControlLabel, Grid, MenuItem, Switch, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  CompanyInput,
  RECURRENCES,
  type Company,
  type CompanyUpdate,
  type Recurrence,
} from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { usePlans } from '../../api/plans.js';
import { useCreateCompany, useUpdateCompany } from '../../api/companies.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { DateField } from '../../components/DateField.js';

const optional = <T extends z.ZodType>(schema: T) => z.literal('').or(schema);
const schema = z
  .object({
    name: CompanyInput.shape.name,
    email: z.string().trim().pipe(optional(z.email())),
    phone: z.string().trim().max(20),
    planId: z.coerce.number().int().positive(),
    status: z.boolean(),
    dueDate: optional(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)),
    recurrence: z.enum(RECURRENCES),
    trialPeriod: z.boolean(),
    adminName: z
      .string()
      .trim()
      .pipe(optional(z.string().min(2).max(50))),
    adminPassword: optional(z.string().min(5).max(50)),
  })
  // The first admin signs in with the company's e-mail.
  .refine((v) => !v.adminPassword || v.email, { path: ['email'], message: 'companies.adminNeedsEmail' })
  .refine((v) => !v.adminName || v.adminPassword, { path: ['adminPassword'], message: 'common.required' });

interface CompanyForm {
  name: string;
  email: string;
  phone: string;
  planId: number | '';
  status: boolean;
  dueDate: string;
  recurrence: Recurrence;
  trialPeriod: boolean;
  adminName: string;
  adminPassword: string;
}

const formValues = (c: Company | null, defaultPlanId: number | ''): CompanyForm => ({
  name: c?.name ?? '',
  email: c?.email ?? '',
  phone: c?.phone ?? '',
  planId: c?.planId ?? defaultPlanId,
  status: c?.status ?? true,
  dueDate: c?.dueDate?.slice(0, 10) ?? '',
  recurrence: (c?.recurrence as Recurrence | undefined) ?? 'MENSAL',
  trialPeriod: c?.trialPeriod ?? false,
  adminName: '',
  adminPassword: '',
});

/** Add or edit a company (super user); on creation an optional first admin. */
export function CompanyDialog({
  open,
  company,
  onClose,
}: {
  open: boolean;
  company: Company | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const plans = usePlans(open);
  const create = useCreateCompany();
  const update = useUpdateCompany();
  const { control, handleSubmit, reset, formState } = useForm<CompanyForm>({
    resolver: zodResolver(schema) as unknown as Resolver<CompanyForm>,
    defaultValues: formValues(company, ''),
  });
  const firstPlanId = plans.data?.[0]?.id ?? '';
  useEffect(() => {
    if (open) reset(formValues(company, firstPlanId));
  }, [open, company, firstPlanId, reset]);

  const submit = handleSubmit(async (v) => {
    const fields: CompanyUpdate = {
      name: v.name.trim(),
      email: v.email.trim(),
      phone: v.phone,
      planId: Number(v.planId),
      status: v.status,
      dueDate: v.dueDate || null,
      recurrence: v.recurrence,
      trialPeriod: v.trialPeriod,
    };
    try {
      if (company) await update.mutateAsync({ id: company.id, input: fields });
      else
        await create.mutateAsync({
          ...(fields as CompanyInput),
          ...(v.adminPassword
            ? { adminName: v.adminName.trim() || undefined, adminPassword: v.adminPassword }
            : {}),
        });
      toast.success('companies.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  const text = (name: 'name' | 'email' | 'phone' | 'adminName' | 'adminPassword', extra: object = {}) => (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          {...extra}
          label={t(`companies.${name}`)}
          error={Boolean(fieldState.error)}
          helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
        />
      )}
    />
  );
  const toggle = (name: 'status' | 'trialPeriod', label: string) => (
    <Controller
      name={name}
      control={control}
      render={({ field }) => (
        <FormControlLabel
          control={<Switch name={name} checked={field.value} onChange={(_e, on) => field.onChange(on)} />}
          label={label}
        />
      )}
    />
  );

  return (
    <FormDialog
      open={open}
      title={t(company ? 'companies.editTitle' : 'companies.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth="md"
    >
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6 }}>{text('name', { required: true, autoFocus: true })}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>{text('email', { type: 'email', autoComplete: 'off' })}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>{text('phone', { type: 'tel' })}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <Controller
            name="planId"
            control={control}
            render={({ field, fieldState }) => (
              <TextField
                {...field}
                select
                required
                label={t('companies.plan')}
                error={Boolean(fieldState.error)}
                helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
              >
                {(plans.data ?? []).map((p) => (
                  <MenuItem key={p.id} value={p.id}>
                    {p.name}
                  </MenuItem>
                ))}
                {/* Keeps the current value valid while the plans load. */}
                {!plans.data && field.value !== '' ? (
                  <MenuItem value={field.value}>{company?.plan?.name ?? field.value}</MenuItem>
                ) : null}
              </TextField>
            )}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 4 }}>
          <Controller
            name="dueDate"
            control={control}
            render={({ field, fieldState }) => (
              <DateField
                kind="date"
                name={field.name}
                value={field.value}
                onChange={field.onChange}
                fullWidth
                label={t('companies.dueDate')}
                error={Boolean(fieldState.error)}
                helperText={fieldErrorText(t, fieldState.error, {
                  value: field.value,
                  formatKey: 'companies.invalidDate',
                })}
                testId="company-due-date"
              />
            )}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 4 }}>
          <Controller
            name="recurrence"
            control={control}
            render={({ field }) => (
              <TextField {...field} select label={t('companies.recurrence')}>
                {RECURRENCES.map((r) => (
                  <MenuItem key={r} value={r}>
                    {t(`companies.recurrences.${r}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Grid>
        <Grid
          size={{ xs: 12, sm: 4 }}
          sx={{ display: 'flex', flexDirection: 'column', justifyContent: 'center' }}
        >
          {toggle('status', t('companies.active'))}
          {toggle('trialPeriod', t('companies.trialPeriod'))}
        </Grid>
        {!company ? (
          <>
            <Grid size={12}>
              <Divider />
              <Typography variant="subtitle2" sx={{ mt: 2 }}>
                {t('companies.firstAdmin')}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {t('companies.firstAdminHelp')}
              </Typography>
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>{text('adminName', { autoComplete: 'off' })}</Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              {text('adminPassword', { type: 'password', autoComplete: 'new-password' })}
            </Grid>
          </>
        ) : null}
      </Grid>
    </FormDialog>
  );
}

export default CompanyDialog;
