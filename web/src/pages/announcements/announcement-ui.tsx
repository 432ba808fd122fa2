import { Box, Chip, type Theme } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** docs/push.md: priority 1 red, 2 orange, 3 grey borders. */
export const priorityColor = (priority: number, theme: Theme): string =>
  priority === 1
    ? theme.palette.error.main
    : priority === 2
      ? theme.palette.warning.main
      : theme.palette.grey[theme.palette.mode === 'dark' ? 600 : 400];

export const PRIORITIES = [1, 2, 3] as const;

/** The priority as a small outlined chip in its border colour. */
export function PriorityChip({ priority }: { priority: number }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      variant="outlined"
      label={t(`announcements.priorities.${priority}`)}
      data-priority={priority}
      sx={(theme) => ({
        borderColor: priorityColor(priority, theme),
        color: priority === 3 ? 'text.secondary' : priorityColor(priority, theme),
        fontWeight: 600,
      })}
      icon={
        <Box
          component="span"
          sx={(theme) => ({
            width: 8,
            height: 8,
            borderRadius: '50%',
            bgcolor: priorityColor(priority, theme),
            ml: '8px !important',
          })}
        />
      }
    />
  );
}
