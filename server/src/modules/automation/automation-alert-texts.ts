/** What the admins' push says when an automation keeps failing, in their language (pt is the fallback). */
const TEXTS = {
  pt: {
    title: 'Automação falhando',
    body: (n: number, reason: string) => `${n} falhas seguidas. Última: ${reason}`,
  },
  en: {
    title: 'Automation failing',
    body: (n: number, reason: string) => `${n} failures in a row. Last: ${reason}`,
  },
  es: {
    title: 'Automatización fallando',
    body: (n: number, reason: string) => `${n} fallos seguidos. Último: ${reason}`,
  },
} as const;

export const automationAlertTexts = (language: string | null | undefined) =>
  TEXTS[(language ?? 'pt') as keyof typeof TEXTS] ?? TEXTS.pt;
