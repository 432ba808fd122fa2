import { Link, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { Help } from '@recado/contracts';
import { helpResource } from '../../api/helps.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { HelpDialog } from './HelpDialog.js';

/** Super user: the help videos every company sees on /helps. */
export function HelpsTab() {
  const { t } = useTranslation();
  const columns: ResourceColumn<Help>[] = [
    { header: t('helpsAdmin.title'), sx: { fontWeight: 500 }, cell: (h) => h.title },
    {
      header: t('helpsAdmin.description'),
      sx: { maxWidth: 420 },
      cell: (h) => (
        <Typography variant="body2" color="text.secondary" noWrap title={h.description}>
          {h.description}
        </Typography>
      ),
    },
    {
      header: t('helpsAdmin.video'),
      cell: (h) =>
        h.video ? (
          <Link
            href={`https://www.youtube.com/watch?v=${encodeURIComponent(h.video)}`}
            target="_blank"
            rel="noopener noreferrer"
            sx={{ fontFamily: 'monospace' }}
          >
            {h.video}
          </Link>
        ) : null,
    },
  ];
  return (
    <ResourceListPage<Help>
      embedded
      resource={helpResource}
      i18n="helpsAdmin"
      label={t('settings.tabs.helps')}
      columns={columns}
      search={false}
      maxHeight="calc(100dvh - 320px)"
      loadError={t('helpsAdmin.loadError')}
      testIds={{ list: 'helps-list', row: 'help-row', add: 'help-add' }}
      deleteTitle={{ key: 'title', value: (h) => h.title }}
      renderDialog={(d) => <HelpDialog open={d.open} help={d.record} onClose={d.onClose} />}
    />
  );
}
