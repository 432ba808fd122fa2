import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { queues } from './queues.js';
import { prompts } from './prompts.js';
import { queueIntegrations } from './queue-integrations.js';
import { flows } from './flows.js';
import { closingReasons } from './closing.js';
import { users } from './users.js';
import type { TicketAutomationState } from '@recado/contracts';
import type { SlaState } from './sla.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A messaging connection ("whatsapp" in the spec's URLs): one channel session owned by one process at a time. */
export const whatsapps = pgTable(
  'whatsapps',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** baileys | cloud_api | simulator */
    channel: text('channel').notNull().default('baileys'),
    status: text('status').notNull().default('DISCONNECTED'),
    qrcode: text('qrcode').notNull().default(''),
    retries: integer('retries').notNull().default(0),
    /** The connection's own phone number, once known. */
    number: text('number').notNull().default(''),
    isDefault: boolean('is_default').notNull().default(false),
    greetingMessage: text('greeting_message').notNull().default(''),
    complationMessage: text('complation_message').notNull().default(''),
    outOfHoursMessage: text('out_of_hours_message').notNull().default(''),
    ratingMessage: text('rating_message').notNull().default(''),
    expiresInactiveMessage: text('expires_inactive_message').notNull().default(''),
    /** Legacy plain column of the spec's `token`: always '' now (the migration hashed what it held). */
    token: text('token').notNull().default(''),
    /** The external API token (docs/external-api.md): SHA-256 hex for the look-up, sealed copy for admins. */
    apiTokenHash: text('api_token_hash'),
    apiTokenSealed: text('api_token_sealed'),
    provider: text('provider').notNull().default('beta'),
    transferQueueId: integer('transfer_queue_id').references(() => queues.id, { onDelete: 'set null' }),
    timeToTransfer: integer('time_to_transfer'),
    promptId: integer('prompt_id').references((): AnyPgColumn => prompts.id, { onDelete: 'set null' }),
    integrationId: integer('integration_id').references((): AnyPgColumn => queueIntegrations.id, {
      onDelete: 'set null',
    }),
    /** The flow new conversations start in, in place of the queue menu (docs/flows.md#triggers). */
    flowId: integer('flow_id').references((): AnyPgColumn => flows.id, { onDelete: 'set null' }),
    expiresTicket: integer('expires_ticket').notNull().default(0),
    timeUseBotQueues: integer('time_use_bot_queues').notNull().default(0),
    maxUseBotQueues: integer('max_use_bot_queues').notNull().default(3),
    /** Minutes after which open chats without activity are closed (0 = never). */
    closeOpenChatsAfter: integer('close_open_chats_after').notNull().default(0),
    /** #33.5 Group messages: `ignore` (default) or `tickets` (one ticket per group). */
    groupMode: text('group_mode').notNull().default('ignore'),
    /** #33.4 Calls: `ring` (left alone) or `reject` (refused, `callRejectMessage` sent when set). */
    callMode: text('call_mode').notNull().default('ring'),
    callRejectMessage: text('call_reject_message').notNull().default(''),
    /** #33.4 A call from a customer without an open ticket opens one (else it is logged on an open one only). */
    callOpensTicket: boolean('call_opens_ticket').notNull().default(false),
    /** Channel settings (Cloud API ids, Graph base URL); secrets inside are encrypted with APP_SECRET. */
    channelConfig: jsonb('channel_config').$type<Record<string, unknown>>().notNull().default({}),
    /** Lease: which process runs this session, until when. */
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: ts('lease_expires_at'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('whatsapps_company_name_uq').on(t.companyId, sql`lower(${t.name})`),
    index('whatsapps_company_idx').on(t.companyId),
    uniqueIndex('whatsapps_api_token_uq').on(t.apiTokenHash),
    // At most one default connection per company.
    uniqueIndex('whatsapps_one_default_uq')
      .on(t.companyId)
      .where(sql`is_default`),
  ],
);

export const whatsappQueues = pgTable(
  'whatsapp_queues',
  {
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    queueId: integer('queue_id')
      .notNull()
      .references(() => queues.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.whatsappId, t.queueId] }),
    index('whatsapp_queues_queue_idx').on(t.queueId),
  ],
);

/** Channel session state (Baileys creds and signal keys), encrypted with APP_SECRET, one row per key. */
export const channelAuth = pgTable(
  'channel_auth',
  {
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.whatsappId, t.key] })],
);

export const contacts = pgTable(
  'contacts',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Digits only, canonical (Brazilian mobiles with the ninth digit); '' while only a hidden id (LID) is known. */
    number: text('number').notNull().default(''),
    /** WhatsApp's hidden identifier (Baileys 7), mapped to the number when WhatsApp provides it. */
    lid: text('lid'),
    email: text('email').notNull().default(''),
    profilePicUrl: text('profile_pic_url').notNull().default(''),
    profilePicFetchedAt: ts('profile_pic_fetched_at'),
    isGroup: boolean('is_group').notNull().default(false),
    /** The contact's owner attendant (carteira, docs/routing.md); null: nobody's. */
    ownerId: integer('owner_id').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
    /** #32.7 Custom field values by key (custom_field_definitions; GIN-indexed for the list filters). */
    customFields: jsonb('custom_fields')
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default({}),
    ...timestamps,
  },
  (t) => [
    index('contacts_company_owner_idx')
      .on(t.companyId, t.ownerId)
      .where(sql`owner_id is not null`),
    uniqueIndex('contacts_company_number_uq')
      .on(t.companyId, t.number)
      .where(sql`number <> ''`),
    uniqueIndex('contacts_company_lid_uq')
      .on(t.companyId, t.lid)
      .where(sql`lid is not null`),
    index('contacts_company_name_idx').on(t.companyId, sql`lower(${t.name})`),
    // Searches by any part of a name (accent- and case-blind: search_norm, docs/search.md) or number
    // (LIKE '%x%'), pg_trgm's GIN indexes.
    // A 64 kB pending list: each search reads all of it (migration 0067, docs/search.md).
    index('contacts_name_search_idx')
      .using('gin', sql`search_norm(${t.name}) gin_trgm_ops`)
      .with({ gin_pending_list_limit: 64 }),
    index('contacts_number_trgm_idx')
      .using('gin', t.number.op('gin_trgm_ops'))
      .with({ gin_pending_list_limit: 64 }),
  ],
);

export const contactCustomFields = pgTable(
  'contact_custom_fields',
  {
    id: serial('id').primaryKey(),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    value: text('value').notNull().default(''),
  },
  (t) => [index('contact_custom_fields_contact_idx').on(t.contactId)],
);

export const tickets = pgTable(
  'tickets',
  {
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().defaultRandom(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    status: text('status').notNull().default('pending'),
    lastMessage: text('last_message').notNull().default(''),
    lastMessageAt: ts('last_message_at'),
    unreadMessages: integer('unread_messages').notNull().default(0),
    isGroup: boolean('is_group').notNull().default(false),
    chatbot: boolean('chatbot').notNull().default(false),
    amountUsedBotQueues: integer('amount_used_bot_queues').notNull().default(0),
    queueOptionId: integer('queue_option_id'),
    useIntegration: boolean('use_integration').notNull().default(false),
    integrationId: integer('integration_id').references((): AnyPgColumn => queueIntegrations.id, {
      onDelete: 'set null',
    }),
    promptId: integer('prompt_id').references((): AnyPgColumn => prompts.id, { onDelete: 'set null' }),
    /** The automation's state shown in the lists and the chat (docs/automation.md): active, or failed. */
    automation: jsonb('automation').$type<TicketAutomationState>(),
    closedAt: ts('closed_at'),
    /** The first time a person took the ticket (status open with a user); kept through returns and reopens. */
    acceptedAt: ts('accepted_at'),
    /** The first message a person sent on the ticket (bot and automatic messages have no user). */
    firstResponseAt: ts('first_response_at'),
    /** 0 low, 1 normal, 2 high, 3 urgent (contracts' TICKET_PRIORITIES); the lists and the waiting line read it first. */
    priority: smallint('priority').notNull().default(1),
    /** #32.7 Custom field values by key (custom_field_definitions; GIN-indexed for the list filters). */
    customFields: jsonb('custom_fields')
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default({}),
    /**
     * Snooze (docs/routing.md): a ticket is snoozed while snoozed_at is set; it wakes at snoozed_until (null:
     * no time) or, with snooze_until_reply, when the customer writes, whichever comes first.
     */
    snoozedUntil: ts('snoozed_until'),
    snoozeUntilReply: boolean('snooze_until_reply').notNull().default(false),
    /** When the current snooze started (null: not snoozed) and who snoozed it. */
    snoozedAt: ts('snoozed_at'),
    snoozedBy: integer('snoozed_by').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
    /** #30.5 SLA due times (docs/metrics.md "SLA"): null while a clock is not running or has no target. */
    firstResponseDueAt: ts('first_response_due_at'),
    nextResponseDueAt: ts('next_response_due_at'),
    resolutionDueAt: ts('resolution_due_at'),
    /** When the running clock with the nearest due time has less than 25% of its target left (amber). */
    slaAtRiskAt: ts('sla_at_risk_at'),
    /** Kinds breached on this ticket: 'first_response' | 'next_response' | 'resolution'. */
    slaBreached: text('sla_breached')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The SLA listener's bookkeeping (clocks, pauses, policy): modules/sla/sla-state.ts. */
    slaState: jsonb('sla_state').$type<SlaState>(),
    /**
     * #32.4 The protocol number, unique in the company: the insert triggers of migration 0047 replace '' (the
     * default) with the company's next one by its pattern (docs/productivity.md "Protocol numbers").
     */
    protocol: text('protocol').notNull().default(''),
    /** #32.3 The reason and sale value of the last close (cleared when the ticket reopens). */
    closingReasonId: integer('closing_reason_id').references((): AnyPgColumn => closingReasons.id, {
      onDelete: 'set null',
    }),
    saleValue: numeric('sale_value', { precision: 14, scale: 2 }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('tickets_uuid_uq').on(t.uuid),
    // #32.4 Unique per company; text_pattern_ops so a prefix search (LIKE '2026%') reads the index too.
    uniqueIndex('tickets_company_protocol_uq')
      .on(t.companyId, t.protocol.op('text_pattern_ops'))
      .where(sql`protocol <> ''`),
    // One active ticket per contact and connection: a database guarantee, not a look-up (GUIDE §9).
    uniqueIndex('tickets_one_active_uq')
      .on(t.contactId, t.whatsappId)
      .where(sql`status <> 'closed'`),
    // The lists, highest priority first, then newest activity with the id as tie-breaker (ORDER BY ... DESC,
    // whose nulls come first), read in index order: a page costs its rows, not a sort of every ticket.
    index('tickets_company_status_prio_recent_idx').on(
      t.companyId,
      t.status,
      t.priority.desc().nullsFirst(),
      t.updatedAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('tickets_company_prio_recent_idx').on(
      t.companyId,
      t.priority.desc().nullsFirst(),
      t.updatedAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // "My open tickets": one user's tickets of one status.
    index('tickets_user_status_prio_recent_idx').on(
      t.userId,
      t.status,
      t.priority.desc().nullsFirst(),
      t.updatedAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // #31 Whether a company has any SLA clock at all (sla-service clocksRunning, migration 0068): a company
    // without policies nor clocks costs its customer messages no ticket read.
    index('tickets_company_sla_idx')
      .on(t.companyId)
      .where(sql`sla_state is not null`),
    // The "Adiados" tab: the few snoozed tickets of a company.
    index('tickets_company_snoozed_idx')
      .on(t.companyId, t.snoozedAt)
      .where(sql`snoozed_at is not null`),
    index('tickets_company_queue_idx').on(t.companyId, t.queueId),
    index('tickets_contact_idx').on(t.contactId),
    // The dashboard's periods (docs/metrics.md): each figure reads one company's range of one timestamp,
    // and the columns it needs ride in the index, so a 90-day figure is an index-only scan.
    index('tickets_company_created_idx').on(t.companyId, t.createdAt, t.queueId),
    index('tickets_company_closed_idx')
      .on(t.companyId, t.closedAt, t.status, t.userId, t.acceptedAt, t.createdAt, t.queueId, t.id)
      .where(sql`closed_at is not null`),
    index('tickets_company_accepted_idx')
      .on(t.companyId, t.acceptedAt, t.createdAt, t.queueId, t.id)
      .where(sql`accepted_at is not null`),
    index('tickets_company_first_response_idx')
      .on(t.companyId, t.firstResponseAt, t.createdAt, t.queueId, t.id)
      .where(sql`first_response_at is not null`),
  ],
);

export const messages = pgTable(
  'messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    /** The channel's message id; (connection, providerId) makes redelivery a no-op. */
    providerId: text('provider_id').notNull(),
    body: text('body').notNull().default(''),
    mediaType: text('media_type'),
    mediaUrl: text('media_url'),
    mediaName: text('media_name'),
    fromMe: boolean('from_me').notNull().default(false),
    ack: smallint('ack').notNull().default(0),
    read: boolean('read').notNull().default(false),
    isDeleted: boolean('is_deleted').notNull().default(false),
    isEdited: boolean('is_edited').notNull().default(false),
    quotedMsgId: bigint('quoted_msg_id', { mode: 'number' }),
    participant: text('participant'),
    userId: integer('user_id'),
    data: jsonb('data').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('messages_provider_uq').on(t.whatsappId, t.providerId),
    index('messages_ticket_created_idx').on(t.ticketId, t.createdAt.desc(), t.id.desc()),
    // The customer's last message on a connection: Cloud API's 24-hour window (docs/cloud-api.md).
    index('messages_contact_inbound_idx')
      .on(t.contactId, t.whatsappId, t.createdAt.desc())
      .where(sql`from_me = false`),
    // Ticket search inside message texts (body_search LIKE search_norm('%x%'), docs/search.md), pg_trgm's GIN
    // index on the stored normalised text. `body_search` is a generated column (search_norm(body), migration
    // 0067) left out of this model on purpose: no read of messages carries the text twice, no write names it.
    index('messages_body_search_idx')
      .using('gin', sql`body_search gin_trgm_ops`)
      .with({ gin_pending_list_limit: 64 }),
  ],
);

/** The simulator's phone: what each simulated customer's WhatsApp shows, both ways. */
export const simulatorMessages = pgTable(
  'simulator_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    number: text('number').notNull(),
    name: text('name').notNull().default(''),
    providerId: text('provider_id').notNull(),
    fromMe: boolean('from_me').notNull(),
    body: text('body').notNull().default(''),
    mediaType: text('media_type'),
    media: jsonb('media').$type<{ mimetype: string; filename: string; path: string }>(),
    ack: smallint('ack').notNull().default(1),
    /** Inbound only: handed to the company's pipeline (false until then, so nothing is lost on a crash). */
    delivered: boolean('delivered').notNull().default(false),
    isDeleted: boolean('is_deleted').notNull().default(false),
    /** Changed by its sender after it was sent: the phone shows "edited". */
    isEdited: boolean('is_edited').notNull().default(false),
    /** The message this one answers (a reply), by provider id: the phone shows it quoted. */
    quotedProviderId: text('quoted_provider_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('simulator_messages_provider_uq').on(t.whatsappId, t.providerId),
    index('simulator_messages_conversation_idx').on(t.whatsappId, t.number, t.id),
    // What the owner still has to hand to the pipeline, oldest first.
    index('simulator_messages_pending_idx')
      .on(t.whatsappId, t.id)
      .where(sql`not delivered and not from_me`),
  ],
);

/**
 * Inbound messages the pipeline could not store. Each failed attempt counts; after a few (the pipeline's
 * maxAttempts) the message is given up — kept here with its error for the company's admins — so the
 * customer's next messages are not held behind it.
 */
export const inboundFailures = pgTable(
  'inbound_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    providerId: text('provider_id').notNull(),
    /** The sender's number (or hidden id). */
    sender: text('sender').notNull().default(''),
    /** The start of the message's text, cleaned so that it can be stored. */
    preview: text('preview').notNull().default(''),
    attempts: integer('attempts').notNull().default(1),
    /** True once the pipeline gave the message up. */
    failed: boolean('failed').notNull().default(false),
    error: text('error').notNull().default(''),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('inbound_failures_provider_uq').on(t.whatsappId, t.providerId),
    index('inbound_failures_company_idx').on(t.companyId, t.whatsappId, t.id),
  ],
);
