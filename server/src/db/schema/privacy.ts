import { boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';

/**
 * #35 A company's privacy policy (docs/privacy.md): consent before the first human reply, the opt-out word,
 * and retention. Migration 0057 also adds `contacts.consent_status`, `consent_at`, `erased_at` and
 * `tickets.anonymized_at`, read with SQL by the privacy module only. Not re-exported from ./index.ts: the
 * privacy module imports it from here.
 */
export const privacySettings = pgTable('privacy_settings', {
  companyId: integer('company_id')
    .primaryKey()
    .references(() => companies.id, { onDelete: 'cascade' }),
  consentRequired: boolean('consent_required').notNull().default(false),
  consentText: text('consent_text').notNull().default(''),
  optOutWord: text('opt_out_word').notNull().default('SAIR'),
  mediaRetentionDays: integer('media_retention_days'),
  ticketRetentionMonths: integer('ticket_retention_months'),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
