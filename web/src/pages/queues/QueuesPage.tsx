import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, type Queue } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { queueResource, useQueues } from '../../api/queues.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { inkOn } from './ColorPalette.js';
import { QueueDialog } from './QueueDialog.js';

/** Queues and their chatbot (docs/product.md#screens): list, add/edit dialog, delete confirmation; live. */
export default function QueuesPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const manage = can(me, 'queues:manage') || Boolean(me?.super);
  // The same cached list as the table's: the dialog offers the other queues' orders.
  const queues = useQueues().items;
  const columns: ResourceColumn<Queue>[] = [
    {
      header: t('queues.columns.color'),
      headSx: { width: 120 },
      cell: (q) => (
        <Box
          component="span"
          data-testid="queue-color"
          data-color={q.color}
          sx={{
            display: 'inline-flex',
            alignItems: 'center',
            px: 1,
            py: 0.25,
            borderRadius: 1,
            bgcolor: q.color,
            color: inkOn(q.color),
            fontFamily: 'monospace',
            fontSize: 12,
            letterSpacing: 0.5,
          }}
        >
          {q.color}
        </Box>
      ),
    },
    {
      header: t('queues.columns.name'),
      cell: (q) => (
        <Typography variant="body2" sx={{ fontWeight: 500 }}>
          {q.name}
        </Typography>
      ),
    },
    {
      header: t('queues.columns.order'),
      align: 'center',
      headSx: { width: 90 },
      sx: { color: 'text.secondary' },
      cell: (q) => q.orderQueue ?? '—',
    },
    {
      header: t('queues.columns.greeting'),
      headSx: { display: { xs: 'none', sm: 'table-cell' } },
      sx: { display: { xs: 'none', sm: 'table-cell' }, maxWidth: 0, width: '45%' },
      cell: (q) => (
        <Typography variant="body2" color="text.secondary" noWrap title={q.greetingMessage || undefined}>
          {q.greetingMessage || '—'}
        </Typography>
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={queueResource}
      search={false}
      showCount
      i18n="queues"
      columns={columns}
      testIds={{ list: 'queues-list', row: 'queue-row', add: 'queue-add' }}
      rowProps={(q) => ({ 'data-name': q.name })}
      canManage={manage}
      actionsWidth={110}
      deleteTitle={{ value: (q) => q.name }}
      renderDialog={(d) => <QueueDialog open={d.open} queue={d.record} queues={queues} onClose={d.onClose} />}
    />
  );
}
