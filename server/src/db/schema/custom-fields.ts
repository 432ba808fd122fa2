import { boolean, integer, jsonb, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { CustomFieldEntity, CustomFieldType } from '@recado/contracts';
import { companies, timestamps } from './platform.js';

/**
 * Custom field definitions (#32.7, docs/productivity.md "Custom fields"); the values live in the
 * `custom_fields` jsonb column of contacts and tickets (GIN-indexed, migration 0049).
 */
export const customFieldDefinitions = pgTable(
  'custom_field_definitions',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    entity: text('entity').$type<CustomFieldEntity>().notNull(),
    key: text('key').notNull(),
    label: text('label').notNull(),
    type: text('type').$type<CustomFieldType>().notNull(),
    options: jsonb('options').$type<string[]>().notNull().default([]),
    required: boolean('required').notNull().default(false),
    order: integer('sort_order').notNull().default(0),
    ...timestamps,
  },
  (t) => [uniqueIndex('custom_field_definitions_key_uq').on(t.companyId, t.entity, t.key)],
);
