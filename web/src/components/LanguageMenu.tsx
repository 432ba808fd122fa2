import { useState } from 'react';
import { Button, IconButton, ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import TranslateIcon from '@mui/icons-material/Translate';
import CheckIcon from '@mui/icons-material/Check';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@recado/contracts';
import { chooseLanguage } from '../i18n/index.js';
import { NoTooltip, type TooltipSlot } from './tooltip-slot.js';

/**
 * The language picker of the top bar and the public pages. A choice is stored locally (chooseLanguage); `onChange` lets the shell tell the server too.
 */
export function LanguageMenu({
  onChange,
  variant = 'icon',
  tooltip: Tooltip = NoTooltip,
}: {
  onChange?: (lang: Language) => void;
  variant?: 'icon' | 'button';
  tooltip?: TooltipSlot;
}) {
  const { t, i18n } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = i18n.resolvedLanguage ?? i18n.language;
  const choose = (lang: Language) => {
    setAnchor(null);
    if (lang !== current) {
      void chooseLanguage(lang);
      onChange?.(lang);
    }
  };
  const label = t('layout.language');
  return (
    <>
      {variant === 'icon' ? (
        <Tooltip title={label}>
          <IconButton
            color="inherit"
            aria-label={label}
            data-testid="language-button"
            onClick={(e) => setAnchor(e.currentTarget)}
          >
            <TranslateIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      ) : (
        <Button
          color="inherit"
          size="small"
          aria-label={label}
          data-testid="language-button"
          startIcon={<TranslateIcon fontSize="small" />}
          onClick={(e) => setAnchor(e.currentTarget)}
          sx={{ textTransform: 'none', fontWeight: 600 }}
        >
          {t(`layout.languages.${current}`)}
        </Button>
      )}
      <Menu
        anchorEl={anchor}
        open={Boolean(anchor)}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        {LANGUAGES.map((lang) => (
          <MenuItem
            key={lang}
            selected={lang === current}
            data-testid={`language-${lang}`}
            onClick={() => choose(lang)}
          >
            <ListItemIcon>{lang === current && <CheckIcon fontSize="small" />}</ListItemIcon>
            <ListItemText>{t(`layout.languages.${lang}`)}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
