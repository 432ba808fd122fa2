import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** #33.7 texts of message reactions: namespace `reactions`, pt the fallback. */
export const REACTIONS_NS = 'reactions';
export const REACTIONS_TEXTS = { pt, en, es } as const;

addNamespace(REACTIONS_NS, REACTIONS_TEXTS);

/** `t` of these texts: their own keys first, then the app's (common.*, errors.*). */
export function useReactionsT() {
  return useTranslation([REACTIONS_NS, 'translation'], { nsMode: 'fallback' });
}
