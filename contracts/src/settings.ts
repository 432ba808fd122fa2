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
  /** #30.2 Minutes without activity in the web app before an online attendant becomes away (0: never). */
  presenceAwayMinutes: '10',
  /**
   * #30 Contact owners (docs/routing.md#contact-owners-carteira): a returning customer goes straight to their
   * owner under a round-robin or least-busy queue ('policies'), under every queue, manual too ('always'), or
   * never ('off').
   */
  ownerRouting: 'policies',
  /** Minutes a customer waits for an online owner with no free place before the queue's policy applies. */
  ownerWaitMinutes: '5',
  /** #30.4 The attendant who first resolves a contact's ticket becomes its owner when it has none. */
  contactOwnerOnResolve: 'disabled',
  /**
   * #30.4 Attendants see only their own contacts and those without owner (contacts, tickets, rooms: the one
   * rule in visibility.ts); admins and supervisors see every contact.
   */
  ownContactsOnly: 'disabled',
  /** #32.3 Closing reasons on resolve: never asked ('off'), asked ('optional') or required ('required'). */
  closingReasonMode: 'off',
  /** #32.4 Ticket protocol pattern: YYYY, YY, MM, DD and one run of digits, the zero-padded sequence. */
  protocolPattern: 'YYYYMMDD-000123',
  /** #32.6 Days the audit log keeps an entry (docs/audit.md); a daily job purges older ones. */
  auditRetentionDays: '365',
  /** #33.1 Minutes a connection may stay out of CONNECTED before its admins are told (docs/connection-health.md). */
  connectionAlertMinutes: '2',
  /** #33.1 Also told: this URL (a JSON POST, through the outbound-URL guard), '' for none. */
  connectionAlertUrl: '',
  /** #33.1 Also told: these e-mail addresses (comma-separated) besides the admins. */
  connectionAlertEmails: '',
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
  ownerRouting: ['off', 'policies', 'always'],
  contactOwnerOnResolve: ['enabled', 'disabled'],
  ownContactsOnly: ['enabled', 'disabled'],
  closingReasonMode: ['off', 'optional', 'required'],
};

/** Keys whose value is a whole number in a range (written as its digits, "10"). */
export const SETTING_NUMBERS: Partial<Record<SettingKey, { min: number; max: number }>> = {
  presenceAwayMinutes: { min: 0, max: 1440 },
  auditRetentionDays: { min: 30, max: 3650 },
  ownerWaitMinutes: { min: 0, max: 1440 },
  connectionAlertMinutes: { min: 1, max: 1440 },
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
