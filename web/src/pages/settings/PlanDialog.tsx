import { useEffect } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { FormControlLabel, Grid, InputAdornment, Switch, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PLAN_FLAGS, PlanInput, type Plan, type PlanFlag } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSavePlan } from '../../api/plans.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

type PlanForm = { name: string; users: string; connections: string; queues: string; value: string } & Record<
  PlanFlag,
  boolean
>;

const formValues = (p: Plan | null): PlanForm => ({
  name: p?.name ?? '',
  users: String(p?.users ?? 1),
  connections: String(p?.connections ?? 1),
  queues: String(p?.queues ?? 1),
  value: String(p?.value ?? 0),
  ...(Object.fromEntries(PLAN_FLAGS.map((f) => [f, p ? p[f] : true])) as Record<PlanFlag, boolean>),
});

/** Add or edit a plan (super user). */
export function PlanDialog({ open, plan, onClose }: { open: boolean; plan: Plan | null; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSavePlan();
  const { control, handleSubmit, reset, formState } = useForm<PlanForm>({
    resolver: zodResolver(PlanInput) as unknown as Resolver<PlanForm>,
    defaultValues: formValues(plan),
  });
  useEffect(() => {
    if (open) reset(formValues(plan));
  }, [open, plan, reset]);

  const submit = handleSubmit(async (values) => {
    try {
      // The resolver hands over PlanInput's output: numbers coerced, name trimmed.
      await save.mutateAsync({ id: plan?.id, input: values as unknown as PlanInput });
      toast.success('plans.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  const numberField = (name: 'users' | 'connections' | 'queues' | 'value') => (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          type="number"
          required
          label={t(`plans.${name}`)}
          error={Boolean(fieldState.error)}
          helperText={
            fieldState.error
              ? fieldState.error.type === 'invalid_type'
                ? t('plans.invalidNumber')
                : fieldErrorText(t, fieldState.error, {
                    value: field.value,
                    formatKey: 'plans.invalidNumber',
                  })
              : undefined
          }
          slotProps={{
            htmlInput: { min: name === 'value' ? 0 : 1, step: name === 'value' ? 0.01 : 1 },
            input:
              name === 'value'
                ? { startAdornment: <InputAdornment position="start">R$</InputAdornment> }
                : undefined,
          }}
        />
      )}
    />
  );

  return (
    <FormDialog
      open={open}
      title={t(plan ? 'plans.editTitle' : 'plans.addTitle')}
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
            label={t('plans.name')}
            required
            autoFocus
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
          />
        )}
      />
      <Grid container spacing={2}>
        <Grid size={{ xs: 6, sm: 3 }}>{numberField('users')}</Grid>
        <Grid size={{ xs: 6, sm: 3 }}>{numberField('connections')}</Grid>
        <Grid size={{ xs: 6, sm: 3 }}>{numberField('queues')}</Grid>
        <Grid size={{ xs: 6, sm: 3 }}>{numberField('value')}</Grid>
      </Grid>
      <Typography variant="subtitle2">{t('plans.features')}</Typography>
      <Grid container spacing={0.5}>
        {PLAN_FLAGS.map((flag) => (
          <Grid key={flag} size={{ xs: 12, sm: 6 }}>
            <Controller
              name={flag}
              control={control}
              render={({ field }) => (
                <FormControlLabel
                  control={
                    <Switch name={flag} checked={field.value} onChange={(_e, on) => field.onChange(on)} />
                  }
                  label={t(`plans.flags.${flag}`)}
                />
              )}
            />
          </Grid>
        ))}
      </Grid>
    </FormDialog>
  );
}

export default PlanDialog;
