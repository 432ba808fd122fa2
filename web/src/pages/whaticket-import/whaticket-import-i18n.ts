import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** The Whaticket import texts (#35.5): a namespace of their own, pt the fallback. */
export const WHATICKET_NS = 'whaticketImport';

addNamespace(WHATICKET_NS, { pt, en, es });

export function useWhaticketT() {
  return useTranslation([WHATICKET_NS, 'translation'], { nsMode: 'fallback' });
}
