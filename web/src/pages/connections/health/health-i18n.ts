import { useTranslation } from 'react-i18next';
import { localeOf } from '../../../i18n/format.js';
import { addNamespace } from '../../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/**
 * The connection-health texts (#33.1, #33.2) are a namespace of their own (`health`): the connections page's
 * health dialog and the top bar's connection alerts read `health:…` keys. pt is the fallback.
 */
export const HEALTH_NS = 'health';
export const HEALTH_TEXTS = { pt, en, es } as const;

addNamespace(HEALTH_NS, HEALTH_TEXTS);

/** `t` of the health texts: their own keys first, then the app's (common.*, connections.*). */
export function useHealthT() {
  return useTranslation([HEALTH_NS, 'translation'], { nsMode: 'fallback' });
}

/** An outage's length as the server's alerts say it: "45 s", "5 min", "1 h 20 min", "2 d 3 h". */
export function formatOutage(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** 0.99312 → "99.3%" in the interface's language (pt, es: "99,3%"). */
export const formatRatio = (ratio: number, lang: string) =>
  new Intl.NumberFormat(localeOf(lang), {
    style: 'percent',
    maximumFractionDigits: 1,
  }).format(ratio);
