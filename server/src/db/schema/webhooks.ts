import {
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
  },
  (t) => [index('webhook_deliveries_webhook_idx').on(t.webhookId, t.id)],
);

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
    /** The first call's answer; null while it is being sent. */
    answer: jsonb('answer').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('api_send_keys_uq').on(t.whatsappId, t.externalKey)],
);
