import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** #32.8/#32.9 texts (contact merge, duplicates, pin, forward): namespace `merge`, pt the fallback. */
export const MERGE_NS = 'merge';
export const MERGE_TEXTS = { pt, en, es } as const;

addNamespace(MERGE_NS, MERGE_TEXTS);

/** `t` of these texts: their own keys first, then the app's (common.*, errors.*). */
export function useMergeT() {
  return useTranslation([MERGE_NS, 'translation'], { nsMode: 'fallback' });
}
