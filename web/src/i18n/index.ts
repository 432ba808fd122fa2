import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, FALLBACK_LANGUAGE, type Language } from '@recado/contracts';
import pt from './pt.json';

export const LANGUAGE_KEY = 'language';

const supported = (raw: string | null | undefined): Language | null => {
  const lang = (raw ?? '').slice(0, 2).toLowerCase();
  return (LANGUAGES as readonly string[]).includes(lang) ? (lang as Language) : null;
};

/** The stored preference, first two letters (pt, en, es); Portuguese otherwise (docs/product.md#overview). */
export function storedLanguage(): Language {
  return supported(localStorage.getItem(LANGUAGE_KEY)) ?? FALLBACK_LANGUAGE;
}

/**
 * The browser's language, only as a suggestion: offered while nothing is stored and when it is one we
 * have and not Portuguese. It never switches by itself.
 */
export function suggestedLanguage(): Language | null {
  if (localStorage.getItem(LANGUAGE_KEY)) return null;
  const lang = supported(navigator.language);
  return lang && lang !== FALLBACK_LANGUAGE ? lang : null;
}

/** The user's choice (the language menu, the suggestion): stored, then applied. */
export function chooseLanguage(lang: Language) {
  localStorage.setItem(LANGUAGE_KEY, lang);
  return i18n.changeLanguage(lang);
}

// Portuguese (the fallback) ships with the app; English and Spanish load when chosen.
const loaders: Record<string, () => Promise<{ default: Record<string, unknown> }>> = {
  en: () => import('./en.json'),
  es: () => import('./es.json'),
};
const lazyLanguages: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, _namespace, callback) {
    const load = loaders[language];
    if (!load) return callback(null, {});
    load().then(
      (m) => callback(null, m.default),
      (err: Error) => callback(err, null),
    );
  },
};

void i18n
  .use(lazyLanguages)
  .use(initReactI18next)
  .init({
    resources: { pt: { translation: pt } },
    partialBundledLanguages: true,
    lng: storedLanguage(),
    fallbackLng: FALLBACK_LANGUAGE,
    interpolation: { escapeValue: false },
    returnNull: false,
    react: { useSuspense: false },
  });

// Only a choice is stored (chooseLanguage): the default must not look like one.
i18n.on('languageChanged', (lng) => {
  document.documentElement.lang = lng === 'pt' ? 'pt-BR' : lng;
});
document.documentElement.lang = i18n.language === 'pt' ? 'pt-BR' : i18n.language;

export default i18n;
