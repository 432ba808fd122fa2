import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { DaySchedule } from '@recado/contracts';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
};
export { timestamps };

export const plans = pgTable('plans', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  users: integer('users').notNull().default(1),
  connections: integer('connections').notNull().default(1),
  queues: integer('queues').notNull().default(1),
  value: numeric('value', { precision: 12, scale: 2, mode: 'number' }).notNull().default(0),
  useCampaigns: boolean('use_campaigns').notNull().default(true),
  useKanban: boolean('use_kanban').notNull().default(true),
  useOpenAi: boolean('use_open_ai').notNull().default(true),
  useIntegrations: boolean('use_integrations').notNull().default(true),
  useSchedules: boolean('use_schedules').notNull().default(true),
  useInternalChat: boolean('use_internal_chat').notNull().default(true),
  useExternalApi: boolean('use_external_api').notNull().default(true),
  useFlows: boolean('use_flows').notNull().default(true),
  /** Offered on the signup page (the platform's own plan is not). */
  isPublic: boolean('is_public').notNull().default(true),
  ...timestamps,
});

export const companies = pgTable(
  'companies',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull().default(''),
    phone: text('phone').notNull().default(''),
    document: text('document').notNull().default(''),
    planId: integer('plan_id')
      .notNull()
      .references(() => plans.id),
    status: boolean('status').notNull().default(true),
    dueDate: date('due_date', { mode: 'string' }),
    recurrence: text('recurrence').notNull().default('MENSAL'),
    trialPeriod: boolean('trial_period').notNull().default(false),
    billingName: text('billing_name').notNull().default(''),
    addressZipCode: text('address_zip_code').notNull().default(''),
    addressStreet: text('address_street').notNull().default(''),
    addressState: text('address_state').notNull().default(''),
    addressCity: text('address_city').notNull().default(''),
    addressDistrict: text('address_district').notNull().default(''),
    schedules: jsonb('schedules').$type<DaySchedule[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [uniqueIndex('companies_name_lower_uq').on(sql`lower(${t.name})`)],
);

/** Platform help videos, shown to every company. */
export const helps = pgTable('helps', {
  id: serial('id').primaryKey(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  video: text('video').notNull().default(''),
  ...timestamps,
});

export const settings = pgTable(
  'settings',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.companyId, t.key] })],
);
