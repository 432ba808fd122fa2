import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);
const Message = z.string().max(4000);

/** docs/campaigns.md. */
export const CAMPAIGN_STATUSES = [
  'INATIVA',
  'PROGRAMADA',
  'EM_ANDAMENTO',
  'CANCELADA',
  'FINALIZADA',
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** docs/campaigns.md: up to 5 message variants. */
export const CAMPAIGN_VARIANTS = 5;
/** docs/campaigns.md: editable only when INATIVA, or PROGRAMADA more than this before its start. */
export const CAMPAIGN_EDIT_LOCK_MS = 60 * 60 * 1000;
/** docs/campaigns.md: the report reloads this long after the campaign finished. */
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

/**
 * Where one template variable's value comes from, per recipient: a field of the contact list item (name, its
 * first word, number, e-mail) or a fixed text. For a field, `text` is the fallback when the recipient's
 * field is empty (Meta refuses empty parameters; without a fallback an empty field sends "-").
 */
export const CAMPAIGN_TEMPLATE_SOURCES = ['name', 'firstName', 'number', 'email', 'text'] as const;
export type CampaignTemplateSource = (typeof CAMPAIGN_TEMPLATE_SOURCES)[number];
export const CampaignTemplateValue = z.object({
  source: z.enum(CAMPAIGN_TEMPLATE_SOURCES),
  text: z.string().trim().max(1024).default(''),
});
export type CampaignTemplateValue = z.infer<typeof CampaignTemplateValue>;

/**
 * A Cloud API campaign's message: an approved template stored for the campaign's connection, with a source
 * for each body {{n}} (in order), the text header's {{1}}, and the header's media link when it has one.
 */
export const CampaignTemplate = z.object({
  name: z.string().trim().min(1).max(512),
  language: z.string().trim().min(2).max(15),
  variables: z.array(CampaignTemplateValue).max(30).default([]),
  headerVariables: z.array(CampaignTemplateValue).max(1).default([]),
  headerMediaUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
});
export type CampaignTemplate = z.infer<typeof CampaignTemplate>;
/** The stored template mapping as answers carry it (what was saved, defaults included or not). */
const CampaignTemplateValueView = z.looseObject({
  source: z.enum(CAMPAIGN_TEMPLATE_SOURCES),
  text: z.string().optional(),
});
export const CampaignTemplateView = z
  .looseObject({
    name: z.string(),
    language: z.string(),
    variables: z.array(CampaignTemplateValueView).optional(),
    headerVariables: z.array(CampaignTemplateValueView).optional(),
    headerMediaUrl: z.string().optional(),
  })
  .meta({ id: 'CampaignTemplate' });

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
  /** Cloud API connections: the template sent instead of the message variants. */
  template: CampaignTemplate.nullable().optional(),
});

const hasAnyVariant = (c: Partial<Record<string, unknown>>) =>
  [1, 2, 3, 4, 5].some((i) => typeof c[`message${i}`] === 'string' && (c[`message${i}`] as string).trim());

export const CampaignInput = CampaignFields.refine((c) => Boolean(c.template) || hasAnyVariant(c), {
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
    /** Cloud API campaigns: the template and where each of its values comes from. */
    template: CampaignTemplateView.nullable(),
    /** Whether PUT is allowed now (docs/campaigns.md). */
    editable: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Campaign' });
export type Campaign = Wire<typeof Campaign>;

export const CampaignReport = Campaign.extend({ counts: CampaignCounts }).meta({ id: 'CampaignReport' });
export type CampaignReport = Wire<typeof CampaignReport>;

/** One recipient's send, as the report lists it (GET /campaigns/{id}/shippings). */
export const CampaignShipping = z
  .looseObject({
    id: z.number(),
    number: z.string(),
    name: z.string(),
    status: oneOf(SHIPPING_STATUSES),
    sentAt: Timestamp.nullable(),
    deliveredAt: Timestamp.nullable(),
    /** Meta's error code when the Cloud API refused or failed the message (131026, 131047…). */
    errorCode: z.number().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'CampaignShipping' });
export type CampaignShipping = Wire<typeof CampaignShipping>;

export const CampaignShippingQuery = z.object({
  /** 'failed': only the recipients whose send failed (the report's error list). */
  status: z.enum(['failed']).optional(),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});
export type CampaignShippingQuery = z.infer<typeof CampaignShippingQuery>;

/**
 * Meta's per-message error codes the report explains in words (others show Meta's own text).
 * 130429 / 131056 are rate limits: the engine slows down and retries instead of failing the recipient.
 */
export const CLOUD_API_ERROR_CODES = [
  131026, 131047, 131049, 131050, 131051, 131000, 130429, 131056,
] as const;
export const CLOUD_API_RATE_LIMIT_CODES: readonly number[] = [130429, 131056];

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

/** Whether a campaign may be edited at `now` (docs/campaigns.md). */
export function campaignEditable(
  c: { status: string; scheduledAt: string | Date | null },
  now: Date,
): boolean {
  if (c.status === 'INATIVA') return true;
  if (c.status !== 'PROGRAMADA' || !c.scheduledAt) return false;
  return new Date(c.scheduledAt).getTime() - now.getTime() > CAMPAIGN_EDIT_LOCK_MS;
}
