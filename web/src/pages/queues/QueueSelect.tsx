import { Box, Checkbox, Chip, ListItemText, MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { Queue } from '@recado/contracts';

/** A small round swatch of a queue's colour. */
export function QueueSwatch({ color, size = 12 }: { color: string; size?: number }) {
  return (
    <Box
      component="span"
      aria-hidden
      sx={{
        display: 'inline-block',
        flexShrink: 0,
        width: size,
        height: size,
        borderRadius: '50%',
        bgcolor: color,
        boxShadow: (theme) => `inset 0 0 0 1px ${theme.palette.divider}`,
      }}
    />
  );
}

/**
 * Several queues of the company: the users and connections dialogs. Ids of queues that no longer exist
 * (deleted since the record was read) are neither shown nor kept.
 */
export function QueueMultiSelect({
  queues,
  value,
  onChange,
  label,
  helperText,
  error,
  disabled,
  name = 'queueIds',
}: {
  queues: Queue[];
  value: number[];
  onChange(ids: number[]): void;
  label?: string;
  helperText?: string;
  error?: boolean;
  disabled?: boolean;
  name?: string;
}) {
  const { t } = useTranslation();
  const known = new Map(queues.map((q) => [q.id, q]));
  const selected = value.filter((id) => known.has(id));
  return (
    <TextField
      select
      label={label ?? t('queues.select.label')}
      value={selected}
      disabled={disabled}
      error={error}
      helperText={helperText ?? (queues.length ? undefined : t('queues.select.none'))}
      slotProps={{
        htmlInput: { 'data-field': name },
        select: {
          multiple: true,
          renderValue: (ids) => (
            <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
              {(ids as number[]).map((id) => {
                const q = known.get(id);
                return q ? (
                  <Chip
                    key={id}
                    size="small"
                    label={q.name}
                    icon={<QueueSwatch color={q.color} size={10} />}
                    sx={{ '& .MuiChip-icon': { ml: 1 } }}
                  />
                ) : null;
              })}
            </Box>
          ),
          MenuProps: { slotProps: { paper: { sx: { maxHeight: 320 } } } },
        },
      }}
      onChange={(e) => {
        const v = e.target.value as unknown as number[] | string;
        onChange(typeof v === 'string' ? v.split(',').map(Number) : v);
      }}
    >
      {queues.map((q) => (
        <MenuItem key={q.id} value={q.id} data-testid="queue-option" data-name={q.name} dense>
          <Checkbox size="small" checked={selected.includes(q.id)} sx={{ p: 0.5, mr: 1 }} />
          <QueueSwatch color={q.color} />
          <ListItemText primary={q.name} sx={{ ml: 1.25 }} />
        </MenuItem>
      ))}
    </TextField>
  );
}
