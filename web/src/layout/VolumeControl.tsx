import { useState } from 'react';
import { Box, IconButton, Popover, Slider, Tooltip, Typography } from '@mui/material';
import VolumeUpOutlinedIcon from '@mui/icons-material/VolumeUpOutlined';
import VolumeDownOutlinedIcon from '@mui/icons-material/VolumeDownOutlined';
import VolumeOffOutlinedIcon from '@mui/icons-material/VolumeOffOutlined';
import { useTranslation } from 'react-i18next';

export const VOLUME_KEY = 'volume';

/** The notification sound volume, 0 to 1, kept in local storage (read by whoever plays a sound). */
export function storedVolume(): number {
  const raw = Number(localStorage.getItem(VOLUME_KEY) ?? '1');
  return Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 1;
}

export function VolumeControl() {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [volume, setVolume] = useState(storedVolume);
  const Icon =
    volume === 0 ? VolumeOffOutlinedIcon : volume < 0.5 ? VolumeDownOutlinedIcon : VolumeUpOutlinedIcon;
  const label = t('layout.volume');
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          color="inherit"
          aria-label={label}
          data-testid="volume-button"
          onClick={(e) => setAnchor(e.currentTarget)}
        >
          <Icon fontSize="small" />
        </IconButton>
      </Tooltip>
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
        transformOrigin={{ vertical: 'top', horizontal: 'center' }}
        slotProps={{ paper: { sx: { mt: 1, borderRadius: 3 } } }}
      >
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: 2, py: 1.5, width: 240 }}>
          <VolumeDownOutlinedIcon fontSize="small" color="action" />
          <Slider
            size="small"
            aria-label={label}
            min={0}
            max={1}
            step={0.1}
            value={volume}
            onChange={(_, v) => {
              const next = Math.round((v as number) * 10) / 10;
              setVolume(next);
              localStorage.setItem(VOLUME_KEY, String(next));
            }}
          />
          <Typography variant="caption" sx={{ width: 32, textAlign: 'right' }} color="text.secondary">
            {Math.round(volume * 100)}%
          </Typography>
        </Box>
      </Popover>
    </>
  );
}
