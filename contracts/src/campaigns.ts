import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);
const Message = z.string().max(4000);

/** Operations §4. */
export const CAMPAIGN_STATUSES = [
  'INATIVA',
  'PROGRAMADA',
  'EM_ANDAMENTO',
  'CANCELADA',
  'FINALIZADA',
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Operations §9: up to 5 message variants. */
export const CAMPAIGN_VARIANTS = 5;
/** Operations §4: editable only when INATIVA, or PROGRAMADA more than this before its start. */
export const CAMPAIGN_EDIT_LOCK_MS = 60 * 60 * 1000;
/** Operations §9: the report reloads this long after the campaign finished. */
export const CAMPAIGN_REPORT_RELOAD_MS = 5000;

/**
 * Placeholders filled in every variant and confirmation message, per recipient (case-insensitive):
 * {nome} / {name} the recipient's name, {primeiro-nome} / {firstName} its first word, {numero} / {number},
 * {email}, {saudacao} / {greeting} (Bom dia / Boa tarde / Boa noite by the company's clock), {protocolo} /
 * {protocol} (a per-send code), and every campaign-settings variable as {shortcut}.
 */
export const CAMPAIGN_PLACEHOLDERS = [
  'nome',
  'primeiro-nome',
  'numero',
  'email',
  'saudacao',
  'protocolo',
] as const;

/** A shipping's state: pending → claimed → sent → delivered (or failed / invalid); see the engine. */
export const SHIPPING_STATUSES = [
  'pending',
  'claimed',
  'confirmation_sent',
  'sent',
  'delivered',
  'failed',
  'invalid',
] as const;
export type ShippingStatus = (typeof SHIPPING_STATUSES)[number];

const Variants = {
  message1: Message.default(''),
  message2: Message.default(''),
  message3: Message.default(''),
  message4: Message.default(''),
  message5: Message.default(''),
  confirmationMessage1: Message.default(''),
  confirmationMessage2: Message.default(''),
  confirmationMessage3: Message.default(''),
  confirmationMessage4: Message.default(''),
  confirmationMessage5: Message.default(''),
};

const CampaignFields = z.object({
  name: z.string().trim().min(2).max(50),
  ...Variants,
  confirmation: z.boolean().default(false),
  /** ISO date-time; with it the campaign is PROGRAMADA, without it INATIVA. */
  scheduledAt: z.iso.datetime({ offset: true }).nullable().optional(),
  whatsappId: Id.nullable().optional(),
  contactListId: Id.nullable().optional(),
  tagId: Id.nullable().optional(),
  fileListId: Id.nullable().optional(),
});

const hasAnyVariant = (c: Partial<Record<string, unknown>>) =>
  [1, 2, 3, 4, 5].some((i) => typeof c[`message${i}`] === 'string' && (c[`message${i}`] as string).trim());

export const CampaignInput = CampaignFields.refine((c) => hasAnyVariant(c), {
  message: 'at least one message',
  path: ['message1'],
}).refine((c) => !(c.contactListId && c.tagId), {
  message: 'a contact list or a tag, not both',
  path: ['tagId'],
});
export type CampaignInput = z.infer<typeof CampaignInput>;

/** PUT /campaigns/{id}: only what is sent changes. */
export const CampaignUpdate = CampaignFields.partial()
  .extend({
    name: z.string().trim().min(2).max(50).optional(),
    message1: Message.optional(),
    message2: Message.optional(),
    message3: Message.optional(),
    message4: Message.optional(),
    message5: Message.optional(),
    confirmationMessage1: Message.optional(),
    confirmationMessage2: Message.optional(),
    confirmationMessage3: Message.optional(),
    confirmationMessage4: Message.optional(),
    confirmationMessage5: Message.optional(),
    confirmation: z.boolean().optional(),
  })
  .refine((c) => !(c.contactListId && c.tagId), {
    message: 'a contact list or a tag, not both',
    path: ['tagId'],
  });
export type CampaignUpdate = z.infer<typeof CampaignUpdate>;

export const CampaignListQuery = z.object({
  searchParam: z.string().trim().toLowerCase().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});
export type CampaignListQuery = z.infer<typeof CampaignListQuery>;

export const CampaignCounts = z
  .looseObject({
    /** Recipients that will get (or got) a message. */
    valid: z.number(),
    /** Handed to the channel. */
    sent: z.number(),
    /** Confirmed by the channel (ack ≥ 2). */
    delivered: z.number(),
    /** Numbers without WhatsApp or sends the channel refused. */
    failed: z.number(),
    pending: z.number(),
  })
  .meta({ id: 'CampaignCounts' });
export type CampaignCounts = Wire<typeof CampaignCounts>;

export const Campaign = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    name: z.string(),
    message1: z.string(),
    message2: z.string(),
    message3: z.string(),
    message4: z.string(),
    message5: z.string(),
    confirmation: z.boolean(),
    confirmationMessage1: z.string(),
    confirmationMessage2: z.string(),
    confirmationMessage3: z.string(),
    confirmationMessage4: z.string(),
    confirmationMessage5: z.string(),
    status: oneOf(CAMPAIGN_STATUSES),
    scheduledAt: Timestamp.nullable(),
    completedAt: Timestamp.nullable(),
    whatsappId: z.number().nullable(),
    whatsapp: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    contactListId: z.number().nullable(),
    contactList: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    tagId: z.number().nullable(),
    tag: z
      .looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      })
      .nullable(),
    fileListId: z.number().nullable(),
    fileList: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    mediaPath: z.string().nullable(),
    mediaName: z.string().nullable(),
    /** Whether PUT is allowed now (operations §4). */
    editable: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Campaign' });
export type Campaign = Wire<typeof Campaign>;

export const CampaignReport = Campaign.extend({ counts: CampaignCounts }).meta({ id: 'CampaignReport' });
export type CampaignReport = Wire<typeof CampaignReport>;

export const CampaignPage = z
  .looseObject({
    records: z.array(Campaign),
    hasMore: z.boolean(),
  })
  .meta({ id: 'CampaignPage' });
export type CampaignPage = Wire<typeof CampaignPage>;

/** Socket event `company-{id}-campaign`. Counts ride along while a campaign runs (the report screen). */
export type CampaignEvent =
  | { action: 'create' | 'update'; record: Campaign; counts?: CampaignCounts }
  | { action: 'delete'; id: number };

/** Whether a campaign may be edited at `now` (operations §4). */
export function campaignEditable(
  c: { status: string; scheduledAt: string | Date | null },
  now: Date,
): boolean {
  if (c.status === 'INATIVA') return true;
  if (c.status !== 'PROGRAMADA' || !c.scheduledAt) return false;
  return new Date(c.scheduledAt).getTime() - now.getTime() > CAMPAIGN_EDIT_LOCK_MS;
}
