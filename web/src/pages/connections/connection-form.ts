import { z } from 'zod';
import {
  CHANNEL_KINDS,
  WhatsappInput,
  type ChannelKindName,
  type Whatsapp,
  SECRET_MASK,
} from '@recado/contracts';
import { WebchatFormSchema, webchatFormValues, type WebchatForm } from './webchat-form.js';
import { checkTelegram, TelegramFormSchema, telegramFormValues, type TelegramForm } from './telegram-form.js';
import { checkMeta, MetaFormSchema, metaFormValues, type MetaForm } from './meta-form.js';

/** The add/edit connection form: its values, validation, and what is sent. */

export const MESSAGE_FIELDS = [
  'greetingMessage',
  'complationMessage',
  'outOfHoursMessage',
  'ratingMessage',
  'expiresInactiveMessage',
] as const;
export const NUMBER_FIELDS = {
  expiresTicket: 100000,
  timeUseBotQueues: 100000,
  maxUseBotQueues: 100,
} as const;
export const CLOUD_SECRETS = ['accessToken', 'appSecret', 'verifyToken'] as const;
export type CloudSecret = (typeof CLOUD_SECRETS)[number];

export interface ConnectionForm {
  name: string;
  channel: ChannelKindName;
  isDefault: boolean;
  greetingMessage: string;
  complationMessage: string;
  outOfHoursMessage: string;
  ratingMessage: string;
  expiresInactiveMessage: string;
  expiresTicket: string;
  timeUseBotQueues: string;
  maxUseBotQueues: string;
  phoneNumberId: string;
  businessAccountId: string;
  graphBaseUrl: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  queueIds: number[];
  /** #33.4-5 Calls and groups (Baileys). */
  groupMode: Whatsapp['groupMode'] & string;
  callMode: Whatsapp['callMode'] & string;
  callRejectMessage: string;
  callOpensTicket: boolean;
  /** #34.1 Website chat (webchat connections). */
  webchat: WebchatForm;
  /** #34 Telegram (telegram connections). */
  telegram: TelegramForm;
  /** #34 Instagram / Messenger (instagram and messenger connections). */
  meta: MetaForm;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
export const isMasked = (v: unknown) => v === SECRET_MASK;

/** Defaults of docs/product.md#entities for a new connection (maxUseBotQueues 3, expiresTicket 0, timeUseBotQueues 0). */
export function formValues(w: Whatsapp | null): ConnectionForm {
  const cfg = w?.channelConfig ?? {};
  return {
    name: w?.name ?? '',
    channel: w?.channel ?? 'baileys',
    isDefault: w?.isDefault ?? false,
    greetingMessage: w?.greetingMessage ?? '',
    complationMessage: w?.complationMessage ?? '',
    outOfHoursMessage: w?.outOfHoursMessage ?? '',
    ratingMessage: w?.ratingMessage ?? '',
    expiresInactiveMessage: w?.expiresInactiveMessage ?? '',
    expiresTicket: String(w?.expiresTicket ?? 0),
    timeUseBotQueues: String(w?.timeUseBotQueues ?? 0),
    maxUseBotQueues: String(w?.maxUseBotQueues ?? 3),
    phoneNumberId: str(cfg.phoneNumberId),
    businessAccountId: str(cfg.businessAccountId),
    graphBaseUrl: str(cfg.graphBaseUrl),
    // Stored secrets come back masked: the field starts empty and "empty" means "keep it".
    accessToken: isMasked(cfg.accessToken) ? '' : str(cfg.accessToken),
    appSecret: isMasked(cfg.appSecret) ? '' : str(cfg.appSecret),
    verifyToken: isMasked(cfg.verifyToken) ? '' : str(cfg.verifyToken),
    queueIds: w?.queues.map((q) => q.id) ?? [],
    groupMode: w?.groupMode ?? 'ignore',
    callMode: w?.callMode ?? 'ring',
    callRejectMessage: w?.callRejectMessage ?? '',
    callOpensTicket: w?.callOpensTicket ?? false,
    webchat: webchatFormValues(w),
    telegram: telegramFormValues(w),
    meta: metaFormValues(w),
  };
}

const count = (max: number) =>
  z.string().refine((v) => /^\d{1,6}$/.test(v.trim()) && Number(v) <= max, 'connections.form.invalidNumber');

export function makeSchema(stored: Set<CloudSecret>) {
  return z
    .object({
      name: WhatsappInput.shape.name,
      channel: z.enum(CHANNEL_KINDS),
      isDefault: z.boolean(),
      greetingMessage: z.string().max(4000),
      complationMessage: z.string().max(4000),
      outOfHoursMessage: z.string().max(4000),
      ratingMessage: z.string().max(4000),
      expiresInactiveMessage: z.string().max(4000),
      expiresTicket: count(NUMBER_FIELDS.expiresTicket),
      timeUseBotQueues: count(NUMBER_FIELDS.timeUseBotQueues),
      maxUseBotQueues: count(NUMBER_FIELDS.maxUseBotQueues),
      phoneNumberId: z.string(),
      businessAccountId: z.string(),
      graphBaseUrl: z.string(),
      accessToken: z.string().max(4096),
      appSecret: z.string().max(512),
      verifyToken: z.string().max(200),
      // More than one queue needs a greeting: the server says so (ERR_WAPP_GREETING_REQUIRED).
      queueIds: z.array(z.number()),
      // #33.4-5 The shared schemas' own rules.
      groupMode: WhatsappInput.shape.groupMode.unwrap(),
      callMode: WhatsappInput.shape.callMode.unwrap(),
      callRejectMessage: WhatsappInput.shape.callRejectMessage.unwrap(),
      callOpensTicket: z.boolean(),
      webchat: WebchatFormSchema,
      telegram: TelegramFormSchema,
      meta: MetaFormSchema,
    })
    .superRefine((v, ctx) => {
      if (v.channel === 'instagram' || v.channel === 'messenger')
        checkMeta(v.meta, (path, message) => ctx.addIssue({ code: 'custom', path, message }));
      if (v.channel === 'telegram')
        checkTelegram(v.telegram, (path, message) => ctx.addIssue({ code: 'custom', path, message }));
      if (v.channel !== 'cloud_api') return;
      const issue = (path: keyof ConnectionForm, message: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message });
      if (!v.phoneNumberId.trim()) issue('phoneNumberId', 'common.required');
      else if (!/^\d{1,32}$/.test(v.phoneNumberId.trim()))
        issue('phoneNumberId', 'connections.cloud.digitsOnly');
      if (v.businessAccountId.trim() && !/^\d{1,32}$/.test(v.businessAccountId.trim()))
        issue('businessAccountId', 'connections.cloud.digitsOnly');
      // A base URL takes no query string or fragment: the server appends the Graph path to it.
      if (v.graphBaseUrl.trim() && !/^https?:\/\/[^\s/?#]+[^\s?#]*$/.test(v.graphBaseUrl.trim()))
        issue('graphBaseUrl', 'connections.cloud.invalidUrl');
      for (const key of ['accessToken', 'appSecret'] as const)
        if (!v[key].trim() && !stored.has(key)) issue(key, 'common.required');
      if (v.verifyToken.trim() && v.verifyToken.trim().length < 8)
        issue('verifyToken', 'connections.cloud.verifyTokenShort');
    });
}

/** The Cloud API settings to send, or undefined when nothing changed on an edit (secrets stay stored). */
export function cloudConfig(values: ConnectionForm, initial: ConnectionForm, editing: boolean) {
  const fields = ['phoneNumberId', 'businessAccountId', 'graphBaseUrl', ...CLOUD_SECRETS] as const;
  if (editing && fields.every((k) => values[k].trim() === initial[k].trim())) return undefined;
  const config: Record<string, string> = { phoneNumberId: values.phoneNumberId.trim() };
  if (values.businessAccountId.trim()) config.businessAccountId = values.businessAccountId.trim();
  if (values.graphBaseUrl.trim()) config.graphBaseUrl = values.graphBaseUrl.trim();
  // An empty or still-masked secret is left out: the server keeps the stored one.
  for (const key of CLOUD_SECRETS) {
    const v = values[key].trim();
    if (v && v !== SECRET_MASK) config[key] = v;
  }
  return config;
}
