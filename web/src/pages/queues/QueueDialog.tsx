import { useEffect, useMemo, useState } from 'react';
import { Controller, useForm, type FieldErrors, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Alert, Box, Button, Grid, MenuItem, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  ASSIGNMENT_POLICIES,
  DEFAULT_QUEUE_SCHEDULES,
  DaySchedule,
  QueueInput,
  WEEKDAYS,
  type Queue,
  type QueueUpdate,
} from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useSaveQueue } from '../../api/queues.js';
import { useSetting } from '../../api/settings.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { ColorPalette } from './ColorPalette.js';
import { QueueOptionsEditor } from './QueueOptionsEditor.js';
import { PromptSelect } from '../prompts/PromptSelect.js';
import { IntegrationSelect } from '../queue-integrations/IntegrationSelect.js';

type TabKey = 'data' | 'routing' | 'schedules' | 'options';

/** A whole number typed in a text field ('' allowed where `empty` says so). */
const wholeNumber = (empty: boolean, message: string) =>
  z.string().refine((v) => (empty && v.trim() === '') || /^\d{1,4}$/.test(v.trim()), message);

const QueueForm = z.object({
  name: QueueInput.shape.name,
  color: z
    .string()
    .trim()
    .regex(/^#[0-9a-fA-F]{6}$/, 'queues.form.invalidColor'),
  orderQueue: z
    .string()
    .refine((v) => v.trim() === '' || /^\d{1,4}$/.test(v.trim()), 'queues.form.invalidOrder'),
  greetingMessage: z.string().max(4000),
  outOfHoursMessage: z.string().max(4000),
  completionMessage: z.string().max(4000),
  schedules: z.array(DaySchedule).length(7),
  /** '' = no AI prompt. */
  promptId: z.string(),
  /** '' = no queue integration. */
  integrationId: z.string(),
  /** Routing (docs/routing.md). */
  assignmentPolicy: z.enum(ASSIGNMENT_POLICIES),
  /** '' = each user's own maximum. */
  capacity: wholeNumber(true, 'queues.routing.invalidNumber'),
  waitingMessage: z.string().max(4000),
  waitingMessageStep: wholeNumber(false, 'queues.routing.invalidNumber').refine(
    (v) => Number(v) >= 1,
    'queues.routing.invalidNumber',
  ),
  waitingMessageInterval: wholeNumber(false, 'queues.routing.invalidNumber'),
});
type QueueFormValues = z.infer<typeof QueueForm>;

/** Keeps what was typed in the ##:## shape: digits only, a colon after the hour. */
const maskTime = (raw: string) => {
  const digits = raw.replace(/\D/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)}:${digits.slice(2)}` : digits;
};

/** One row per weekday in order, whatever the stored array holds; the defaults of docs/product.md#constants fill the gaps. */
const weekOf = (stored: DaySchedule[] | undefined): DaySchedule[] =>
  DEFAULT_QUEUE_SCHEDULES.map((d) => stored?.find((s) => s.weekdayEn === d.weekdayEn) ?? { ...d });

const formValues = (q: Queue | null): QueueFormValues => ({
  name: q?.name ?? '',
  color: q?.color ?? '',
  orderQueue: q?.orderQueue === null || q?.orderQueue === undefined ? '' : String(q.orderQueue),
  greetingMessage: q?.greetingMessage ?? '',
  outOfHoursMessage: q?.outOfHoursMessage ?? '',
  completionMessage: q?.completionMessage ?? '',
  schedules: weekOf(q?.schedules),
  promptId: q?.promptId ? String(q.promptId) : '',
  integrationId: q?.integrationId ? String(q.integrationId) : '',
  assignmentPolicy: q?.assignmentPolicy ?? 'manual',
  capacity: q?.capacity === null || q?.capacity === undefined ? '' : String(q.capacity),
  waitingMessage: q?.waitingMessage ?? '',
  waitingMessageStep: String(q?.waitingMessageStep ?? 1),
  waitingMessageInterval: String(q?.waitingMessageInterval ?? 5),
});

const ROUTING_FIELDS = [
  'assignmentPolicy',
  'capacity',
  'waitingMessage',
  'waitingMessageStep',
  'waitingMessageInterval',
] as const;

const SCHEDULE_FIELDS = ['schedules'] as const;

/** Add or edit a queue: its data, its attendance time (queue-level schedules) and its option tree. */
export function QueueDialog({
  open,
  queue,
  queues,
  onClose,
}: {
  open: boolean;
  queue: Queue | null;
  /** The company's queues, to mark the colours already taken. */
  queues: Queue[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveQueue();
  const queueSchedules = useSetting('scheduleType') === 'queue';
  const [tab, setTab] = useState<TabKey>('data');
  /** A queue created from the options tab: the dialog goes on editing it. */
  const [created, setCreated] = useState<Queue | null>(null);
  const current = queue ?? created;
  const { control, handleSubmit, reset, setError, formState } = useForm<QueueFormValues>({
    resolver: zodResolver(QueueForm) as unknown as Resolver<QueueFormValues>,
    defaultValues: formValues(queue),
  });

  useEffect(() => {
    if (open) {
      reset(formValues(queue));
      setTab('data');
      setCreated(null);
    }
  }, [open, queue, reset]);
  // The schedules tab disappears when the setting changes to company-level while open.
  useEffect(() => {
    if (tab === 'schedules' && !queueSchedules) setTab('data');
  }, [tab, queueSchedules]);

  const usedBy = useMemo(
    () => new Map(queues.filter((q) => q.id !== current?.id).map((q) => [q.color.toUpperCase(), q.name])),
    [queues, current?.id],
  );

  const showInvalid = (errors: FieldErrors<QueueFormValues>) => {
    const onSchedules = SCHEDULE_FIELDS.some((k) => errors[k]);
    const onRouting = ROUTING_FIELDS.some((k) => errors[k]);
    const onData = Object.keys(errors).some(
      (k) =>
        !SCHEDULE_FIELDS.includes(k as 'schedules') &&
        !ROUTING_FIELDS.includes(k as (typeof ROUTING_FIELDS)[number]),
    );
    setTab(onData ? 'data' : onRouting ? 'routing' : onSchedules && queueSchedules ? 'schedules' : tab);
  };

  const persist = async (values: QueueFormValues, keepOpen: boolean) => {
    const input: QueueUpdate = {
      name: values.name.trim(),
      color: values.color.trim().toUpperCase(),
      orderQueue: values.orderQueue.trim() === '' ? null : Number(values.orderQueue),
      greetingMessage: values.greetingMessage,
      outOfHoursMessage: values.outOfHoursMessage,
      completionMessage: values.completionMessage,
      promptId: values.promptId === '' ? null : Number(values.promptId),
      integrationId: values.integrationId === '' ? null : Number(values.integrationId),
      assignmentPolicy: values.assignmentPolicy,
      capacity: values.capacity.trim() === '' ? null : Number(values.capacity),
      waitingMessage: values.waitingMessage,
      waitingMessageStep: Number(values.waitingMessageStep),
      waitingMessageInterval: Number(values.waitingMessageInterval),
      // Queue-level hours are edited only when the company works that way; otherwise they stay as stored.
      ...(queueSchedules ? { schedules: values.schedules } : {}),
    };
    try {
      const saved = await save.mutateAsync(current ? { id: current.id, input } : { input });
      toast.success('queues.saved');
      if (keepOpen) {
        setCreated(saved);
        reset(formValues(saved));
      } else onClose();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'ERR_QUEUE_COLOR_ALREADY_EXISTS') {
        setTab('data');
        setError('color', { type: 'custom', message: 'errors.ERR_QUEUE_COLOR_ALREADY_EXISTS' });
      }
      // A routing field the server refused (400 names it): that tab, the field in red.
      const refused = err instanceof ApiError ? JSON.stringify(err.body ?? '') : '';
      const field = ROUTING_FIELDS.find((k) => refused.includes(`"${k}"`));
      if (field) {
        setTab('routing');
        setError(field, { type: 'custom', message: 'queues.routing.invalidNumber' });
      }
      toast.error(err);
    }
  };

  const submit = handleSubmit((values) => persist(values, false), showInvalid);
  const saveAndContinue = handleSubmit((values) => persist(values, true), showInvalid);

  const text = (name: 'greetingMessage' | 'outOfHoursMessage' | 'completionMessage', helper?: string) => (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          label={t(`queues.form.${name}`)}
          multiline
          minRows={2}
          maxRows={8}
          error={Boolean(fieldState.error)}
          helperText={fieldErrorText(t, fieldState.error, { value: field.value }) ?? helper}
          slotProps={{ htmlInput: { 'data-field': name } }}
        />
      )}
    />
  );

  return (
    <FormDialog
      open={open}
      title={t(current ? 'queues.editTitle' : 'queues.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth="md"
    >
      <Tabs
        value={tab}
        onChange={(_e, v: TabKey) => setTab(v)}
        variant="scrollable"
        allowScrollButtonsMobile
        sx={{ borderBottom: 1, borderColor: 'divider', mt: -1 }}
      >
        <Tab value="data" label={t('queues.tabs.data')} data-testid="queue-tab-data" />
        <Tab value="routing" label={t('queues.tabs.routing')} data-testid="queue-tab-routing" />
        {queueSchedules ? (
          <Tab value="schedules" label={t('queues.tabs.schedules')} data-testid="queue-tab-schedules" />
        ) : null}
        <Tab value="options" label={t('queues.tabs.options')} data-testid="queue-tab-options" />
      </Tabs>

      {tab === 'data' ? (
        <Stack spacing={2}>
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, sm: 9 }}>
              <Controller
                name="name"
                control={control}
                render={({ field, fieldState }) => (
                  <TextField
                    {...field}
                    fullWidth
                    label={t('queues.form.name')}
                    required
                    autoFocus
                    error={Boolean(fieldState.error)}
                    helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
                    slotProps={{ htmlInput: { maxLength: 50, 'data-field': 'name' } }}
                  />
                )}
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 3 }}>
              <Controller
                name="orderQueue"
                control={control}
                render={({ field, fieldState }) => (
                  <TextField
                    {...field}
                    fullWidth
                    label={t('queues.form.orderQueue')}
                    error={Boolean(fieldState.error)}
                    helperText={
                      fieldErrorText(t, fieldState.error, { value: field.value }) ??
                      t('queues.form.orderQueueHelp')
                    }
                    slotProps={{
                      htmlInput: { inputMode: 'numeric', maxLength: 4, 'data-field': 'orderQueue' },
                    }}
                  />
                )}
              />
            </Grid>
          </Grid>
          <Controller
            name="color"
            control={control}
            render={({ field, fieldState }) => (
              <ColorPalette
                value={field.value}
                onChange={field.onChange}
                usedBy={usedBy}
                error={fieldErrorText(t, fieldState.error, {
                  value: field.value,
                  formatKey: 'queues.form.invalidColor',
                })}
              />
            )}
          />
          {text('greetingMessage', t('queues.form.greetingHelp'))}
          {text('outOfHoursMessage', t('queues.form.outOfHoursHelp'))}
          {text('completionMessage')}
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, sm: 6 }}>
              <Controller
                name="integrationId"
                control={control}
                render={({ field }) => <IntegrationSelect value={field.value} onChange={field.onChange} />}
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <Controller
                name="promptId"
                control={control}
                render={({ field }) => <PromptSelect value={field.value} onChange={field.onChange} />}
              />
            </Grid>
          </Grid>
        </Stack>
      ) : null}

      {tab === 'routing' ? (
        <Stack spacing={2}>
          <Typography variant="body2" color="text.secondary">
            {t('queues.routing.intro')}
          </Typography>
          <Controller
            name="assignmentPolicy"
            control={control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                label={t('queues.routing.policy')}
                helperText={t(`queues.routing.policyHelp.${field.value}`)}
                slotProps={{ htmlInput: { 'data-field': 'assignmentPolicy' } }}
              >
                {ASSIGNMENT_POLICIES.map((p) => (
                  <MenuItem key={p} value={p} data-testid={`policy-${p}`}>
                    {t(`queues.routing.policies.${p}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          <Controller
            name="capacity"
            control={control}
            render={({ field, fieldState }) => (
              <TextField
                {...field}
                label={t('queues.routing.capacity')}
                error={Boolean(fieldState.error)}
                helperText={
                  fieldErrorText(t, fieldState.error, { value: field.value }) ??
                  t('queues.routing.capacityHelp')
                }
                slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 4, 'data-field': 'capacity' } }}
              />
            )}
          />
          <Controller
            name="waitingMessage"
            control={control}
            render={({ field, fieldState }) => (
              <TextField
                {...field}
                label={t('queues.routing.waitingMessage')}
                multiline
                minRows={2}
                maxRows={6}
                placeholder={t('queues.routing.waitingMessageExample')}
                error={Boolean(fieldState.error)}
                helperText={
                  fieldErrorText(t, fieldState.error, { value: field.value }) ??
                  t('queues.routing.waitingMessageHelp')
                }
                slotProps={{ htmlInput: { 'data-field': 'waitingMessage' } }}
              />
            )}
          />
          <Grid container spacing={2}>
            {(['waitingMessageStep', 'waitingMessageInterval'] as const).map((name) => (
              <Grid key={name} size={{ xs: 12, sm: 6 }}>
                <Controller
                  name={name}
                  control={control}
                  render={({ field, fieldState }) => (
                    <TextField
                      {...field}
                      fullWidth
                      label={t(`queues.routing.${name}`)}
                      error={Boolean(fieldState.error)}
                      helperText={
                        fieldErrorText(t, fieldState.error, { value: field.value }) ??
                        t(`queues.routing.${name}Help`)
                      }
                      slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 4, 'data-field': name } }}
                    />
                  )}
                />
              </Grid>
            ))}
          </Grid>
        </Stack>
      ) : null}

      {tab === 'schedules' && queueSchedules ? (
        <Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {t('queues.schedules.intro')}
          </Typography>
          <Stack spacing={1.5}>
            {WEEKDAYS.map((day, index) => (
              <Box
                key={day}
                data-testid={`queue-schedule-${day}`}
                sx={{
                  display: 'grid',
                  gridTemplateColumns: { xs: '1fr 1fr', sm: '180px 1fr 1fr' },
                  gap: 1.5,
                  alignItems: 'start',
                }}
              >
                <Typography sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' }, pt: { sm: 1 }, fontWeight: 500 }}>
                  {t(`queues.weekdays.${day}`)}
                </Typography>
                {(['startTime', 'endTime'] as const).map((f) => (
                  <Controller
                    key={f}
                    name={`schedules.${index}.${f}`}
                    control={control}
                    render={({ field, fieldState }) => (
                      <TextField
                        {...field}
                        size="small"
                        onChange={(e) => field.onChange(maskTime(e.target.value))}
                        label={t(f === 'startTime' ? 'queues.schedules.start' : 'queues.schedules.end')}
                        placeholder="08:00"
                        error={Boolean(fieldState.error)}
                        helperText={fieldErrorText(t, fieldState.error, {
                          value: field.value,
                          formatKey: 'queues.schedules.invalidTime',
                        })}
                        slotProps={{
                          htmlInput: { inputMode: 'numeric', maxLength: 5, 'data-field': `${day}-${f}` },
                        }}
                      />
                    )}
                  />
                ))}
              </Box>
            ))}
          </Stack>
        </Box>
      ) : null}

      {tab === 'options' ? (
        current ? (
          <QueueOptionsEditor queueId={current.id} />
        ) : (
          <Alert
            severity="info"
            action={
              <Button
                color="inherit"
                size="small"
                disabled={formState.isSubmitting}
                onClick={() => void saveAndContinue()}
                data-testid="queue-save-continue"
              >
                {t('queues.options.saveFirstButton')}
              </Button>
            }
          >
            {t('queues.options.saveFirst')}
          </Alert>
        )
      ) : null}
    </FormDialog>
  );
}

export default QueueDialog;
