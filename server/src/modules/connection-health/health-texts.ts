/** What the alerts say (push and e-mail), in the recipient's language (pt is the fallback). */
export const HEALTH_TEXTS = {
  pt: {
    downTitle: (name: string) => `Conexão ${name} fora do ar`,
    downBody: (d: string, status: string) => `Sem conexão há ${d} (${status}).`,
    backTitle: (name: string) => `Conexão ${name} voltou`,
    backBody: (d: string) => `Ficou fora do ar por ${d}.`,
    mailFooter: (url: string) => `Veja o histórico da conexão em ${url}`,
  },
  en: {
    downTitle: (name: string) => `Connection ${name} is down`,
    downBody: (d: string, status: string) => `Offline for ${d} (${status}).`,
    backTitle: (name: string) => `Connection ${name} is back`,
    backBody: (d: string) => `It was down for ${d}.`,
    mailFooter: (url: string) => `See the connection's history at ${url}`,
  },
  es: {
    downTitle: (name: string) => `Conexión ${name} caída`,
    downBody: (d: string, status: string) => `Sin conexión desde hace ${d} (${status}).`,
    backTitle: (name: string) => `Conexión ${name} restablecida`,
    backBody: (d: string) => `Estuvo caída durante ${d}.`,
    mailFooter: (url: string) => `Vea el historial de la conexión en ${url}`,
  },
} as const;

export type HealthLanguage = keyof typeof HEALTH_TEXTS;
export const healthTexts = (language: string | null | undefined) =>
  HEALTH_TEXTS[(language ?? 'pt') as HealthLanguage] ?? HEALTH_TEXTS.pt;

/** An outage's length as people say it: "45 s", "5 min", "1 h 20 min", "2 d 3 h" (the same in the three languages). */
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
