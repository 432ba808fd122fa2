import { sql } from 'drizzle-orm';
import {
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  uniqueIndex,
  index,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type { DaySchedule } from '@recado/contracts';
import { companies, timestamps } from './platform.js';
import { prompts } from './prompts.js';
import { queueIntegrations } from './queue-integrations.js';

/** Queues (departments): what the bot offers, who attends, and when. */
export const queues = pgTable(
  'queues',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    color: text('color').notNull(),
    orderQueue: integer('order_queue'),
    greetingMessage: text('greeting_message').notNull().default(''),
    outOfHoursMessage: text('out_of_hours_message').notNull().default(''),
    completionMessage: text('completion_message').notNull().default(''),
    schedules: jsonb('schedules').$type<DaySchedule[]>().notNull().default([]),
    /** Queue integration and AI prompt (deleting one leaves the queue without it). */
    integrationId: integer('integration_id').references((): AnyPgColumn => queueIntegrations.id, {
      onDelete: 'set null',
    }),
    promptId: integer('prompt_id').references((): AnyPgColumn => prompts.id, { onDelete: 'set null' }),
    /** #30 routing (docs/routing.md): who gets the waiting tickets, how many each, what the line is told. */
    assignmentPolicy: text('assignment_policy', { enum: ['manual', 'round_robin', 'least_busy'] })
      .notNull()
      .default('manual'),
    /** Open tickets per attendant in this queue; null: each user's own maxTickets. */
    capacity: integer('capacity'),
    waitingMessage: text('waiting_message').notNull().default(''),
    /** The line is told again when a ticket moved up this many places, at most every `interval` minutes. */
    waitingMessageStep: integer('waiting_message_step').notNull().default(1),
    waitingMessageInterval: integer('waiting_message_interval').notNull().default(5),
    /** Round robin's pointer: the attendant who got the last ticket. */
    rrLastUserId: integer('rr_last_user_id'),
    ...timestamps,
  },
  (t) => [
    // One colour per queue of a company, whatever its case (#aabbcc is #AABBCC).
    uniqueIndex('queues_company_color_ci_uq').on(t.companyId, sql`lower(${t.color})`),
    index('queues_company_idx').on(t.companyId),
  ],
);

/** The bot's option tree of a queue: roots have no parent; a parent takes its children when deleted. */
export const queueOptions = pgTable(
  'queue_options',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    queueId: integer('queue_id')
      .notNull()
      .references(() => queues.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id').references((): AnyPgColumn => queueOptions.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    message: text('message').notNull().default(''),
    /** What the customer types to choose it ("1", "2"...). */
    option: text('option').notNull(),
    /** Choosing it sets the ticket's priority (0 low … 3 urgent); null: left as it is. */
    priority: smallint('priority'),
    ...timestamps,
  },
  (t) => [
    // Two siblings with one key would make one of them unreachable from the bot's menu.
    uniqueIndex('queue_options_sibling_option_uq').on(
      t.queueId,
      sql`coalesce(${t.parentId}, 0)`,
      sql`lower(${t.option})`,
    ),
    index('queue_options_parent_idx').on(t.parentId),
    index('queue_options_company_idx').on(t.companyId),
  ],
);
