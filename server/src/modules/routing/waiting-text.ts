/**
 * The waiting-line message's placeholders (docs/routing.md#the-waiting-line-and-its-message): `{{position}}`
 * is the ticket's place in its queue's line (1 = next), `{{eta}}` the queue's recent median wait in words of
 * the company's language (pt, en, es; pt otherwise).
 */
export function fillWaitingMessage(template: string, position: number, eta: string): string {
  return template.replace(/\{\{\s*position\s*\}\}/g, String(position)).replace(/\{\{\s*eta\s*\}\}/g, eta);
}

const WORDS = {
  pt: {
    soon: 'alguns minutos',
    lessThan: 'menos de 1 minuto',
    minute: 'minuto',
    minutes: 'minutos',
    hour: 'h',
  },
  en: {
    soon: 'a few minutes',
    lessThan: 'less than 1 minute',
    minute: 'minute',
    minutes: 'minutes',
    hour: 'h',
  },
  es: {
    soon: 'unos minutos',
    lessThan: 'menos de 1 minuto',
    minute: 'minuto',
    minutes: 'minutos',
    hour: 'h',
  },
} as const;

/** A wait in seconds as words: "menos de 1 minuto", "5 minutos", "1 h 20 min"; null (no data yet): "alguns minutos". */
export function formatEta(seconds: number | null, language: string): string {
  const w = WORDS[(language in WORDS ? language : 'pt') as keyof typeof WORDS];
  if (seconds === null || !Number.isFinite(seconds)) return w.soon;
  if (seconds < 60) return w.lessThan;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} ${minutes === 1 ? w.minute : w.minutes}`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m ? `${h} ${w.hour} ${m} min` : `${h} ${w.hour}`;
}
