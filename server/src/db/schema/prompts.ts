import { index, integer, pgTable, real, serial, text } from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { queues } from './queues.js';

/** AI prompts (docs/automation.md): the instructions and settings an assistant uses in one queue. */
export const prompts = pgTable(
  'prompts',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prompt: text('prompt').notNull(),
    model: text('model').notNull(),
    maxTokens: integer('max_tokens').notNull(),
    temperature: real('temperature').notNull(),
    /** The provider's API key, sealed with secretBox (APP_SECRET); never answered in clear. */
    apiKeySealed: text('api_key_sealed').notNull(),
    /** The service checks that the queue belongs to the same company. */
    queueId: integer('queue_id')
      .notNull()
      .references(() => queues.id, { onDelete: 'cascade' }),
    maxMessages: integer('max_messages').notNull(),
    /** An OpenAI-compatible server's base URL ('' = OPENAI_BASE_URL); checked like every tenant URL. */
    baseUrl: text('base_url').notNull().default(''),
    ...timestamps,
  },
  (t) => [index('prompts_company_idx').on(t.companyId), index('prompts_queue_idx').on(t.queueId)],
);
