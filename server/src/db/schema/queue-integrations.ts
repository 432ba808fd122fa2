import { sql } from 'drizzle-orm';
import { index, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';

/**
 * Queue integrations (docs/automation.md): a Dialogflow agent, an n8n or plain webhook, or a Typebot flow that a
 * queue hands its conversations to. The Dialogflow service account (jsonContent) is sealed at rest.
 */
export const queueIntegrations = pgTable(
  'queue_integrations',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    name: text('name').notNull(),
    projectName: text('project_name').notNull().default(''),
    /** secretBox-sealed service-account JSON (Dialogflow); null when none. */
    jsonContentSealed: text('json_content_sealed'),
    /** The service account's e-mail, kept in clear so the screen can say which account is set. */
    clientEmail: text('client_email'),
    language: text('language').notNull().default(''),
    urlN8N: text('url_n8n').notNull().default(''),
    typebotSlug: text('typebot_slug').notNull().default(''),
    typebotExpires: integer('typebot_expires').notNull().default(1),
    typebotDelayMessage: integer('typebot_delay_message').notNull().default(1000),
    typebotKeywordFinish: text('typebot_keyword_finish').notNull().default(''),
    typebotKeywordRestart: text('typebot_keyword_restart').notNull().default(''),
    typebotUnknownMessage: text('typebot_unknown_message').notNull().default(''),
    typebotRestartMessage: text('typebot_restart_message').notNull().default(''),
    /** n8n / webhook: the secret their POSTs are signed with (secretBox-sealed; made on first use). */
    hookSecretSealed: text('hook_secret_sealed'),
    ...timestamps,
  },
  (t) => [index('queue_integrations_company_name_idx').on(t.companyId, sql`lower(${t.name})`)],
);
