import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #33.3 A connection's time away from CONNECTED: opened when it leaves CONNECTED, closed when it is back. The
 * messages recovered after it carry its id in `messages.data.recovery` (counted from there, so the count is
 * what was stored, whatever crashed in between).
 */
export const connectionOutages = pgTable(
  'connection_outages',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    startedAt: ts('started_at').notNull(),
    endedAt: ts('ended_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('connection_outages_whatsapp_idx').on(t.whatsappId, t.id),
    uniqueIndex('connection_outages_open_uq')
      .on(t.whatsappId)
      .where(sql`ended_at is null`),
  ],
);

/**
 * #33.3 What a Baileys session received and has not yet handed to the pipeline (WhatsApp was told it arrived:
 * it will not send it again). Written as soon as it arrives, deleted once stored; a process killed in between
 * leaves the rows for the next owner of the connection to store (docs/messaging.md, "Recovering the gap").
 */
export const baileysInbox = pgTable(
  'baileys_inbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    providerId: text('provider_id').notNull(),
    /** live | offline | history */
    source: text('source').notNull(),
    /** The WAMessage as BufferJSON text. */
    payload: text('payload').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('baileys_inbox_uq').on(t.whatsappId, t.providerId)],
);
