/**
 * The bot's fixed texts (issue 21 §1 and §12): what the automatic attendant writes besides the company's own
 * greetings and menus. Each has a company setting; an empty setting means the default below, in the
 * company's language (the `language` setting: pt, en or es; Portuguese when unknown).
 */
import { LANGUAGES, type Language } from './constants.js';

export const COMPANY_LANGUAGES = LANGUAGES;
export type CompanyLanguage = Language;

export const BOT_TEXT_KEYS = ['botInvalidAnswer', 'botBackLabel', 'botOutOfHours'] as const;
export type BotTextKey = (typeof BOT_TEXT_KEYS)[number];

export const BOT_TEXT_DEFAULTS: Record<CompanyLanguage, Record<BotTextKey, string>> = {
  pt: {
    botInvalidAnswer: 'Opção inválida. Responda com o número de uma das opções abaixo.',
    botBackLabel: 'Voltar',
    botOutOfHours:
      'Olá! Estamos fora do horário de atendimento. Sua mensagem foi recebida e responderemos assim que voltarmos.',
  },
  en: {
    botInvalidAnswer: 'Invalid option. Please reply with the number of one of the options below.',
    botBackLabel: 'Back',
    botOutOfHours:
      "Hello! We are outside our business hours. We have received your message and will reply as soon as we're back.",
  },
  es: {
    botInvalidAnswer: 'Opción inválida. Responda con el número de una de las opciones a continuación.',
    botBackLabel: 'Volver',
    botOutOfHours:
      'Hola. Estamos fuera del horario de atención. Recibimos su mensaje y responderemos en cuanto volvamos.',
  },
};

export const companyLanguage = (value: string | null | undefined): CompanyLanguage =>
  (COMPANY_LANGUAGES as readonly string[]).includes(value ?? '') ? (value as CompanyLanguage) : 'pt';

/** The text the bot writes: the company's own (a non-blank setting), or the default in its language. */
export function botText(settings: Partial<Record<string, string>>, key: BotTextKey): string {
  const own = settings[key]?.trim();
  return own ? own : BOT_TEXT_DEFAULTS[companyLanguage(settings.language)][key];
}
