import { useState, type ReactNode } from 'react';
import {
  Box,
  Button,
  IconButton,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
  type SxProps,
  type Theme,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { useTranslation } from 'react-i18next';
import type { Record_, Resource } from '../api/resource.js';
import { useToast } from '../app/useToast.js';
import { ConfirmationDialog } from './ConfirmationDialog.js';
import { ListStatusRow } from './ListStatusRow.js';
import { PageHeader } from './PageHeader.js';
import { SearchField } from './SearchField.js';
import { useDebouncedValue } from './useDebouncedValue.js';

/** Hides a column below md (phones and small tablets). */
export const FROM_MD: SxProps<Theme> = { display: { xs: 'none', md: 'table-cell' } };

export interface ResourceColumn<T> {
  /** Header text. */
  header: ReactNode;
  cell: (row: T) => ReactNode;
  align?: 'left' | 'center' | 'right';
  /** Style of the header cell (width, responsive display...). */
  headSx?: SxProps<Theme>;
  /** Style of the body cells; defaults to the responsive `display` of headSx, if any. */
  sx?: SxProps<Theme>;
  /** Extra attributes of a body cell (data-testid...). */
  cellProps?: (row: T) => Record<string, unknown>;
}

/** What the edit dialog receives: `record` is null for a new record. */
export interface EditDialogProps<T> {
  open: boolean;
  record: T | null;
  onClose(): void;
}

export interface ResourceListPageProps<T extends Record_> {
  // The hooks come from `resource`; the `as` cast below keeps any Input type acceptable.
  resource: Pick<Resource<T>, 'useList' | 'useRealtime' | 'useDelete'>;
  /** i18n prefix of the screen's texts: `{prefix}.title`, `.add`, `.deleted`, `.deleteTitle`, `.deleteMessage`. */
  i18n: string;
  columns: ResourceColumn<T>[];
  /** data-testid of the scrolling table, of each row and of the add button. */
  testIds: { list: string; row: string; add?: string };
  /** Extra attributes of a row (data-name...). */
  rowProps?: (row: T) => Record<string, unknown>;
  /** Off: nothing is read nor shown (a plan flag the router also refuses). */
  enabled?: boolean;
  /** A search box (debounced 500 ms) above paged lists; default true. */
  search?: boolean;
  /** Shows the number of records next to the title once loaded. */
  showCount?: boolean;
  /** May add, edit and delete (add button, actions, dialog); default true. */
  canManage?: boolean;
  /** Per row: may this record be edited and deleted (default: canManage). */
  canEditRow?: (row: T) => boolean;
  /** Per row: the record can only be looked at; the edit button reads `{i18n}.view` with an eye. */
  viewOnly?: (row: T) => boolean;
  /** Shows a failed deletion (default: the error toast). */
  onDeleteError?: (err: unknown) => void;
  /** Per row: the delete button shows but is disabled (e.g. one's own user). */
  deleteDisabled?: (row: T) => boolean;
  /** Shown in the actions cell of a row that may not be edited. */
  readOnly?: ReactNode;
  /** Row actions before edit and delete (open, report...); their presence keeps the actions column. */
  extraActions?: (row: T) => ReactNode;
  /** Width of the actions column. */
  actionsWidth?: number;
  /** The dialog that adds (record null) and edits a record. */
  renderDialog: (props: EditDialogProps<T>) => ReactNode;
  /** The record's name in the delete confirmation's title: `{ [key]: value(row) }` (key default `name`). */
  deleteTitle: { value: (row: T) => string; key?: string };
  /** Max height of the table on phones (leaves room for a wrapped header). */
  xsMaxHeight?: string;
  /** Inside a tab of another page: no page padding nor title; `intro` stands where the title would. */
  embedded?: boolean;
  /** With `embedded`: the text left of the search and add button. */
  intro?: ReactNode;
  /** The table's accessible name (default the `{i18n}.title` text). */
  label?: string;
  /** Max height of the table at every width (instead of xsMaxHeight and the page default). */
  maxHeight?: string;
  /** Shown under the table when the list could not be read. */
  loadError?: ReactNode;
  /** More buttons in the header, before the search and the add button (import, convert...). */
  tools?: ReactNode;
}

/**
 * A list screen: header with search and add button, a sticky table of `columns` with edit and delete by
 * permission, the status row (spinner / no records), infinite scroll, the edit dialog and a delete
 * confirmation with its toasts. Live through the resource's realtime hook.
 */
export function ResourceListPage<T extends Record_>(props: ResourceListPageProps<T>) {
  const { t } = useTranslation();
  const toast = useToast();
  const { resource, i18n, columns, testIds, enabled = true, canManage = true } = props;
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const list = resource.useList(debounced, enabled);
  resource.useRealtime(enabled);
  const remove = resource.useDelete();
  /** undefined: closed; null: a new record; else the record being edited. */
  const [editing, setEditing] = useState<T | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<T | null>(null);

  if (!enabled) return null;

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success(`${i18n}.deleted`);
    } catch (err) {
      if (props.onDeleteError) props.onDeleteError(err);
      else toast.error(err);
      throw err;
    }
  };

  const editLabel = (row: T) => t(props.viewOnly?.(row) ? `${i18n}.view` : 'common.edit');
  const canEdit = (row: T) => (props.canEditRow ? props.canEditRow(row) : canManage);
  const hasActions = canManage || Boolean(props.extraActions) || Boolean(props.canEditRow);
  const colSpan = columns.length + (hasActions ? 1 : 0);
  const loaded = !list.isLoading;

  const tools = (
    <>
      {props.tools}
      {props.search !== false ? <SearchField value={search} onChange={setSearch} /> : null}
      {canManage ? (
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          onClick={() => setEditing(null)}
          data-testid={testIds.add}
        >
          {t(`${i18n}.add`)}
        </Button>
      ) : null}
    </>
  );

  return (
    <Box
      sx={{
        p: props.embedded ? 0 : { xs: 1.5, sm: 3 },
        display: 'flex',
        flexDirection: 'column',
        gap: 2,
        minHeight: 0,
      }}
    >
      {props.embedded ? (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1.5 }}>
          <Box sx={{ flex: '1 1 240px' }}>{props.intro}</Box>
          {tools}
        </Box>
      ) : (
        <PageHeader
          title={t(`${i18n}.title`)}
          count={props.showCount && list.data !== undefined ? list.items.length : undefined}
        >
          {tools}
        </PageHeader>
      )}

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{
            maxHeight: props.maxHeight ?? {
              xs: props.xsMaxHeight ?? 'calc(100dvh - 200px)',
              sm: 'calc(100dvh - 170px)',
            },
          }}
          data-testid={testIds.list}
        >
          <Table stickyHeader size="small" aria-label={props.label ?? t(`${i18n}.title`)}>
            <TableHead>
              <TableRow>
                {columns.map((c, i) => (
                  <TableCell key={i} align={c.align} sx={c.headSx}>
                    {c.header}
                  </TableCell>
                ))}
                {hasActions ? (
                  <TableCell
                    align="right"
                    sx={props.actionsWidth ? { width: props.actionsWidth } : undefined}
                  >
                    {t('common.actions')}
                  </TableCell>
                ) : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((row) => (
                <TableRow key={row.id} hover data-testid={testIds.row} {...props.rowProps?.(row)}>
                  {columns.map((c, i) => (
                    <TableCell
                      key={i}
                      align={c.align}
                      sx={c.sx ?? displayOf(c.headSx)}
                      {...c.cellProps?.(row)}
                    >
                      {c.cell(row)}
                    </TableCell>
                  ))}
                  {hasActions ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      {props.extraActions?.(row)}
                      {canEdit(row) ? (
                        <>
                          <Tooltip title={editLabel(row)}>
                            <IconButton
                              size="small"
                              aria-label={editLabel(row)}
                              onClick={() => setEditing(row)}
                            >
                              {props.viewOnly?.(row) ? (
                                <VisibilityOutlinedIcon fontSize="small" />
                              ) : (
                                <EditOutlinedIcon fontSize="small" />
                              )}
                            </IconButton>
                          </Tooltip>
                          <Tooltip title={t('common.delete')}>
                            {props.deleteDisabled ? (
                              // A disabled button gets no pointer events: the tooltip hangs on a span.
                              <span>
                                <IconButton
                                  size="small"
                                  aria-label={t('common.delete')}
                                  disabled={props.deleteDisabled(row)}
                                  onClick={() => setDeleting(row)}
                                >
                                  <DeleteOutlinedIcon fontSize="small" />
                                </IconButton>
                              </span>
                            ) : (
                              <IconButton
                                size="small"
                                aria-label={t('common.delete')}
                                onClick={() => setDeleting(row)}
                              >
                                <DeleteOutlinedIcon fontSize="small" />
                              </IconButton>
                            )}
                          </Tooltip>
                        </>
                      ) : (
                        props.readOnly
                      )}
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={colSpan}
                loading={list.isLoading || Boolean(list.isFetchingNextPage)}
                empty={loaded && list.items.length === 0}
              />
            </TableBody>
          </Table>
          {list.sentinelRef ? <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden /> : null}
        </TableContainer>
      </Paper>
      {props.loadError && list.isError ? (
        <Typography color="error" variant="body2">
          {props.loadError}
        </Typography>
      ) : null}

      {canManage || props.canEditRow
        ? props.renderDialog({
            open: editing !== undefined,
            record: editing ?? null,
            onClose: () => setEditing(undefined),
          })
        : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t(`${i18n}.deleteTitle`, {
          [props.deleteTitle.key ?? 'name']: deleting ? props.deleteTitle.value(deleting) : '',
        })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t(`${i18n}.deleteMessage`)}
      </ConfirmationDialog>
    </Box>
  );
}

/** A column hidden on small screens in its header is hidden in its cells too. */
function displayOf(sx: SxProps<Theme> | undefined): SxProps<Theme> | undefined {
  if (sx && typeof sx === 'object' && !Array.isArray(sx) && 'display' in sx)
    return { display: (sx as { display: unknown }).display } as SxProps<Theme>;
  return undefined;
}

export default ResourceListPage;
