import { Box, Stack, Tooltip, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, type QueueIntegration } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { usePlanFlag } from '../../app/guards.js';
import { queueIntegrationResource } from '../../api/queue-integrations.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { IntegrationTypeAvatar } from './IntegrationTypeAvatar.js';
import { QueueIntegrationDialog } from './QueueIntegrationDialog.js';

/**
 * Queue integrations (docs/automation.md): a searchable list with the type's logo, id and name, add/edit
 * dialog and delete confirmation; live. Without the plan flag useIntegrations the router's PlanRoute
 * refuses the screen (message, then /).
 */
export default function QueueIntegrationsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const allowed = usePlanFlag('useIntegrations');
  const manager = can(user, 'queues:manage') || Boolean(user?.super);
  const columns: ResourceColumn<QueueIntegration>[] = [
    {
      header: t('queueIntegrations.columns.type'),
      headSx: { width: 64 },
      cell: (it) => (
        <Tooltip title={t(`queueIntegrations.types.${it.type}`)}>
          <Box sx={{ display: 'inline-flex' }}>
            <IntegrationTypeAvatar type={it.type} />
          </Box>
        </Tooltip>
      ),
    },
    {
      header: t('queueIntegrations.columns.id'),
      headSx: { width: 80 },
      cellProps: () => ({ 'data-testid': 'integration-id' }),
      cell: (it) => it.id,
    },
    {
      header: t('queueIntegrations.columns.name'),
      cell: (it) => (
        <Stack spacing={0}>
          <Typography variant="body2" sx={{ fontWeight: 500 }}>
            {it.name}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {t(`queueIntegrations.types.${it.type}`)}
            {it.type === 'dialogflow' ? ` · ${it.projectName}` : it.urlN8N ? ` · ${it.urlN8N}` : ''}
          </Typography>
        </Stack>
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={queueIntegrationResource}
      enabled={allowed}
      i18n="queueIntegrations"
      columns={columns}
      testIds={{ list: 'integrations-list', row: 'integration-row', add: 'integration-add' }}
      rowProps={(it) => ({ 'data-name': it.name, 'data-type': it.type })}
      canManage={manager}
      actionsWidth={110}
      deleteTitle={{ value: (it) => it.name }}
      renderDialog={(d) => (
        <QueueIntegrationDialog open={d.open} integration={d.record} onClose={d.onClose} />
      )}
    />
  );
}
