/**
 * The one date and time formatter of the web client (issue 21 §6): every screen formats dates through
 * here, by the interface language. Portuguese and Spanish write 24-hour times and dd/mm/yyyy dates;
 * English writes 12-hour times ("09:43 PM") and mm/dd/yyyy dates.
 */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

export type DateInput = string | number | Date | null | undefined;

/** The Intl locale of an interface language ("pt", "pt-BR", "en", "es"...). */
export const localeOf = (lang: string): string =>
  lang.startsWith('pt') ? 'pt-BR' : lang.startsWith('es') ? 'es-ES' : 'en-US';

const twelveHours = (lang: string) => localeOf(lang) === 'en-US';

const toDate = (v: DateInput): Date | null => {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

const cache = new Map<string, Intl.DateTimeFormat>();
function formatter(lang: string, kind: string, opts: Intl.DateTimeFormatOptions) {
  const key = `${localeOf(lang)}|${kind}`;
  let f = cache.get(key);
  if (!f) cache.set(key, (f = new Intl.DateTimeFormat(localeOf(lang), opts)));
  return f;
}

/** "21:43" (pt, es) or "09:43 PM" (en). */
export function formatTime(v: DateInput, lang: string): string {
  const d = toDate(v);
  if (!d) return '';
  return formatter(lang, 'time', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: twelveHours(lang) ? 'h12' : 'h23',
  }).format(d);
}

/** "23/11/2026" (pt, es) or "11/23/2026" (en); `short` gives a two-digit year. */
export function formatDate(v: DateInput, lang: string, opts: { short?: boolean } = {}): string {
  const d = toDate(v);
  if (!d) return '';
  return formatter(lang, opts.short ? 'date-short' : 'date', {
    day: '2-digit',
    month: '2-digit',
    year: opts.short ? '2-digit' : 'numeric',
  }).format(d);
}

/** "23/11/2026 21:43" (pt, es) or "11/23/2026 09:43 PM" (en). */
export function formatDateTime(v: DateInput, lang: string): string {
  const d = toDate(v);
  return d ? `${formatDate(d, lang)} ${formatTime(d, lang)}` : '';
}

/** "23 de novembro de 2026", "November 23, 2026": a day written out (chat day separators). */
export function formatLongDate(v: DateInput, lang: string): string {
  const d = toDate(v);
  return d ? formatter(lang, 'long', { dateStyle: 'long' }).format(d) : '';
}

/** Any other shape (calendar headers: weekday names, "novembro de 2026"), in the interface's locale. */
export function formatParts(v: DateInput, lang: string, opts: Intl.DateTimeFormatOptions): string {
  const d = toDate(v);
  return d ? new Intl.DateTimeFormat(localeOf(lang), opts).format(d) : '';
}

/** The formatters bound to the current interface language. */
export function useDateFormat() {
  const { i18n } = useTranslation();
  const lang = i18n.resolvedLanguage ?? i18n.language;
  return useMemo(
    () => ({
      lang,
      time: (v: DateInput) => formatTime(v, lang),
      date: (v: DateInput) => formatDate(v, lang),
      dateTime: (v: DateInput) => formatDateTime(v, lang),
      longDate: (v: DateInput) => formatLongDate(v, lang),
      parts: (v: DateInput, opts: Intl.DateTimeFormatOptions) => formatParts(v, lang, opts),
    }),
    [lang],
  );
}
