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
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** An outgoing webhook of a company (docs/webhooks.md): where to POST which events, signed with a secret. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull().default(''),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull().default([]),
    /** HMAC secret sealed with APP_SECRET (secretBox). */
    secretSealed: text('secret_sealed').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** First failure of the current run of failures (null once a delivery succeeds). */
    failingSince: ts('failing_since'),
    /** Why it was switched off automatically (empty when enabled or disabled by hand). */
    disabledReason: text('disabled_reason').notNull().default(''),
    ...timestamps,
  },
  (t) => [index('webhooks_company_idx').on(t.companyId)],
);

/** One event for one webhook: its body and how its delivery went (the delivery log). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    /** The JSON body, exactly as signed and sent. */
    body: text('body').notNull(),
    /** pending | delivered | failed */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: smallint('last_status_code'),
    lastError: text('last_error').notNull().default(''),
    lastAttemptAt: ts('last_attempt_at'),
    nextAttemptAt: ts('next_attempt_at'),
    deliveredAt: ts('delivered_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** The event's number in its company (the body's `sequence`); null on rows older than the column. */
    sequence: bigint('sequence', { mode: 'number' }),
    /**
     * Its order lane (`contact:<id>`): a subscription's pending deliveries of one lane go one at a time, by
     * sequence. Null: on its own (no contact, a re-send, or it stepped aside after failing too long).
     */
    lane: text('lane'),
    /** The outbox event it came from (docs/events.md "The outbox"): a re-dispatch queues no second delivery. */
    outboxId: uuid('outbox_id'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_outbox_uq')
      .on(t.webhookId, t.outboxId, t.event)
      .where(sql`outbox_id is not null`),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.id),
    index('webhook_deliveries_lane_idx')
      .on(t.webhookId, t.lane, t.sequence)
      .where(sql`status = 'pending' and lane is not null`),
  ],
);

/** The last event number given in each company (webhook payloads' `sequence`, docs/webhooks.md#order). */
export const webhookSequences = pgTable('webhook_sequences', {
  companyId: integer('company_id')
    .primaryKey()
    .references(() => companies.id, { onDelete: 'cascade' }),
  last: bigint('last', { mode: 'number' }).notNull().default(0),
});

/** Idempotency of the external send API: one answer per (connection, externalKey). */
export const apiSendKeys = pgTable(
  'api_send_keys',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    externalKey: text('external_key').notNull(),
    /**
     * The answer so far, written in the transaction of each message the call stores (the row itself comes
     * with the first one): `messageIds` holds every stored message, complete once it has `parts` of them.
     */
    answer: jsonb('answer').$type<Record<string, unknown>>(),
    /** How many messages the call sends (its files, or one text). */
    parts: integer('parts').notNull().default(1),
    /** Who sends the remaining parts: a call that takes a stale claim over sets its own. */
    claimToken: text('claim_token').notNull().default(''),
    /** The last progress: an incomplete claim idle for a minute is taken over by the next call with its key. */
    updatedAt: ts('updated_at').notNull().defaultNow(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('api_send_keys_uq').on(t.whatsappId, t.externalKey)],
);
