import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { contacts } from './messaging.js';

/**
 * #34 A contact's identity on a channel without phone numbers: `kind` 'telegram' | 'instagram' | 'messenger' |
 * 'webchat' | 'email', `value` the provider's id (Telegram chat id, page-scoped id, visitor id, address). One
 * contact per (company, kind, value) (docs/channels.md "Identities").
 */
export const contactIdentities = pgTable(
  'contact_identities',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    value: text('value').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contact_identities_company_kind_value_uq').on(t.companyId, t.kind, t.value),
    index('contact_identities_contact_idx').on(t.contactId),
  ],
);
