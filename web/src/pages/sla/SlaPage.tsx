import { Box, Chip, Typography } from '@mui/material';
import type { SlaPolicy } from '@recado/contracts';
import { slaPolicyResource } from '../../api/sla.js';
import { useQueues } from '../../api/queues.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { SlaPolicyDialog } from './SlaPolicyDialog.js';
import { formatSlaDuration, useSlaT } from './sla-i18n.js';

/** SLA policies (admins; docs/metrics.md "SLA"): targets, business hours or calendar time, queues and priorities. */
export default function SlaPage() {
  const { t } = useSlaT();
  const queues = useQueues();
  const queueName = (id: number) => queues.data?.find((q) => q.id === id)?.name ?? `#${id}`;
  const target = (kind: string, minutes: number | null) =>
    minutes === null ? null : (
      <Typography variant="body2" key={kind} sx={{ whiteSpace: 'nowrap' }}>
        {t(`sla:kind.${kind}`)}: <strong>{formatSlaDuration(minutes * 60_000, t)}</strong>
      </Typography>
    );
  const columns: ResourceColumn<SlaPolicy>[] = [
    {
      header: t('sla:policies.name'),
      cell: (p) => (
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {p.name}
        </Typography>
      ),
    },
    {
      header: t('sla:policies.targets'),
      cell: (p) => (
        <Box>
          {target('first_response', p.firstResponseMinutes)}
          {target('next_response', p.nextResponseMinutes)}
          {target('resolution', p.resolutionMinutes)}
          <Typography variant="caption" color="text.secondary">
            {t(p.businessHours ? 'sla:policies.hours' : 'sla:policies.calendar')}
          </Typography>
        </Box>
      ),
    },
    {
      header: t('sla:policies.appliesTo'),
      headSx: FROM_MD,
      cell: (p) => (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
          {p.queueIds.length ? (
            p.queueIds.map((id) => <Chip key={`q${id}`} size="small" label={queueName(id)} />)
          ) : (
            <Chip size="small" variant="outlined" label={t('sla:policies.allQueues')} />
          )}
          {p.priorities.length ? (
            p.priorities.map((pr) => (
              <Chip
                key={pr}
                size="small"
                color="primary"
                variant="outlined"
                label={t(`sla:priority.${pr}`)}
              />
            ))
          ) : (
            <Chip size="small" variant="outlined" label={t('sla:policies.allPriorities')} />
          )}
        </Box>
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={slaPolicyResource}
      i18n="sla:policies"
      columns={columns}
      search={false}
      testIds={{ list: 'sla-policies-list', row: 'sla-policy-row', add: 'sla-add' }}
      rowProps={(p) => ({ 'data-name': p.name })}
      deleteTitle={{ key: 'name', value: (p) => p.name }}
      renderDialog={(d) => <SlaPolicyDialog open={d.open} record={d.record} onClose={d.onClose} />}
    />
  );
}
