import { useEffect, useMemo } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Box, Button, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import SaveIcon from '@mui/icons-material/Save';
import { useTranslation } from 'react-i18next';
import { CompanySchedulesInput, WEEKDAYS, can, type DaySchedule } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useCompany, useSaveCompanySchedules } from '../../api/companies.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { OutOfHoursWarning } from '../../components/OutOfHoursWarning.js';

type Weekday = (typeof WEEKDAYS)[number];

/** docs/bot.md default: Monday to Friday 08:00–18:00, Saturday 08:00–12:00, Sunday 00:00–00:00. */
export function defaultSchedules(dayName: (d: Weekday) => string): DaySchedule[] {
  return WEEKDAYS.map((weekdayEn) => ({
    weekday: dayName(weekdayEn),
    weekdayEn,
    startTime: weekdayEn === 'sunday' ? '00:00' : '08:00',
    endTime: weekdayEn === 'sunday' ? '00:00' : weekdayEn === 'saturday' ? '12:00' : '18:00',
  }));
}

/** Keeps what was typed in the ##:## shape: digits only, a colon after the hour. */
export function maskTime(raw: string): string {
  const digits = raw.replace(/\D/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)}:${digits.slice(2)}` : digits;
}

interface SchedulesForm {
  schedules: DaySchedule[];
}

/** The company's opening hours (shown when the schedule type setting is "company"). */
export function SchedulesTab() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const company = useCompany(user?.companyId);
  const save = useSaveCompanySchedules();
  const manage = can(user, 'settings:manage');
  const dayName = (d: Weekday) => t(`settings.schedules.weekdays.${d}`);

  const loaded = useMemo<DaySchedule[] | undefined>(() => {
    if (!company.data) return undefined;
    const stored = company.data.schedules ?? [];
    // One row per weekday in order, whatever the stored array holds; the defaults fill the gaps.
    return defaultSchedules((d) => t(`settings.schedules.weekdays.${d}`)).map(
      (d) => stored.find((s) => s.weekdayEn === d.weekdayEn) ?? d,
    );
  }, [company.data, t]);

  const { control, handleSubmit, reset, formState } = useForm<SchedulesForm>({
    resolver: zodResolver(CompanySchedulesInput) as unknown as Resolver<SchedulesForm>,
    defaultValues: { schedules: defaultSchedules(dayName) },
  });
  useEffect(() => {
    if (loaded) reset({ schedules: loaded });
  }, [loaded, reset]);

  const submit = handleSubmit(async ({ schedules }) => {
    if (!user) return;
    try {
      await save.mutateAsync({ id: user.companyId, schedules });
      toast.success('settings.schedules.saved');
    } catch (err) {
      toast.error(err);
    }
  });

  if (company.isLoading)
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
        <CircularProgress size={28} />
      </Box>
    );
  if (company.isError) return <Alert severity="error">{t('settings.schedules.loadError')}</Alert>;

  return (
    <Box component="form" noValidate onSubmit={(e) => void submit(e)} sx={{ maxWidth: 640 }}>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {t('settings.schedules.intro')}
      </Typography>
      <Box sx={{ mb: 2 }}>
        <OutOfHoursWarning />
      </Box>
      <Stack spacing={1.5}>
        {WEEKDAYS.map((day, index) => (
          <Box
            key={day}
            data-testid={`schedule-${day}`}
            sx={{
              display: 'grid',
              gridTemplateColumns: { xs: '1fr 1fr', sm: '180px 1fr 1fr' },
              gap: 1.5,
              alignItems: 'start',
            }}
          >
            <Typography sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' }, pt: { sm: 1 }, fontWeight: 500 }}>
              {dayName(day)}
            </Typography>
            {(['startTime', 'endTime'] as const).map((field) => (
              <Controller
                key={field}
                name={`schedules.${index}.${field}`}
                control={control}
                render={({ field: f, fieldState }) => (
                  <TextField
                    {...f}
                    onChange={(e) => f.onChange(maskTime(e.target.value))}
                    label={t(field === 'startTime' ? 'settings.schedules.start' : 'settings.schedules.end')}
                    placeholder="08:00"
                    disabled={!manage}
                    error={Boolean(fieldState.error)}
                    helperText={fieldErrorText(t, fieldState.error, {
                      value: f.value,
                      formatKey: 'settings.schedules.invalidTime',
                    })}
                    slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 5 } }}
                  />
                )}
              />
            ))}
          </Box>
        ))}
      </Stack>
      {manage ? (
        <Box sx={{ mt: 3, display: 'flex', justifyContent: 'flex-end' }}>
          <Button
            type="submit"
            variant="contained"
            disabled={formState.isSubmitting}
            startIcon={formState.isSubmitting ? <CircularProgress size={16} color="inherit" /> : <SaveIcon />}
          >
            {t('common.save')}
          </Button>
        </Box>
      ) : null}
    </Box>
  );
}
