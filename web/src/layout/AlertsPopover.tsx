import type { ReactNode } from 'react';
import { Box, Stack, Typography } from '@mui/material';
import type { SvgIconComponent } from '@mui/icons-material';
import { useNavigate } from 'react-router';
import { TopBarPopover } from './TopBarPopover.js';

/**
 * A top-bar alert (failing automations, SLA breaches): a red icon with the count, hidden while there is
 * nothing to show; the popover lists one framed row per item (its title in bold, then `details`), and a
 * row opens `path(item)`. Lists `{testId}-list` of `itemTestId` rows.
 */
export function AlertsPopover<T>({
  items,
  Icon,
  label,
  buttonLabel,
  testId,
  itemTestId,
  itemKey,
  path,
  title,
  details,
  tone,
}: {
  items: T[];
  Icon: SvgIconComponent;
  label: string;
  buttonLabel: string;
  testId: string;
  itemTestId: string;
  itemKey(item: T): string | number;
  path(item: T): string;
  title(item: T): string;
  details(item: T): ReactNode;
  /** A row's colour: 'error' (the default), or 'success' for good news (a connection back). */
  tone?(item: T): 'error' | 'success';
}) {
  const navigate = useNavigate();
  if (items.length === 0) return null;
  return (
    <TopBarPopover
      label={label}
      buttonLabel={buttonLabel}
      icon={<Icon color="error" />}
      emptyIcon={<Icon />}
      emptyText=""
      badge={items.length}
      testId={testId}
    >
      {(close) => (
        <Stack spacing={1} sx={{ p: 1.5 }} data-testid={`${testId}-list`}>
          {items.map((item) => (
            <Box
              key={itemKey(item)}
              component="button"
              type="button"
              onClick={() => {
                close();
                void navigate(path(item));
              }}
              data-testid={itemTestId}
              sx={{
                display: 'block',
                width: '100%',
                textAlign: 'left',
                font: 'inherit',
                color: 'inherit',
                bgcolor: 'transparent',
                cursor: 'pointer',
                border: 1,
                borderLeftWidth: 4,
                borderColor: `${tone?.(item) ?? 'error'}.main`,
                borderRadius: 2,
                p: 1.5,
                '&:hover': { bgcolor: 'action.hover' },
              }}
            >
              <Typography variant="subtitle2" sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>
                {title(item)}
              </Typography>
              {details(item)}
            </Box>
          ))}
        </Stack>
      )}
    </TopBarPopover>
  );
}
