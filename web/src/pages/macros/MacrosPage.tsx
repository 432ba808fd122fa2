import { Chip, Typography } from '@mui/material';
import GroupsOutlinedIcon from '@mui/icons-material/GroupsOutlined';
import PersonOutlineIcon from '@mui/icons-material/PersonOutlined';
import type { Macro } from '@recado/contracts';
import { macroResource } from '../../api/macros.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { MacroDialog } from './MacroDialog.js';
import { useMacrosT } from './macros-i18n.js';

/** #32.1 Macros (docs/productivity.md "Macros"): the list, and the dialog with the ordered action editor. */
export default function MacrosPage() {
  const { t } = useMacrosT();
  const columns: ResourceColumn<Macro>[] = [
    {
      header: t('macros:macros.name'),
      cell: (m) => (
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {m.name}
        </Typography>
      ),
    },
    {
      header: t('macros:macros.actions'),
      cell: (m) => (
        <Typography
          variant="body2"
          color="text.secondary"
          noWrap
          title={m.actions.map((a) => t(`macros:macros.type.${a.type}`)).join(' → ')}
        >
          {m.actions.map((a) => t(`macros:macros.type.${a.type}`)).join(' → ')}
        </Typography>
      ),
      sx: { maxWidth: 420 },
    },
    {
      header: t('macros:macros.visibility'),
      headSx: FROM_MD,
      sx: { ...FROM_MD, whiteSpace: 'nowrap' },
      cell: (m) => (
        <Chip
          size="small"
          variant="outlined"
          icon={m.visibility === 'company' ? <GroupsOutlinedIcon /> : <PersonOutlineIcon />}
          label={t(m.visibility === 'company' ? 'macros:macros.company' : 'macros:macros.personal')}
        />
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={macroResource}
      i18n="macros:macros"
      columns={columns}
      testIds={{ list: 'macros-list', row: 'macro-row', add: 'macro-add' }}
      xsMaxHeight="calc(100dvh - 250px)"
      canEditRow={(m) => Boolean(m.canEdit)}
      readOnly={
        <Typography variant="caption" color="text.disabled">
          {t('macros:macros.readOnly')}
        </Typography>
      }
      deleteTitle={{ value: (m) => m.name }}
      rowProps={(m) => ({ 'data-name': m.name })}
      renderDialog={(d) => <MacroDialog open={d.open} record={d.record} onClose={d.onClose} />}
    />
  );
}
