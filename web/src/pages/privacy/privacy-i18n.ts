import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** The privacy texts (#35): a namespace of their own (`privacy`), pt the fallback. */
export const PRIVACY_NS = 'privacy';
export const PRIVACY_TEXTS = { pt, en, es } as const;

addNamespace(PRIVACY_NS, PRIVACY_TEXTS);

/** `t` of the privacy texts: their own keys first, then the app's (common.*, errors.*). */
export function usePrivacyT() {
  return useTranslation([PRIVACY_NS, 'translation'], { nsMode: 'fallback' });
}
