import { z } from 'zod';
import { type Wire } from './responses.js';

/**
 * Every company setting of both specs, with the value a new company starts with.
 * Values are strings, as the spec's client reads them.
 */
export const SETTING_DEFAULTS = {
  userRating: 'disabled',
  scheduleType: 'disabled',
  call: 'enabled',
  CheckMsgIsGroup: 'enabled',
  sendGreetingAccepted: 'disabled',
  sendMsgTransfTicket: 'disabled',
  sendGreetingMessageOneQueues: 'enabled',
  chatBotType: 'text',
  asaas: '',
  campaignsEnabled: 'true',
  /** Side menu starts open (enabled) or collapsed (disabled) on wide screens. */
  sideMenuOpen: 'enabled',
  /** Company time zone for business hours. */
  timezone: 'America/Sao_Paulo',
  /** The company's language (pt, en, es): the bot's fixed texts follow it. */
  language: 'pt',
  /** The bot's fixed texts (bot-texts.ts); empty means the default in the company's language. */
  botInvalidAnswer: '',
  botBackLabel: '',
  /** Sent out of hours when the connection (or queue) has no out-of-hours message of its own. */
  botOutOfHours: '',
  /** Every inbound voice note transcribed so attendants read it under the audio (docs/automation.md). */
  transcribeAudio: 'disabled',
  /** The company's OpenAI key for those transcriptions: sealed at rest, answered as the mask. */
  transcriptionApiKey: '',
} as const;

export type SettingKey = keyof typeof SETTING_DEFAULTS;
export const SETTING_KEYS = Object.keys(SETTING_DEFAULTS) as SettingKey[];

/** Allowed values for keys with a closed set; keys absent here take any short string. */
export const SETTING_VALUES: Partial<Record<SettingKey, readonly string[]>> = {
  userRating: ['enabled', 'disabled'],
  scheduleType: ['disabled', 'company', 'queue'],
  call: ['enabled', 'disabled'],
  CheckMsgIsGroup: ['enabled', 'disabled'],
  sendGreetingAccepted: ['enabled', 'disabled'],
  sendMsgTransfTicket: ['enabled', 'disabled'],
  sendGreetingMessageOneQueues: ['enabled', 'disabled'],
  chatBotType: ['text', 'button', 'list'],
  campaignsEnabled: ['true', 'false'],
  sideMenuOpen: ['enabled', 'disabled'],
  language: ['pt', 'en', 'es'],
  transcribeAudio: ['enabled', 'disabled'],
};

/** Secrets kept sealed (secretBox) and answered as SECRET_MASK when set ('' when not). */
export const SEALED_SETTINGS: readonly SettingKey[] = ['transcriptionApiKey', 'asaas'];

/** Keys only the platform owner may change (payment gateway credentials). */
export const SUPER_ONLY_SETTINGS: readonly SettingKey[] = ['asaas'];

export const SettingKeyParam = z.object({ key: z.enum(SETTING_KEYS as [SettingKey, ...SettingKey[]]) });
export const SettingUpdate = z.object({ value: z.string().max(2000) });

export const Setting = z
  .looseObject({
    key: z.string() as z.ZodType<SettingKey, SettingKey>,
    value: z.string(),
  })
  .meta({ id: 'Setting' });
export type Setting = Wire<typeof Setting>;
