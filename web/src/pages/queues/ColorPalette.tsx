import { Box, ButtonBase, TextField, Tooltip, Typography } from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import { useTranslation } from 'react-i18next';
import { QUEUE_COLORS } from '@recado/contracts';

const HUES = 10;
const SHADES = QUEUE_COLORS.length / HUES;
/** The palette is stored hue by hue; shown as 5 rows of shades × 10 hue columns. */
const GRID = Array.from({ length: SHADES }, (_, shade) =>
  Array.from({ length: HUES }, (_, hue) => QUEUE_COLORS[hue * SHADES + shade]!),
).flat();

/** Dark or light ink on a colour, whichever reads better. */
export function inkOn(hex: string): string {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) return '#000';
  const [r, g, b] = [m[1], m[2], m[3]].map((x) => parseInt(x!, 16));
  return 0.299 * r! + 0.587 * g! + 0.114 * b! > 160 ? 'rgba(0,0,0,0.87)' : '#fff';
}

/**
 * docs/product.md#screens: the colour comes from a palette of 50; any #RRGGBB may be typed too. Colours other queues
 * use are marked (the server refuses them).
 */
export function ColorPalette({
  value,
  onChange,
  usedBy,
  error,
  disabled,
}: {
  value: string;
  onChange(color: string): void;
  /** Upper-case colour → name of the queue that has it. */
  usedBy: Map<string, string>;
  error?: string;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const current = value.toUpperCase();
  return (
    <Box>
      <Typography variant="body2" color={error ? 'error' : 'text.secondary'} sx={{ mb: 1 }}>
        {t('queues.form.color')} *
      </Typography>
      <Box
        role="radiogroup"
        aria-label={t('queues.form.color')}
        data-testid="color-palette"
        sx={{
          display: 'grid',
          // Ten columns that shrink on a phone, 28 px at most.
          gridTemplateColumns: `repeat(${HUES}, minmax(0, 28px))`,
          gap: { xs: 0.5, sm: 0.75 },
          mb: 1.5,
        }}
      >
        {GRID.map((color) => {
          const selected = color === current;
          const owner = usedBy.get(color);
          const label = owner ? t('queues.form.colorUsed', { color, name: owner }) : color;
          return (
            <Tooltip key={color} title={label} disableInteractive>
              <ButtonBase
                role="radio"
                aria-checked={selected}
                aria-label={label}
                data-color={color}
                data-used={owner ? 'true' : undefined}
                disabled={disabled}
                onClick={() => onChange(color)}
                sx={{
                  width: '100%',
                  aspectRatio: '1',
                  borderRadius: '50%',
                  bgcolor: color,
                  color: inkOn(color),
                  outline: selected ? '2px solid' : 'none',
                  outlineColor: 'text.primary',
                  outlineOffset: 2,
                  transition: 'transform 120ms',
                  '&:hover': { transform: 'scale(1.12)' },
                  '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2 },
                }}
              >
                {selected ? (
                  <CheckIcon sx={{ fontSize: 18 }} />
                ) : owner ? (
                  <Box
                    component="span"
                    sx={{ width: 6, height: 6, borderRadius: '50%', bgcolor: 'currentColor', opacity: 0.9 }}
                  />
                ) : null}
              </ButtonBase>
            </Tooltip>
          );
        })}
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1.5 }}>
        <Box
          aria-hidden
          sx={{
            width: 40,
            height: 40,
            flexShrink: 0,
            borderRadius: 1,
            bgcolor: /^#[0-9a-f]{6}$/i.test(value) ? value : 'transparent',
            border: 1,
            borderColor: 'divider',
          }}
        />
        <TextField
          size="small"
          label={t('queues.form.hex')}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value.trim())}
          error={Boolean(error)}
          helperText={error ?? t('queues.form.colorHelp')}
          slotProps={{ htmlInput: { maxLength: 7, 'data-field': 'color', spellCheck: false } }}
          sx={{ width: 260 }}
        />
      </Box>
    </Box>
  );
}
