import { z } from 'zod';
import { Autocomplete, Box, Chip, TextField, Typography } from '@mui/material';
import {
  SLA_MAX_MINUTES,
  SLA_PRIORITIES,
  SlaPolicyInput,
  type SlaPolicy,
  type SlaPriority,
} from '@recado/contracts';
import { slaPolicyResource } from '../../api/sla.js';
import { useQueues } from '../../api/queues.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';
import { useSlaT } from './sla-i18n.js';

/** Minutes, or empty (no target of that kind). */
const Minutes = z.preprocess(
  (v) => (v === '' || v === undefined ? null : v),
  z.number().int().min(1).max(SLA_MAX_MINUTES).nullable(),
);

const schema = z
  .object({
    name: SlaPolicyInput.shape.name,
    firstResponseMinutes: Minutes,
    nextResponseMinutes: Minutes,
    resolutionMinutes: Minutes,
    businessHours: z.boolean(),
    queueIds: z.array(z.number()),
    priorities: z.array(z.enum(SLA_PRIORITIES)),
  })
  .refine(
    (v) => v.firstResponseMinutes !== null || v.nextResponseMinutes !== null || v.resolutionMinutes !== null,
    { path: ['firstResponseMinutes'], message: 'sla:policies.atLeastOne' },
  );
type Form = z.infer<typeof schema>;

const valuesOf = (p: SlaPolicy | null): Form => ({
  name: p?.name ?? '',
  firstResponseMinutes: p ? p.firstResponseMinutes : 15,
  nextResponseMinutes: p?.nextResponseMinutes ?? null,
  resolutionMinutes: p?.resolutionMinutes ?? null,
  businessHours: p?.businessHours ?? false,
  queueIds: p?.queueIds ?? [],
  priorities: (p?.priorities ?? []) as SlaPriority[],
});

/** Add or edit an SLA policy (docs/metrics.md "SLA"): its targets, how time counts, and what it applies to. */
export function SlaPolicyDialog({
  open,
  record,
  onClose,
}: {
  open: boolean;
  record: SlaPolicy | null;
  onClose(): void;
}) {
  const { t } = useSlaT();
  const save = slaPolicyResource.useSave();
  const queues = useQueues(open);
  const form = useResourceForm({ open, record, schema, values: valuesOf });
  const minutes = (
    name: 'firstResponseMinutes' | 'nextResponseMinutes' | 'resolutionMinutes',
    label: string,
  ) =>
    ({
      name,
      kind: 'number',
      label: `sla:policies.${label}`,
      hint: 'sla:policies.minutesHint',
      inputProps: { 'data-testid': `sla-${name}`, min: 1 },
    }) satisfies FormField<Form>;
  const fields: FormField<Form>[] = [
    {
      name: 'name',
      kind: 'text',
      label: 'sla:policies.name',
      required: true,
      autoFocus: true,
      maxLength: 100,
      inputProps: { 'data-testid': 'sla-name' },
    },
    minutes('firstResponseMinutes', 'firstResponse'),
    minutes('nextResponseMinutes', 'nextResponse'),
    minutes('resolutionMinutes', 'resolution'),
    {
      name: 'businessHours',
      kind: 'switch',
      label: 'sla:policies.businessHours',
      hint: 'sla:policies.businessHoursHint',
    },
    {
      name: 'queueIds',
      kind: 'custom',
      render: ({ field }) => {
        const options = queues.data ?? [];
        return (
          <Autocomplete
            multiple
            size="small"
            options={options}
            getOptionLabel={(q) => q.name}
            isOptionEqualToValue={(a, b) => a.id === b.id}
            value={options.filter((q) => (field.value as number[]).includes(q.id))}
            onChange={(_e, v) => field.onChange(v.map((q) => q.id))}
            renderInput={(params) => (
              <TextField
                {...params}
                label={t('sla:policies.queues')}
                placeholder={(field.value as number[]).length ? undefined : t('sla:policies.allQueues')}
                slotProps={{
                  ...params.slotProps,
                  inputLabel: { ...params.slotProps?.inputLabel, shrink: true },
                }}
              />
            )}
            data-testid="sla-queues"
          />
        );
      },
    },
    {
      name: 'priorities',
      kind: 'custom',
      render: ({ field }) => (
        <Autocomplete
          multiple
          size="small"
          options={[...SLA_PRIORITIES]}
          getOptionLabel={(p) => t(`sla:priority.${p}`)}
          value={field.value as SlaPriority[]}
          onChange={(_e, v) => field.onChange(v)}
          renderValue={(value, getItemProps) =>
            value.map((p, index) => {
              const { key, ...props } = getItemProps({ index });
              return <Chip key={key} size="small" label={t(`sla:priority.${p}`)} {...props} />;
            })
          }
          renderInput={(params) => (
            <TextField
              {...params}
              label={t('sla:policies.priorities')}
              placeholder={(field.value as string[]).length ? undefined : t('sla:policies.allPriorities')}
              slotProps={{
                ...params.slotProps,
                inputLabel: { ...params.slotProps?.inputLabel, shrink: true },
              }}
            />
          )}
          data-testid="sla-priorities"
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
      i18n="sla:policies"
      fields={fields}
      toInput={(v) => ({
        name: v.name,
        firstResponseMinutes: v.firstResponseMinutes,
        nextResponseMinutes: v.nextResponseMinutes,
        resolutionMinutes: v.resolutionMinutes,
        businessHours: v.businessHours,
        queueIds: v.queueIds,
        priorities: v.priorities,
      })}
      save={(args) => save.mutateAsync(args)}
    >
      <Box>
        <Typography variant="caption" color="text.secondary">
          {t('sla:policies.precedence')}
        </Typography>
      </Box>
    </ResourceFormDialog>
  );
}
