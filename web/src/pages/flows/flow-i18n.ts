import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/**
 * The flow screens' texts are a namespace of their own (`flows`), shipped in the screens' chunk rather than in
 * the app's pt.json (which every page, the login included, downloads). The three languages are added here
 * when the chunk loads; a separate namespace never stops the lazy loading of the app's own en/es files
 * (i18next skips loading a language's `translation` only when that bundle exists). pt is the fallback.
 */
export const FLOW_NS = 'flows';
export const FLOW_TEXTS = { pt, en, es } as const;

addNamespace(FLOW_NS, FLOW_TEXTS);

/** `t` of the flow screens: their own keys first, then the app's (common.*, errors.*, menu.*). */
export function useFlowT() {
  return useTranslation([FLOW_NS, 'translation'], { nsMode: 'fallback' });
}
