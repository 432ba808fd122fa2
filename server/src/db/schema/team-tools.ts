import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { contacts, tickets, whatsapps } from './messaging.js';
import { users } from './users.js';

/** A schedule's Cloud API template: what `TemplateSendInput` (contracts) parses to. */
export interface ScheduleTemplate {
  name: string;
  language: string;
  variables: string[];
  headerVariables: string[];
  headerMediaUrl?: string;
}

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Quick messages: shortcodes offered after "/" in the message input (personal or company-wide). */
export const quickMessages = pgTable(
  'quick_messages',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    shortcode: text('shortcode').notNull(),
    message: text('message').notNull(),
    /** Seen by every user of the company ("allow view"); else only by its owner. */
    geral: boolean('geral').notNull().default(false),
    /** A company-wide entry every user may change ("allow edit"). */
    allowEdit: boolean('allow_edit').notNull().default(false),
    /** Inactive entries are not offered as suggestions. */
    status: boolean('status').notNull().default(true),
    /** Media store path (DATA_DIR/media/{companyId}/quick-messages/...). */
    mediaPath: text('media_path'),
    mediaName: text('media_name'),
    ...timestamps,
  },
  (t) => [
    index('quick_messages_company_shortcode_idx').on(t.companyId, sql`lower(${t.shortcode})`),
    index('quick_messages_user_idx').on(t.userId),
  ],
);

/** Scheduled messages: sent at sendAt by a durable job keyed `schedule:{id}`. */
export const schedules = pgTable(
  'schedules',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    /** The ticket it was scheduled from. */
    ticketId: integer('ticket_id').references(() => tickets.id, { onDelete: 'set null' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    sendAt: ts('send_at').notNull(),
    sentAt: ts('sent_at'),
    /** PENDENTE, AGENDADA (claimed by the sender), ENVIADA, ERRO. */
    status: text('status').notNull().default('PENDENTE'),
    /** When the sender claimed it (AGENDADA). */
    claimedAt: ts('claimed_at'),
    error: text('error'),
    /** The ticket the message went out on. */
    sentTicketId: integer('sent_ticket_id').references(() => tickets.id, { onDelete: 'set null' }),
    mediaPath: text('media_path'),
    mediaName: text('media_name'),
    /** Cloud API: the template sent instead of free text (docs/cloud-api.md). */
    template: jsonb('template').$type<ScheduleTemplate>(),
    ...timestamps,
  },
  (t) => [
    index('schedules_company_send_at_idx').on(t.companyId, t.sendAt, t.id),
    index('schedules_contact_idx').on(t.contactId),
  ],
);
