import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/**
 * The SLA texts (#30.5) are a namespace of their own (`sla`), like the flow screens': the chip, the filter,
 * the top bar's breaches, the dashboard card and the policies page read `sla:…` keys. pt is the fallback.
 */
export const SLA_NS = 'sla';
export const SLA_TEXTS = { pt, en, es } as const;

addNamespace(SLA_NS, SLA_TEXTS);

/** `t` of the SLA texts: their own keys first, then the app's (common.*, errors.*, menu.*). */
export function useSlaT() {
  return useTranslation([SLA_NS, 'translation'], { nsMode: 'fallback' });
}

export { formatSlaDuration } from './sla-format.js';
