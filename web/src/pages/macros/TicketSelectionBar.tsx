import { Box, IconButton, Tooltip, Typography } from '@mui/material';
import SelectAllIcon from '@mui/icons-material/SelectAll';
import DeselectIcon from '@mui/icons-material/Deselect';
import CloseIcon from '@mui/icons-material/Close';
import ChecklistIcon from '@mui/icons-material/Checklist';
import { MacroMenu } from './MacroMenu.js';
import { useMacrosT } from './macros-i18n.js';
import { MACRO_MAX_TICKETS } from '@recado/contracts';
import { overMacroLimit, ticketSelection, useSelectedCount, useSelecting } from './ticket-selection.js';

/** The ticket list toolbar's "Select" toggle: rows show a checkbox and a click selects instead of opening. */
export function SelectToggle() {
  const { t } = useMacrosT();
  const selecting = useSelecting();
  const label = selecting ? t('macros:macros.stopSelecting') : t('macros:macros.select');
  return (
    <Tooltip title={label}>
      <IconButton
        size="small"
        onClick={() => ticketSelection.setActive(!selecting)}
        aria-label={label}
        aria-pressed={selecting}
        color={selecting ? 'primary' : 'default'}
        data-testid="select-toggle"
      >
        <ChecklistIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
}

/**
 * #32.1 Above the list while selecting: "N selected", select every visible ticket, clear, leave, and run a
 * macro on the selection (the chat header's menu). The tickets it failed on stay selected.
 */
export function TicketSelectionBar({ visibleIds }: { visibleIds: () => number[] }) {
  const { t } = useMacrosT();
  const selecting = useSelecting();
  const count = useSelectedCount();
  if (!selecting) return null;
  const over = overMacroLimit(count);
  return (
    <Box
      data-testid="selection-bar"
      data-count={count}
      sx={{
        display: 'flex',
        alignItems: 'center',
        flexWrap: 'wrap',
        columnGap: 0.25,
        rowGap: 0.5,
        px: 1.5,
        py: 0.5,
        borderTop: 1,
        borderColor: 'divider',
        bgcolor: 'action.hover',
        minWidth: 0,
      }}
    >
      <Typography
        variant="body2"
        sx={{ fontWeight: 600, flexShrink: 0, mr: 'auto' }}
        noWrap
        data-testid="selection-count"
      >
        {t('macros:macros.selected', { count })}
      </Typography>
      {over ? (
        <Typography
          variant="caption"
          color="warning.main"
          role="status"
          sx={{ order: 10, flexBasis: '100%' }}
          data-testid="selection-too-many"
        >
          {t('macros:macros.tooMany', { max: MACRO_MAX_TICKETS })}
        </Typography>
      ) : null}
      <Tooltip title={t('macros:macros.selectAll')}>
        <IconButton
          size="small"
          onClick={() => ticketSelection.add(visibleIds())}
          aria-label={t('macros:macros.selectAll')}
          data-testid="selection-all"
        >
          <SelectAllIcon fontSize="small" />
        </IconButton>
      </Tooltip>
      <Tooltip title={t('macros:macros.clearSelection')}>
        <span>
          <IconButton
            size="small"
            onClick={() => ticketSelection.clear()}
            disabled={!count}
            aria-label={t('macros:macros.clearSelection')}
            data-testid="selection-clear"
          >
            <DeselectIcon fontSize="small" />
          </IconButton>
        </span>
      </Tooltip>
      <MacroMenu
        ticketIds={ticketSelection.ids}
        disabled={!count || over}
        onRan={(failed) => {
          if (failed) ticketSelection.replace(failed);
        }}
      />
      <Tooltip title={t('macros:macros.stopSelecting')}>
        <IconButton
          size="small"
          onClick={() => ticketSelection.setActive(false)}
          aria-label={t('macros:macros.stopSelecting')}
          data-testid="selection-close"
        >
          <CloseIcon fontSize="small" />
        </IconButton>
      </Tooltip>
    </Box>
  );
}
