/** What a push says, in the recipient's language (users.language; pt is the fallback). */
export const PUSH_TEXTS = {
  pt: {
    waiting: 'Cliente aguardando',
    message: 'Nova mensagem',
    media: 'Mídia',
    test: 'Notificações ativadas',
  },
  en: { waiting: 'Customer waiting', message: 'New message', media: 'Media', test: 'Notifications enabled' },
  es: {
    waiting: 'Cliente esperando',
    message: 'Nuevo mensaje',
    media: 'Multimedia',
    test: 'Notificaciones activadas',
  },
} as const;
export type PushLanguage = keyof typeof PUSH_TEXTS;
export const pushTexts = (language: string | null | undefined) =>
  PUSH_TEXTS[(language ?? 'pt') as PushLanguage] ?? PUSH_TEXTS.pt;
