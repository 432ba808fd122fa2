import { useEffect, useState } from 'react';
import { Alert, Button } from '@mui/material';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { Language } from '@recado/contracts';
import { FALLBACK_LANGUAGE } from '@recado/contracts';
import { chooseLanguage, suggestedLanguage } from '../i18n/index.js';

/**
 * Portuguese is the default (docs/product.md#overview); a browser in English or Spanish only gets an offer, written in
 * its own language, to switch. Either answer is stored, and the offer does not come back.
 */
export function LanguageSuggestion() {
  const { i18n } = useTranslation();
  const [lang, setLang] = useState<Language | null>(() => suggestedLanguage());
  const [t, setT] = useState<TFunction | null>(null);
  useEffect(() => {
    if (!lang) return;
    let live = true;
    void i18n.loadLanguages(lang).then(() => {
      if (live) setT(() => i18n.getFixedT(lang));
    });
    return () => {
      live = false;
    };
  }, [lang, i18n]);
  if (!lang || !t || (i18n.resolvedLanguage ?? i18n.language) !== FALLBACK_LANGUAGE) return null;
  const answer = (choice: Language) => {
    setLang(null);
    void chooseLanguage(choice);
  };
  return (
    <Alert
      severity="info"
      variant="outlined"
      data-testid="language-suggestion"
      lang={lang}
      sx={{ alignItems: 'center', bgcolor: 'background.paper', py: 0 }}
      action={
        <>
          <Button
            color="inherit"
            size="small"
            onClick={() => answer(lang)}
            data-testid="language-suggestion-switch"
          >
            {t('layout.languageSuggestion.switch')}
          </Button>
          <Button color="inherit" size="small" onClick={() => answer(FALLBACK_LANGUAGE)}>
            {t('layout.languageSuggestion.keep')}
          </Button>
        </>
      }
    >
      {t('layout.languageSuggestion.text')}
    </Alert>
  );
}
