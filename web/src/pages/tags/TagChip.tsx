import { Chip, type ChipProps } from '@mui/material';
import { inkOn } from '../queues/ColorPalette.js';

/** A tag as a coloured chip: its own colour with readable ink, in the light and the dark theme. */
export function TagChip({
  name,
  color,
  sx,
  ...rest
}: { name: string; color: string } & Omit<ChipProps, 'label' | 'color'>) {
  return (
    <Chip
      size="small"
      label={name}
      {...rest}
      sx={{
        bgcolor: color,
        color: inkOn(color),
        fontWeight: 500,
        maxWidth: 220,
        '& .MuiChip-deleteIcon': { color: inkOn(color), opacity: 0.7 },
        '& .MuiChip-deleteIcon:hover': { color: inkOn(color), opacity: 1 },
        ...sx,
      }}
    />
  );
}

export default TagChip;
