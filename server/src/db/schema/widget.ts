import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { whatsapps } from './messaging.js';
import { companies } from './platform.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #34.1 A visitor of a website chat widget (docs/channels.md "Website chat"): `id` is the public visitor id
 * (the contact's 'webchat' identity value), `tokenHash` the SHA-256 of the token its browser keeps.
 */
export const widgetVisitors = pgTable(
  'widget_visitors',
  {
    id: text('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    name: text('name').notNull().default(''),
    email: text('email').notNull().default(''),
    phone: text('phone').notNull().default(''),
    consentAt: ts('consent_at'),
    /** Came through the offline form: the agents' replies go by e-mail. */
    offline: boolean('offline').notNull().default(false),
    pageUrl: text('page_url').notNull().default(''),
    language: text('language').notNull().default(''),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('widget_visitors_token_uq').on(t.tokenHash),
    index('widget_visitors_whatsapp_idx').on(t.whatsappId),
  ],
);

export interface WidgetMedia {
  path: string;
  mimetype: string;
  filename: string;
  size: number;
}

/** #34.1 The widget's conversation: the visitor's messages (stored before delivery) and the agents' replies. */
export const widgetMessages = pgTable(
  'widget_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    visitorId: text('visitor_id')
      .notNull()
      .references(() => widgetVisitors.id, { onDelete: 'cascade' }),
    companyId: integer('company_id').notNull(),
    whatsappId: integer('whatsapp_id').notNull(),
    providerId: text('provider_id').notNull(),
    fromVisitor: boolean('from_visitor').notNull(),
    body: text('body').notNull().default(''),
    media: jsonb('media').$type<WidgetMedia>(),
    /** A visitor's message the channel handed to the pipeline. */
    delivered: boolean('delivered').notNull().default(false),
    /** Read by the other side (the agent for the visitor's messages, the visitor for the agent's). */
    readAt: ts('read_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('widget_messages_provider_uq').on(t.visitorId, t.providerId),
    index('widget_messages_visitor_idx').on(t.visitorId, t.createdAt),
    index('widget_messages_undelivered_idx')
      .on(t.whatsappId)
      .where(sql`${t.fromVisitor} and not ${t.delivered}`),
  ],
);
