import { useState } from 'react';
import { Button, CircularProgress, IconButton, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import AutoFixHighOutlinedIcon from '@mui/icons-material/AutoFixHighOutlined';
import type { TicketView } from '@recado/contracts';
import { useAllMacros } from '../../api/macros.js';
import { useMacrosT } from './macros-i18n.js';
import { useMacroRunner } from './useMacroRunner.js';

/**
 * "Run a macro": the macros this user may run, on the chat header's open ticket (`ticket`, an icon) or on the
 * ticket list's selection (`ticketIds`, a labelled button; `onRan` gets the ids it failed on, null if the
 * call failed).
 */
export function MacroMenu({
  ticket,
  ticketIds,
  onRan,
  disabled,
}: {
  ticket?: TicketView;
  ticketIds?: () => number[];
  onRan?: (failedIds: number[] | null) => void;
  disabled?: boolean;
}) {
  const { t } = useMacrosT();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const macros = useAllMacros(true);
  const runner = useMacroRunner();
  const ids = () => (ticket ? [ticket.id] : (ticketIds?.() ?? []));
  return (
    <>
      {ticketIds ? (
        <Button
          size="small"
          variant="contained"
          onClick={(e) => setAnchor(e.currentTarget)}
          aria-haspopup="menu"
          disabled={runner.busy || disabled}
          startIcon={
            runner.busy ? <CircularProgress size={16} color="inherit" /> : <AutoFixHighOutlinedIcon />
          }
          data-testid="selection-macros"
          sx={{ flexShrink: 0 }}
        >
          {t('macros:macros.run')}
        </Button>
      ) : (
        <Tooltip title={t('macros:macros.run')}>
          <span>
            <IconButton
              onClick={(e) => setAnchor(e.currentTarget)}
              aria-label={t('macros:macros.run')}
              aria-haspopup="menu"
              disabled={runner.busy}
              data-testid="chat-macros"
            >
              {runner.busy ? <CircularProgress size={18} /> : <AutoFixHighOutlinedIcon />}
            </IconButton>
          </span>
        </Tooltip>
      )}
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        {(macros.data ?? []).length === 0 ? (
          <MenuItem disabled>
            <ListItemText>{t('macros:macros.none')}</ListItemText>
          </MenuItem>
        ) : null}
        {(macros.data ?? []).map((m) => (
          <MenuItem
            key={m.id}
            data-testid="macro-option"
            data-name={m.name}
            onClick={() => {
              setAnchor(null);
              const list = ids();
              if (list.length) void runner.start(m, list).then((failed) => onRan?.(failed));
            }}
          >
            <ListItemText
              primary={m.name}
              secondary={m.actions.map((a) => t(`macros:macros.type.${a.type}`)).join(' → ')}
            />
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
