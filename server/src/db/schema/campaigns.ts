import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { CampaignTemplate } from '@recado/contracts';
import { companies, timestamps } from './platform.js';
import { contacts, whatsapps } from './messaging.js';
import { tags } from './tickets-extra.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A named list of people to reach with campaigns (not the company's contacts: numbers imported from sheets). */
export const contactLists = pgTable(
  'contact_lists',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    ...timestamps,
  },
  (t) => [index('contact_lists_company_name_idx').on(t.companyId, sql`lower(${t.name})`)],
);

export const contactListItems = pgTable(
  'contact_list_items',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    contactListId: integer('contact_list_id')
      .notNull()
      .references(() => contactLists.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Digits only, canonical like contacts.number. */
    number: text('number').notNull(),
    email: text('email').notNull().default(''),
    /** null = not checked yet; campaigns skip only items known to be invalid (false). */
    isWhatsappValid: boolean('is_whatsapp_valid'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('contact_list_items_list_number_uq').on(t.contactListId, t.number),
    index('contact_list_items_list_name_idx').on(t.contactListId, sql`lower(${t.name})`),
    index('contact_list_items_company_idx').on(t.companyId),
  ],
);

/** A file list: a message plus several files (options) that a campaign can send along. */
export const files = pgTable(
  'files',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    message: text('message').notNull().default(''),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [index('files_company_name_idx').on(t.companyId, sql`lower(${t.name})`)],
);

export const filesOptions = pgTable(
  'files_options',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    fileId: integer('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    name: text('name').notNull().default(''),
    /** Path of the stored file in the media store ('' until uploaded). */
    path: text('path').notNull().default(''),
    mediaType: text('media_type').notNull().default(''),
    /** The uploaded file's own name (shown to users; the campaign sends it as the document name). */
    fileName: text('file_name').notNull().default(''),
    ...timestamps,
  },
  (t) => [index('files_options_file_idx').on(t.fileId)],
);

/** messageInterval, longerIntervalAfter, greaterInterval, variables: one JSON value per key and company. */
export const campaignSettings = pgTable(
  'campaign_settings',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: jsonb('value').$type<unknown>(),
    ...timestamps,
  },
  (t) => [uniqueIndex('campaign_settings_company_key_uq').on(t.companyId, t.key)],
);

export const campaigns = pgTable(
  'campaigns',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    message1: text('message1').notNull().default(''),
    message2: text('message2').notNull().default(''),
    message3: text('message3').notNull().default(''),
    message4: text('message4').notNull().default(''),
    message5: text('message5').notNull().default(''),
    /** With confirmation on, each contact first gets a confirmation message; the variant follows their reply. */
    confirmation: boolean('confirmation').notNull().default(false),
    confirmationMessage1: text('confirmation_message1').notNull().default(''),
    confirmationMessage2: text('confirmation_message2').notNull().default(''),
    confirmationMessage3: text('confirmation_message3').notNull().default(''),
    confirmationMessage4: text('confirmation_message4').notNull().default(''),
    confirmationMessage5: text('confirmation_message5').notNull().default(''),
    /** INATIVA | PROGRAMADA | EM_ANDAMENTO | CANCELADA | FINALIZADA */
    status: text('status').notNull().default('INATIVA'),
    scheduledAt: ts('scheduled_at'),
    completedAt: ts('completed_at'),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    contactListId: integer('contact_list_id').references(() => contactLists.id, { onDelete: 'set null' }),
    tagId: integer('tag_id').references(() => tags.id, { onDelete: 'set null' }),
    fileListId: integer('file_list_id').references(() => files.id, { onDelete: 'set null' }),
    mediaPath: text('media_path'),
    mediaName: text('media_name'),
    /** Cloud API: the approved template sent instead of the variants, with each value's source (contracts). */
    template: jsonb('template').$type<CampaignTemplate>(),
    /**
     * The live send chain: each send job carries the token it was scheduled with and stops when it differs
     * (a restart starts a new chain; the jobs of the old one end on their own).
     */
    dispatchToken: text('dispatch_token'),
    ...timestamps,
  },
  (t) => [
    index('campaigns_company_idx').on(t.companyId, t.id.desc()),
    index('campaigns_status_idx').on(t.status, t.scheduledAt),
  ],
);

/**
 * One row per campaign and recipient number: the unique key is what makes "each contact gets one message"
 * a database guarantee. status: pending → claimed (before the channel is called) → sent → delivered,
 * or failed / invalid. With confirmation: pending → claimed → confirmation_sent → (reply) → sent → delivered.
 */
export const campaignShippings = pgTable(
  'campaign_shippings',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    contactListItemId: integer('contact_list_item_id').references(() => contactListItems.id, {
      onDelete: 'set null',
    }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    number: text('number').notNull(),
    name: text('name').notNull().default(''),
    email: text('email').notNull().default(''),
    status: text('status').notNull().default('pending'),
    /** The text actually sent (variant chosen, placeholders filled), fixed at claim time. */
    message: text('message').notNull().default(''),
    confirmationMessage: text('confirmation_message').notNull().default(''),
    confirmationRequestedAt: ts('confirmation_requested_at'),
    confirmedAt: ts('confirmed_at'),
    claimedAt: ts('claimed_at'),
    sentAt: ts('sent_at'),
    deliveredAt: ts('delivered_at'),
    /** messages.id of the campaign message once stored; its provider id is derived from this row's id. */
    messageId: bigint('message_id', { mode: 'number' }),
    /** The provider id of the send: chosen before the channel is called (deterministic), so a resend after a
     *  crash carries the same id and the channel drops it; replaced by the channel's id when it answers. */
    providerId: text('provider_id'),
    error: text('error'),
    /** The provider's error code when the send failed (Meta's 131026, 131047…). */
    errorCode: integer('error_code'),
    /** Times the provider answered "slow down" for this row (rate limits); it is sent again later. */
    rateLimited: integer('rate_limited').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('campaign_shippings_campaign_number_uq').on(t.campaignId, t.number),
    index('campaign_shippings_campaign_status_idx').on(t.campaignId, t.status, t.id),
    index('campaign_shippings_message_idx')
      .on(t.messageId)
      .where(sql`message_id is not null`),
    index('campaign_shippings_provider_idx')
      .on(t.providerId)
      .where(sql`provider_id is not null`),
    // An inbound reply looks up the shipping waiting for that number's confirmation.
    index('campaign_shippings_awaiting_confirmation_idx')
      .on(t.companyId, t.number)
      .where(sql`status = 'confirmation_sent'`),
  ],
);
