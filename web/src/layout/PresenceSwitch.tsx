import { useState } from 'react';
import { Box, Button, IconButton, ListItemIcon, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PRESENCES, type Presence } from '@recado/contracts';
import { PRESENCE_COLOR, useIdleReport, useMyPresence, useSetPresence } from '../api/presence.js';
import { useToast } from '../app/useToast.js';

/** A presence's coloured dot (online green, away amber, offline grey). */
export function PresenceDot({
  presence,
  size = 10,
  label,
}: {
  presence: Presence;
  size?: number;
  /** Where the dot stands alone: its name for screen readers and the hover title. */
  label?: string;
}) {
  return (
    <Box
      component="span"
      data-presence={presence}
      {...(label ? { role: 'img', 'aria-label': label, title: label } : {})}
      sx={{
        display: 'inline-block',
        flex: 'none',
        width: size,
        height: size,
        borderRadius: '50%',
        bgcolor: PRESENCE_COLOR[presence],
        boxShadow: (theme) => `0 0 0 2px ${theme.palette.background.paper}`,
      }}
    />
  );
}

/**
 * #30.2 The top bar's presence switch: online / away / offline. The server also changes it (a new socket,
 * idleness, the last socket closing); the switch follows through `company-{id}-presence`.
 */
export function PresenceSwitch({ narrow }: { narrow: boolean }) {
  const { t } = useTranslation();
  const toast = useToast();
  const { data } = useMyPresence();
  const set = useSetPresence();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  useIdleReport();
  const presence: Presence = data?.presence ?? 'offline';
  const label = t(`presence.${presence}`);
  const title = t('presence.title', { presence: label });
  const choose = (p: Presence) => {
    setAnchor(null);
    set.mutate(p, { onError: toast.error });
  };
  return (
    <>
      <Tooltip title={title}>
        {narrow ? (
          <IconButton
            color="inherit"
            aria-label={title}
            aria-haspopup="menu"
            data-testid="presence-switch"
            data-presence={presence}
            onClick={(e) => setAnchor(e.currentTarget)}
          >
            <PresenceDot presence={presence} size={12} />
          </IconButton>
        ) : (
          <Button
            color="inherit"
            size="small"
            aria-label={title}
            aria-haspopup="menu"
            data-testid="presence-switch"
            data-presence={presence}
            onClick={(e) => setAnchor(e.currentTarget)}
            startIcon={<PresenceDot presence={presence} />}
            sx={{ mr: 0.5, borderRadius: 5, textTransform: 'none', whiteSpace: 'nowrap', px: 1.25 }}
          >
            {label}
          </Button>
        )}
      </Tooltip>
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        {PRESENCES.map((p) => (
          <MenuItem
            key={p}
            selected={p === presence}
            data-testid={`presence-option-${p}`}
            onClick={() => choose(p)}
          >
            <ListItemIcon sx={{ minWidth: 28 }}>
              <PresenceDot presence={p} />
            </ListItemIcon>
            <ListItemText primary={t(`presence.${p}`)} secondary={t(`presence.${p}Help`)} />
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
