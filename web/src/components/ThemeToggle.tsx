import { IconButton } from '@mui/material';
import DarkModeOutlinedIcon from '@mui/icons-material/DarkModeOutlined';
import LightModeOutlinedIcon from '@mui/icons-material/LightModeOutlined';
import { useTranslation } from 'react-i18next';
import { useThemeMode } from '../app/theme-mode.js';
import { NoTooltip, type TooltipSlot } from './tooltip-slot.js';

/** Light/dark switch; the choice is stored as preferredTheme by the theme provider. */
export function ThemeToggle({ tooltip: Tooltip = NoTooltip }: { tooltip?: TooltipSlot }) {
  const { t } = useTranslation();
  const { mode, toggle } = useThemeMode();
  const label = mode === 'light' ? t('layout.themeDark') : t('layout.themeLight');
  return (
    <Tooltip title={label}>
      <IconButton color="inherit" aria-label={label} data-testid="theme-toggle" onClick={toggle}>
        {mode === 'light' ? (
          <DarkModeOutlinedIcon fontSize="small" />
        ) : (
          <LightModeOutlinedIcon fontSize="small" />
        )}
      </IconButton>
    </Tooltip>
  );
}
