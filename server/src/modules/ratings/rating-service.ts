import { and, eq, sql, type SQL } from 'drizzle-orm';
import {
  DEFAULT_RATING_MESSAGE,
  DEFAULT_RATING_THANKS,
  RATING_OPTIONS_TEXT,
  RATING_WAIT_MINUTES,
  parseRatingAnswer,
  rooms,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { messages, queues, ratingRequests, tickets, userRatings, whatsapps } from '../../db/schema/index.js';
import { recordTicketEvent } from '../timeline/record.js';
import type { Clock } from '../../lib/clock.js';
import { z } from 'zod';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import type { InboundMessage } from '../../messaging/channel.js';
import type { InboundResult } from '../../messaging/inbound-pipeline.js';
import type { ConnectionRef } from '../../messaging/session-manager.js';
import type { Events } from '../../realtime/events.js';
import type { MessageService } from '../messages/message-service.js';
import { toMessageView } from '../messages/message-queries.js';
import { readSetting } from '../settings/setting-service.js';
import { ticketQueries } from '../tickets/ticket-queries.js';

type TicketRow = typeof tickets.$inferSelect;

const EXPIRE_KIND = 'rating.expire';

/**
 * Ratings (docs/bot.md, setting `userRating`). Resolving a ticket with an attendant asks the customer for 1, 2
 * or 3; the ticket is closed at once and a rating request waits (at most one per customer and connection).
 * The inbound pipeline asks `take` first: a valid answer is stored against the closed ticket and its
 * attendant — never opening or reopening a ticket — and the completion message follows; any other message
 * ends the wait without a rating and goes on as a normal message. Without an answer the wait ends after
 * RATING_WAIT_MINUTES (a job; the deadline is also checked on arrival, so a late job changes nothing).
 */
export function ratingService(deps: {
  db: Db;
  events: Events;
  clock: Clock;
  jobs: JobQueue;
  messages: MessageService;
  log: { warn(o: object, m: string): void };
  waitMs?: number;
}) {
  const { db, clock, events } = deps;
  const waitMs = deps.waitMs ?? RATING_WAIT_MINUTES * 60_000;

  async function send(companyId: number, ticket: TicketRow, body: string, what: string) {
    try {
      await deps.messages.deliver(companyId, ticket, { body, userId: null });
      return true;
    } catch (err) {
      deps.log.warn({ err: (err as Error)?.message, ticketId: ticket.id }, `${what} not sent`);
      return false;
    }
  }

  /** Ends a wait that is still waiting; true when this call ended it. */
  async function end(ticketId: number, status: 'ignored' | 'expired') {
    const done = await db
      .update(ratingRequests)
      .set({ status, updatedAt: clock.now() })
      .where(and(eq(ratingRequests.ticketId, ticketId), eq(ratingRequests.status, 'waiting')))
      .returning({ ticketId: ratingRequests.ticketId });
    if (done.length) await deps.jobs.cancel(expireJob, String(ticketId));
    return done.length > 0;
  }

  /** The wait for an answer ends without a rating. */
  const expireJob = defineJob({
    kind: EXPIRE_KIND,
    payload: z.object({ ticketId: z.number().int() }),
    handler: async (job) => {
      // Idempotent: only a request still waiting (and really past its deadline) ends.
      await db
        .update(ratingRequests)
        .set({ status: 'expired', updatedAt: clock.now() })
        .where(
          and(
            eq(ratingRequests.ticketId, job.payload.ticketId),
            eq(ratingRequests.status, 'waiting'),
            sql`${ratingRequests.expiresAt} <= ${clock.now().toISOString()}::timestamptz`,
          ),
        );
    },
  });

  // A wait counts only while the customer has no other active conversation on the connection (an attendant
  // started a new one: the answer belongs to it). The rated ticket reopened by an attendant keeps the wait —
  // the customer still answers the question they were asked, and is thanked — until a person writes in it
  // after the question: from then on a "2" belongs to that conversation (docs/bot.md#rating).
  const noActiveTicket = sql.raw(`not exists (select 1 from tickets a where a.contact_id = r.contact_id
    and a.whatsapp_id = r.whatsapp_id and a.status <> 'closed'
    and (a.id <> r.ticket_id or exists (select 1 from messages mm where mm.ticket_id = a.id and mm.from_me
      and mm.user_id is not null and mm.created_at > r.updated_at)))`);

  /** The waiting request of the sender of `m` on this connection, if any. */
  async function waitingFor(ref: ConnectionRef, m: InboundMessage) {
    // #34 A customer of a channel without numbers is known by its identity (docs/channels.md "Identities").
    const who = m.identity
      ? sql`exists (select 1 from contact_identities i where i.contact_id = c.id and i.company_id = c.company_id
          and i.kind = ${m.identity.kind} and i.value = ${m.identity.value})`
      : m.from
        ? sql`c.number = ${m.from}`
        : sql`c.lid = ${m.lid ?? ''}`;
    const [r] = await executeRows<{ ticket_id: number; user_id: number | null; expires_at: string | Date }>(
      db,
      sql`select r.ticket_id, r.user_id, r.expires_at from rating_requests r
        join contacts c on c.id = r.contact_id and c.company_id = r.company_id
        where r.whatsapp_id = ${ref.id} and r.company_id = ${ref.companyId} and r.status = 'waiting' and ${who}
          and ${noActiveTicket}
        limit 1`,
    );
    return r;
  }

  return {
    /** Registered by app.ts. */
    jobs: { expire: expireJob },
    /**
     * Called when a ticket is resolved. Asks for the rating when the company rates attendants and the
     * ticket had one; true when it asked (the completion message then waits for the answer).
     */
    async request(companyId: number, ticket: TicketRow): Promise<boolean> {
      if (!ticket.whatsappId || !ticket.userId || ticket.isGroup) return false;
      if ((await readSetting(db, companyId, 'userRating')) !== 'enabled') return false;
      const [rated] = await db
        .select({ id: userRatings.id })
        .from(userRatings)
        .where(eq(userRatings.ticketId, ticket.id));
      if (rated) return false;
      const [w] = await db
        .select({ ratingMessage: whatsapps.ratingMessage })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, ticket.whatsappId), eq(whatsapps.companyId, companyId)));
      if (!w) return false;
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + waitMs);
      const whatsappId = ticket.whatsappId;
      await db.transaction(async (tx) => {
        // A newer resolution of the same customer replaces an older wait.
        await tx
          .update(ratingRequests)
          .set({ status: 'expired', updatedAt: now })
          .where(
            and(
              eq(ratingRequests.whatsappId, whatsappId),
              eq(ratingRequests.contactId, ticket.contactId),
              eq(ratingRequests.status, 'waiting'),
            ),
          );
        await tx
          .insert(ratingRequests)
          .values({
            ticketId: ticket.id,
            companyId,
            whatsappId,
            contactId: ticket.contactId,
            userId: ticket.userId,
            expiresAt,
          })
          .onConflictDoUpdate({
            target: ratingRequests.ticketId,
            set: { status: 'waiting', userId: ticket.userId, expiresAt, updatedAt: now },
          });
        await deps.jobs.schedule(
          expireJob,
          {
            key: String(ticket.id),
            runAt: expiresAt,
            companyId,
            payload: { ticketId: ticket.id },
          },
          tx,
        );
      });
      const body = `${w.ratingMessage.trim() || DEFAULT_RATING_MESSAGE}\n\n${RATING_OPTIONS_TEXT}`;
      if (await send(companyId, ticket, body, 'rating message')) return true;
      // The customer never saw the question: nothing to wait for.
      await end(ticket.id, 'expired');
      return false;
    },

    /**
     * The inbound pipeline's first look at a customer message: a rating answer to a waiting request is
     * stored here (against the closed ticket) and the result returned; anything else returns undefined and
     * goes on as usual (ending the wait without a rating when the customer had one).
     */
    async take(ref: ConnectionRef, m: InboundMessage): Promise<InboundResult | undefined> {
      if (m.kind !== 'message' || m.isGroup || m.fromMe || (!m.from && !m.lid && !m.identity?.value))
        return undefined;
      const waiting = await waitingFor(ref, m);
      if (!waiting) return undefined;
      const now = clock.now();
      const rate = m.media ? null : parseRatingAnswer(m.body);
      if (new Date(waiting.expires_at) <= now) {
        await end(waiting.ticket_id, 'expired');
        return undefined;
      }
      if (rate === null) {
        await end(waiting.ticket_id, 'ignored');
        return undefined;
      }
      const stored = await db.transaction(async (tx) => {
        const claimed = await tx
          .update(ratingRequests)
          .set({ status: 'rated', updatedAt: now })
          .where(and(eq(ratingRequests.ticketId, waiting.ticket_id), eq(ratingRequests.status, 'waiting')))
          .returning();
        if (!claimed.length) return undefined;
        const rated = await tx
          .insert(userRatings)
          .values({ companyId: ref.companyId, ticketId: waiting.ticket_id, userId: waiting.user_id, rate })
          .onConflictDoNothing()
          .returning({ id: userRatings.id });
        // #32.5 On the ticket's timeline, with the rating itself.
        if (rated.length)
          await recordTicketEvent(tx, {
            companyId: ref.companyId,
            ticketId: waiting.ticket_id,
            type: 'rated',
            actorKind: 'customer',
            data: { rate, userId: waiting.user_id },
          });
        const [ticket] = await tx.select().from(tickets).where(eq(tickets.id, waiting.ticket_id));
        // The answer joins the closed ticket's conversation; the ticket itself does not change.
        const [message] = await tx
          .insert(messages)
          .values({
            companyId: ref.companyId,
            ticketId: waiting.ticket_id,
            contactId: ticket!.contactId,
            whatsappId: ref.id,
            providerId: m.providerId,
            body: m.body,
            fromMe: false,
            ack: 0,
            read: true,
            data: { rating: rate },
            createdAt: m.timestamp,
          })
          .onConflictDoNothing()
          .returning();
        return { ticket: ticket!, message };
      });
      if (!stored) {
        // Taken meanwhile by a redelivery of this very message: a duplicate, not a new conversation.
        const [dup] = await db
          .select({ id: messages.id })
          .from(messages)
          .where(and(eq(messages.whatsappId, ref.id), eq(messages.providerId, m.providerId)));
        return dup ? { status: 'duplicate' } : undefined;
      }
      await deps.jobs.cancel(expireJob, String(waiting.ticket_id));
      const { ticket, message } = stored;
      if (message) {
        const view = await ticketQueries.byId(db, ref.companyId, ticket.id);
        events.toRoom(rooms.ticket(ref.companyId, ticket.id), ref.companyId, 'appMessage', {
          action: 'create',
          message: toMessageView(message, {
            contact: view ? { id: view.contact.id, name: view.contact.name } : null,
          }),
          ticket: view,
          contact: view?.contact,
        });
      }
      // The queue's completion message, else the connection's, else a plain thanks.
      const [q] = ticket.queueId
        ? await db
            .select({ text: queues.completionMessage })
            .from(queues)
            .where(and(eq(queues.id, ticket.queueId), eq(queues.companyId, ref.companyId)))
        : [];
      const [w] = await db
        .select({ text: whatsapps.complationMessage })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, ref.id), eq(whatsapps.companyId, ref.companyId)));
      const completion = q?.text.trim() || w?.text.trim() || DEFAULT_RATING_THANKS;
      await send(ref.companyId, ticket, completion, 'completion message');
      return { status: 'stored', messageId: message?.id, ticketId: ticket.id };
    },

    /**
     * The senders with a waiting request on a connection, as a condition on the pipeline's input row
     * (`input.number`, `input.lid`): checked inside its batch statement, which leaves them to take().
     */
    held(whatsappId: SQL, companyId: SQL): SQL {
      return sql`exists (select 1 from rating_requests r
          join contacts c on c.id = r.contact_id and c.company_id = r.company_id
          where r.whatsapp_id = ${whatsappId} and r.company_id = ${companyId} and r.status = 'waiting'
            and ${noActiveTicket}
            and ((input.number <> '' and c.number = input.number) or (input.lid is not null and c.lid = input.lid)))`;
    },

    /** A ticket's rating, for the ticket's readers (null while none). */
    async ofTicket(companyId: number, ticketId: number) {
      const [r] = await db
        .select()
        .from(userRatings)
        .where(and(eq(userRatings.ticketId, ticketId), eq(userRatings.companyId, companyId)));
      return r
        ? {
            id: r.id,
            ticketId: r.ticketId,
            userId: r.userId,
            rate: r.rate,
            createdAt: r.createdAt.toISOString(),
          }
        : null;
    },
  };
}
export type RatingService = ReturnType<typeof ratingService>;
