import type { ChannelKindName } from '@recado/contracts';

/** #34.4 The channel a push names (as the web's connections.channels labels). */
const CHANNEL_NAMES: Record<'pt' | 'en' | 'es', Record<ChannelKindName, string>> = {
  pt: {
    baileys: 'WhatsApp',
    cloud_api: 'WhatsApp Cloud API',
    simulator: 'Simulador',
    webchat: 'Chat do site',
    telegram: 'Telegram',
    instagram: 'Instagram',
    messenger: 'Messenger',
  },
  en: {
    baileys: 'WhatsApp',
    cloud_api: 'WhatsApp Cloud API',
    simulator: 'Simulator',
    webchat: 'Website chat',
    telegram: 'Telegram',
    instagram: 'Instagram',
    messenger: 'Messenger',
  },
  es: {
    baileys: 'WhatsApp',
    cloud_api: 'WhatsApp Cloud API',
    simulator: 'Simulador',
    webchat: 'Chat del sitio',
    telegram: 'Telegram',
    instagram: 'Instagram',
    messenger: 'Messenger',
  },
};

/** What a push says, in the recipient's language (users.language; pt is the fallback). */
export const PUSH_TEXTS = {
  pt: {
    waiting: 'Cliente aguardando',
    message: 'Nova mensagem',
    media: 'Mídia',
    test: 'Notificações ativadas',
    channels: CHANNEL_NAMES.pt,
  },
  en: {
    waiting: 'Customer waiting',
    message: 'New message',
    media: 'Media',
    test: 'Notifications enabled',
    channels: CHANNEL_NAMES.en,
  },
  es: {
    waiting: 'Cliente esperando',
    message: 'Nuevo mensaje',
    media: 'Multimedia',
    test: 'Notificaciones activadas',
    channels: CHANNEL_NAMES.es,
  },
} as const;
export type PushLanguage = keyof typeof PUSH_TEXTS;
export const pushTexts = (language: string | null | undefined) =>
  PUSH_TEXTS[(language ?? 'pt') as PushLanguage] ?? PUSH_TEXTS.pt;
