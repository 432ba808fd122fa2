import { index, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import type { MacroAction } from '@recado/contracts';
import { companies, timestamps } from './platform.js';
import { users } from './users.js';

/** #32.1 Macros (docs/productivity.md "Macros"): a named list of actions, personal or company-wide. */
export const macros = pgTable(
  'macros',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    /** The owner; a personal macro is seen and run by this user only. */
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    /** 'personal' | 'company'. */
    visibility: text('visibility').notNull().default('personal'),
    actions: jsonb('actions').$type<MacroAction[]>().notNull(),
    ...timestamps,
  },
  (t) => [index('macros_company_idx').on(t.companyId, t.visibility, t.userId)],
);
