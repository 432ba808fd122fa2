import { MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { usePlanFlag } from '../../app/guards.js';
import { useQueueIntegrationOptions, useQueueIntegrationsRealtime } from '../../api/queue-integrations.js';
import { IntegrationTypeAvatar } from './IntegrationTypeAvatar.js';

/**
 * The queue dialog's integration choice: '' is none. Without the plan flag useIntegrations the choice is
 * shown disabled (and whatever is stored stays as it is).
 */
export function IntegrationSelect({ value, onChange }: { value: string; onChange(value: string): void }) {
  const { t } = useTranslation();
  const allowed = usePlanFlag('useIntegrations');
  const list = useQueueIntegrationOptions(allowed);
  useQueueIntegrationsRealtime(allowed);
  const items = list.data ?? [];
  // A stored id not (yet) in the list keeps a placeholder item so the select never shows an invalid value.
  const known = value === '' || items.some((i) => String(i.id) === value);
  return (
    <TextField
      select
      fullWidth
      disabled={!allowed}
      value={allowed ? value : ''}
      onChange={(e) => onChange(e.target.value)}
      label={t('queueIntegrations.queueField.label')}
      helperText={allowed ? t('queueIntegrations.queueField.help') : t('queueIntegrations.queueField.noPlan')}
      slotProps={{
        htmlInput: { 'data-field': 'integrationId' },
        select: {
          renderValue: (v) =>
            v === ''
              ? t('queueIntegrations.queueField.none')
              : (items.find((i) => String(i.id) === v)?.name ?? `#${String(v)}`),
          displayEmpty: true,
        },
        inputLabel: { shrink: true },
      }}
    >
      <MenuItem value="">{t('queueIntegrations.queueField.none')}</MenuItem>
      {items.map((i) => (
        <MenuItem key={i.id} value={String(i.id)} data-testid="queue-integration-option" sx={{ gap: 1 }}>
          <IntegrationTypeAvatar type={i.type} size={24} />
          {i.name}
        </MenuItem>
      ))}
      {!known && allowed ? (
        <MenuItem value={value} disabled>
          {list.isLoading ? t('common.loading') : `#${value}`}
        </MenuItem>
      ) : null}
    </TextField>
  );
}
