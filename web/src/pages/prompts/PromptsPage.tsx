import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, type Prompt } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { usePlanFlag } from '../../app/guards.js';
import { promptListResource } from '../../api/prompts.js';
import { useQueues, useQueuesRealtime } from '../../api/queues.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { PromptDialog } from './PromptDialog.js';

/** AI prompts (docs/automation.md): table, add/edit dialog, delete confirmation; live; plan flag useOpenAi. */
export default function PromptsPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  // docs/automation.md: without the plan flag the router's PlanRoute refuses the screen (message, then /).
  const allowed = usePlanFlag('useOpenAi');
  const manage = can(me, 'prompts:manage') || Boolean(me?.super);
  const queues = useQueues(allowed && manage);
  useQueuesRealtime(allowed && manage);
  const columns: ResourceColumn<Prompt>[] = [
    {
      header: t('prompts.columns.name'),
      cell: (p) => (
        <>
          <Typography variant="body2" sx={{ fontWeight: 500 }}>
            {p.name}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {p.model}
          </Typography>
        </>
      ),
    },
    {
      header: t('prompts.columns.queue'),
      cellProps: () => ({ 'data-testid': 'prompt-queue' }),
      cell: (p) =>
        p.queue ? (
          <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
            <Box
              component="span"
              sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: p.queue.color }}
            />
            <Typography variant="body2">{p.queue.name}</Typography>
          </Box>
        ) : (
          '—'
        ),
    },
    {
      header: t('prompts.columns.maxTokens'),
      align: 'center',
      headSx: { width: 160, whiteSpace: 'nowrap' },
      sx: { fontVariantNumeric: 'tabular-nums' },
      cell: (p) => p.maxTokens,
    },
  ];
  return (
    <ResourceListPage
      resource={promptListResource}
      enabled={allowed}
      search={false}
      showCount
      i18n="prompts"
      columns={columns}
      testIds={{ list: 'prompts-list', row: 'prompt-row', add: 'prompt-add' }}
      rowProps={(p) => ({ 'data-name': p.name })}
      canManage={manage}
      actionsWidth={110}
      deleteTitle={{ value: (p) => p.name }}
      renderDialog={(d) => (
        <PromptDialog open={d.open} prompt={d.record} queues={queues.data ?? []} onClose={d.onClose} />
      )}
    />
  );
}
