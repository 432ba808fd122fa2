import type { InteractiveSend, TemplateSend } from '../../messaging/channel.js';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { messages, whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** What the owner of a connection needs to send a stored outbound message (see outbound-sender.ts). */
export interface OutboundJob {
  /** The customer's address on the channel. */
  to: string;
  body: string;
  /** A file already in the media store. */
  file?: { path: string; mimetype: string; filename: string; asVoice?: boolean };
  quotedProviderId?: string;
  /** #32.9 A forwarded message: the channel marks it so where it can. */
  forwarded?: boolean;
  /** A Cloud API message template (Graph's `template` object); `body` is then its rendered text. */
  template?: TemplateSend;
  /** Reply buttons or a list (Cloud API); `body` is the same choice as numbered text for other channels. */
  interactive?: InteractiveSend;
  /**
   * #33.7 A reaction of the company to the row's message (not a message of its own): `emoji` '' removes it.
   * The message reacted to keeps its provider id and ack; the outcome lands in its `data.myReaction`.
   */
  reaction?: { emoji: string; targetProviderId: string; targetFromMe: boolean };
  /** #34 Instagram/Messenger: Meta's message tag, decided when the message was stored (the window then). */
  messageTag?: 'HUMAN_AGENT';
}

/**
 * The outbox: outbound messages stored but not yet handed to their connection's channel. The process that
 * owns the connection's lease claims a row (pending → sending, conditionally, so it is sent once) and
 * deletes it once the channel answered; the message row itself says how it went.
 */
export const outboundQueue = pgTable(
  'outbound_queue',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    messageId: bigint('message_id', { mode: 'number' })
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    companyId: integer('company_id').notNull(),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    /** pending | sending */
    status: text('status').notNull().default('pending'),
    claimedBy: text('claimed_by'),
    claimedAt: ts('claimed_at'),
    job: jsonb('job').$type<OutboundJob>().notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    // Reactions (#33.7) wait beside their message's own send, several in order: only sends are one a message.
    uniqueIndex('outbound_queue_message_uq')
      .on(t.messageId)
      .where(sql`not (job ? 'reaction')`),
    index('outbound_queue_message_idx').on(t.messageId),
    index('outbound_queue_pending_idx')
      .on(t.whatsappId, t.id)
      .where(sql`status = 'pending'`),
  ],
);
