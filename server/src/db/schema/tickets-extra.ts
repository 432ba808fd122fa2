import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { companies, timestamps } from './platform.js';
import { contacts, tickets, whatsapps } from './messaging.js';
import { queues } from './queues.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const tags = pgTable(
  'tags',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    color: text('color').notNull().default('#5C59A0'),
    /** 1 when the tag is a kanban lane. */
    kanban: integer('kanban').notNull().default(0),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('tags_company_name_uq').on(t.companyId, sql`lower(${t.name})`)],
);

export const ticketTags = pgTable(
  'ticket_tags',
  {
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.tagId] }), index('ticket_tags_tag_idx').on(t.tagId)],
);

export const ticketNotes = pgTable(
  'ticket_notes',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    note: text('note').notNull(),
    ...timestamps,
  },
  (t) => [index('ticket_notes_ticket_idx').on(t.ticketId), index('ticket_notes_contact_idx').on(t.contactId)],
);

/** Every change of a ticket's owner, queue, connection or status (GET /ticket/{id}/histories). */
export const ticketHistories = pgTable(
  'ticket_histories',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    action: text('action').notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    status: text('status'),
    data: jsonb('data').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('ticket_histories_ticket_idx').on(t.ticketId, t.id)],
);

/** Where a ticket came from when it started from an ad or tracked link (ticketSourceTracking). */
export const ticketSourceTracking = pgTable(
  'ticket_source_tracking',
  {
    id: serial('id').primaryKey(),
    uuid: text('uuid')
      .notNull()
      .default(sql`gen_random_uuid()::text`),
    companyId: integer('company_id').notNull(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    campaign: text('campaign').notNull().default(''),
    source: text('source').notNull().default(''),
    medium: text('medium').notNull().default(''),
    metadata: jsonb('metadata')
      .$type<{ sourceUrl?: string } & Record<string, unknown>>()
      .notNull()
      .default({}),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('ticket_source_tracking_ticket_idx').on(t.ticketId),
    index('ticket_source_tracking_company_created_idx').on(t.companyId, t.createdAt),
  ],
);
