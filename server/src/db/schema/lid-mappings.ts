import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #33.6 What a connection learnt about WhatsApp's hidden ids: the LID (`<digits>@lid`) and the phone number
 * (canonical digits) behind it, from any event that revealed both (docs/messaging.md "LID numbers").
 */
export const lidMappings = pgTable(
  'lid_mappings',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    lid: text('lid').notNull(),
    number: text('number').notNull(),
    /** Which event told it: message, contacts, lid-mapping, chats, history. */
    source: text('source').notNull().default(''),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('lid_mappings_connection_lid_uq').on(t.whatsappId, t.lid),
    index('lid_mappings_company_number_idx').on(t.companyId, t.number),
  ],
);
