import { Chip, Typography } from '@mui/material';
import type { CustomFieldView } from '@recado/contracts';
import { customFieldResource } from '../../api/custom-fields.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { CustomFieldDialog } from './CustomFieldDialog.js';
import { useCustomFieldsT } from './custom-fields-i18n.js';

/** Custom fields (#32.7, admins; docs/productivity.md "Custom fields"): typed fields of contacts and tickets. */
export default function CustomFieldsPage() {
  const { t } = useCustomFieldsT();
  const columns: ResourceColumn<CustomFieldView>[] = [
    {
      header: t('customFields:page.label'),
      cell: (f) => (
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {f.label}
          {f.required ? ' *' : ''}
        </Typography>
      ),
    },
    {
      header: t('customFields:page.key'),
      headSx: FROM_MD,
      cell: (f) => (
        <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
          {f.key}
        </Typography>
      ),
    },
    {
      header: t('customFields:page.entity'),
      cell: (f) => <Chip size="small" variant="outlined" label={t(`customFields:entity.${f.entity}`)} />,
    },
    {
      header: t('customFields:page.type'),
      cell: (f) => t(`customFields:type.${f.type}`),
    },
  ];
  return (
    <ResourceListPage
      resource={customFieldResource}
      i18n="customFields:page"
      columns={columns}
      search={false}
      testIds={{ list: 'custom-fields-list', row: 'custom-field-row', add: 'custom-field-add' }}
      rowProps={(f) => ({ 'data-key': f.key, 'data-entity': f.entity })}
      deleteTitle={{ key: 'name', value: (f) => f.label }}
      renderDialog={(d) => <CustomFieldDialog open={d.open} record={d.record} onClose={d.onClose} />}
    />
  );
}
