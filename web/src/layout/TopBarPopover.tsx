import { useState, type ReactNode } from 'react';
import { Badge, Box, Divider, IconButton, Popover, Tooltip, Typography } from '@mui/material';

/** The empty state of a top-bar popover: a faded icon and a line of text. */
export function PopoverEmpty({ icon, text }: { icon: ReactNode; text: string }) {
  return (
    <Box
      sx={{
        py: 5,
        px: 3,
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        gap: 1,
        color: 'text.secondary',
        textAlign: 'center',
      }}
    >
      <Box sx={{ fontSize: 40, opacity: 0.5, display: 'flex' }}>{icon}</Box>
      <Typography variant="body2">{text}</Typography>
    </Box>
  );
}

/**
 * A top-bar button with a popover: notifications, announcements and internal chats. Without children
 * (a list whose module has not arrived yet) it shows its empty state; children may be a function of the
 * popover's close, for lists whose rows navigate away.
 */
export function TopBarPopover({
  label,
  icon,
  emptyIcon,
  emptyText,
  badge = 0,
  dot = false,
  onOpen,
  testId,
  buttonLabel,
  width = 340,
  children,
}: {
  label: string;
  icon: ReactNode;
  emptyIcon: ReactNode;
  emptyText: string;
  /** A count, or a label such as "40+". */
  badge?: number | string;
  dot?: boolean;
  onOpen?: () => void;
  testId?: string;
  /** The button's accessible name when it should say more than the title (e.g. with the count). */
  buttonLabel?: string;
  width?: number;
  children?: ReactNode | ((close: () => void) => ReactNode);
}) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          color="inherit"
          aria-label={buttonLabel ?? label}
          data-testid={testId}
          onClick={(e) => {
            setAnchor(e.currentTarget);
            onOpen?.();
          }}
        >
          <Badge
            color="error"
            badgeContent={dot ? undefined : badge}
            variant={dot ? 'dot' : 'standard'}
            invisible={!dot && (badge === 0 || badge === '')}
            slotProps={{ badge: { 'data-testid': testId ? `${testId}-badge` : undefined } as object }}
            max={99}
          >
            {icon}
          </Badge>
        </IconButton>
      </Tooltip>
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{
          paper: {
            sx: { width, maxWidth: 'calc(100vw - 24px)', mt: 1, borderRadius: 3 },
            role: 'dialog',
            'aria-label': label,
          },
        }}
      >
        <Box sx={{ px: 2, py: 1.5 }}>
          <Typography variant="subtitle1" sx={{ fontWeight: 700 }}>
            {label}
          </Typography>
        </Box>
        <Divider />
        {typeof children === 'function'
          ? children(() => setAnchor(null))
          : (children ?? <PopoverEmpty icon={emptyIcon} text={emptyText} />)}
      </Popover>
    </>
  );
}
