import { Box, Chip } from '@mui/material';
import ViewKanbanOutlinedIcon from '@mui/icons-material/ViewKanbanOutlined';
import { useTranslation } from 'react-i18next';
import type { Tag } from '@recado/contracts';
import { tagResource } from '../../api/tags.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { TagChip } from './TagChip.js';
import { TagDialog } from './TagDialog.js';

/** Tags (docs/team-tools.md): search, infinite scroll, add/edit dialog, delete confirmation; live. */
export default function TagsPage() {
  const { t } = useTranslation();
  const columns: ResourceColumn<Tag>[] = [
    {
      header: t('tags.columns.name'),
      cell: (tag) => (
        <TagChip name={tag.name} color={tag.color} data-testid="tag-chip" data-color={tag.color} />
      ),
    },
    {
      header: t('tags.columns.kanban'),
      align: 'center',
      headSx: { width: 120 },
      cell: (tag) =>
        tag.kanban ? (
          <Chip
            size="small"
            variant="outlined"
            color="primary"
            icon={<ViewKanbanOutlinedIcon />}
            label={t('tags.lane')}
            data-testid="tag-kanban"
          />
        ) : (
          <Box component="span" sx={{ color: 'text.disabled' }}>
            —
          </Box>
        ),
    },
    {
      header: t('tags.columns.tickets'),
      align: 'center',
      headSx: { width: 130 },
      cellProps: () => ({ 'data-testid': 'tag-count' }),
      cell: (tag) => tag.ticketsCount,
    },
  ];
  return (
    <ResourceListPage
      resource={tagResource}
      i18n="tags"
      columns={columns}
      testIds={{ list: 'tags-list', row: 'tag-row', add: 'tag-add' }}
      rowProps={(tag) => ({ 'data-name': tag.name, 'data-kanban': tag.kanban })}
      actionsWidth={110}
      deleteTitle={{ value: (tag) => tag.name }}
      renderDialog={(d) => <TagDialog open={d.open} tag={d.record} onClose={d.onClose} />}
    />
  );
}
