import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { tickets, whatsapps } from './messaging.js';
import { queueOptions, queues } from './queues.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The automatic attendant's conversation with one ticket, kept in the database so that a restart (or
 * another process taking the connection over) continues where the customer was.
 */
export const ticketBotStates = pgTable(
  'ticket_bot_states',
  {
    ticketId: integer('ticket_id')
      .primaryKey()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    /** The queue whose option tree the customer walks; null = the list of queues. */
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    /** The option the customer stands on; null = the queue's first level. */
    optionId: integer('option_id').references(() => queueOptions.id, { onDelete: 'set null' }),
    /** Answers that matched nothing: at maxUseBotQueues the bot ends. */
    invalidAnswers: integer('invalid_answers').notNull().default(0),
    /** Every answer handled: a hard cap ends even an endless walk back and forth. */
    answers: integer('answers').notNull().default(0),
    /** When the first menu went out (business clock); null while the bot has not started. */
    startedAt: ts('started_at'),
    endedAt: ts('ended_at'),
    /** queue | option | rounds | time | closed | handled | human | steps | no-queues */
    endReason: text('end_reason'),
    /** The newest inbound message handled: a message is handled once, whoever calls twice. */
    lastMessageId: bigint('last_message_id', { mode: 'number' }).notNull().default(0),
    /** The last menu sent: an answer stored before it was not an answer to it. */
    promptMessageId: bigint('prompt_message_id', { mode: 'number' }).notNull().default(0),
    /** History entries up to this id existed when the bot started; a later one by a person ends the bot. */
    sinceHistoryId: integer('since_history_id').notNull().default(0),
    /** The closed period whose out-of-hours message this ticket already received. */
    outOfHoursKey: text('out_of_hours_key'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('ticket_bot_states_company_idx').on(t.companyId)],
);
