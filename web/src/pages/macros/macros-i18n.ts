import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/**
 * #32.1/#32.2 The macros, command bar and shortcut texts are a namespace of their own (`macros`), like the
 * SLA screens'. pt is the fallback.
 */
export const MACROS_NS = 'macros';
addNamespace(MACROS_NS, { pt, en, es });

/** `t` of these texts: their own keys first (`macros:macros.…`), then the app's (common.*, errors.*, menu.*). */
export function useMacrosT() {
  return useTranslation([MACROS_NS, 'translation'], { nsMode: 'fallback' });
}
