import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, FALLBACK_LANGUAGE, type Language } from '@recado/contracts';
import pt from './pt.json';

export const LANGUAGE_KEY = 'language';

/** The stored preference, first two letters (pt, en, es); Portuguese otherwise. */
export function storedLanguage(): Language {
  const raw = (localStorage.getItem(LANGUAGE_KEY) ?? navigator.language ?? FALLBACK_LANGUAGE)
    .slice(0, 2)
    .toLowerCase();
  return (LANGUAGES as readonly string[]).includes(raw) ? (raw as Language) : FALLBACK_LANGUAGE;
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

i18n.on('languageChanged', (lng) => {
  localStorage.setItem(LANGUAGE_KEY, lng);
  document.documentElement.lang = lng === 'pt' ? 'pt-BR' : lng;
});
document.documentElement.lang = i18n.language === 'pt' ? 'pt-BR' : i18n.language;

export default i18n;
