import { lazy, Suspense, useState } from 'react';
import { Button, IconButton } from '@mui/material';
import TranslateIcon from '@mui/icons-material/Translate';
import { useTranslation } from 'react-i18next';
import type { Language } from '@recado/contracts';
import { chooseLanguage } from '../i18n/index.js';
import { NoTooltip, type TooltipSlot } from './tooltip-slot.js';

// The menu (MUI's Menu, Popover, Modal) loads on first use: /login stays light.
const loadList = () => import('./LanguageMenuList.js');
const LanguageMenuList = lazy(loadList);

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
  // Mounted from the first opening on, so the menu's closing transition still plays.
  const [used, setUsed] = useState(false);
  const open = (el: HTMLElement) => {
    setUsed(true);
    setAnchor(el);
  };
  // Fetched as the pointer or focus reaches the button, so the click rarely waits for it.
  const prefetch = () => void loadList();
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
            onPointerEnter={prefetch}
            onFocus={prefetch}
            onClick={(e) => open(e.currentTarget)}
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
          onPointerEnter={prefetch}
          onFocus={prefetch}
          onClick={(e) => open(e.currentTarget)}
          sx={{ textTransform: 'none', fontWeight: 600 }}
        >
          {t(`layout.languages.${current}`)}
        </Button>
      )}
      {used && (
        <Suspense fallback={null}>
          <LanguageMenuList
            anchor={anchor}
            current={current}
            onClose={() => setAnchor(null)}
            onChoose={choose}
          />
        </Suspense>
      )}
    </>
  );
}
