import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** The audit log screen's texts (#32.6): a namespace of their own (`audit`), pt the fallback. */
export const AUDIT_NS = 'audit';
export const AUDIT_TEXTS = { pt, en, es } as const;

addNamespace(AUDIT_NS, AUDIT_TEXTS);

/** `t` of the audit texts: their own keys first, then the app's (common.*, errors.*). */
export function useAuditT() {
  return useTranslation([AUDIT_NS, 'translation'], { nsMode: 'fallback' });
}
