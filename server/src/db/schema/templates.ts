import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** One component of a WhatsApp message template as Graph describes it (HEADER, BODY, FOOTER, BUTTONS). */
export interface TemplateComponent {
  type: string;
  format?: string;
  text?: string;
  buttons?: { type: string; text?: string; url?: string; phone_number?: string }[];
  example?: unknown;
}

/**
 * A Cloud API connection's message templates, synced from Meta (GET /{WABA-ID}/message_templates).
 * (connection, name, language) is Meta's own identity of a template; a sync replaces the set.
 */
export const messageTemplates = pgTable(
  'message_templates',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    metaId: text('meta_id'),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').notNull().default(''),
    /** APPROVED, PENDING, REJECTED, PAUSED, DISABLED… as Meta says it. Only APPROVED can be sent. */
    status: text('status').notNull(),
    components: jsonb('components').$type<TemplateComponent[]>().notNull().default([]),
    syncedAt: ts('synced_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('message_templates_uq').on(t.whatsappId, t.name, t.language),
    index('message_templates_company_idx').on(t.companyId, t.whatsappId),
  ],
);
