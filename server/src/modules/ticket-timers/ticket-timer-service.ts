import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { executeRows, rowOf } from '../../db/rows.js';
import { tickets } from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { defineJob, noPayload } from '../../jobs/job-queue.js';
import type { MessageService } from '../messages/message-service.js';
import { readSetting } from '../settings/setting-service.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import { customerTexts } from '../customer-messages/customer-texts.js';
import type { EmitTicket } from '../tickets/ticket-service.js';

type TicketRow = typeof tickets.$inferSelect;

/** How often the sweep looks for due tickets (clock time). */
export const TICKET_TIMER_SWEEP_MS = 30_000;
/** Tickets acted on per statement; a sweep repeats until fewer are due. */
const BATCH = 200;
const MAX_ROUNDS = 50;

/**
 * The connection timers of docs/jobs.md, as one recurring sweep job:
 * - `expiresTicket` (minutes, 0 = off): an open ticket without activity (`updated_at`) for that long is
 *   closed, and the customer gets `expiresInactiveMessage` when the connection has one;
 * - `timeToTransfer` (minutes) with `transferQueueId`: a pending ticket nobody took, waiting that long since
 *   its last change (its latest history entry, or its creation), moves to that queue and stays pending.
 *
 * The state lives in the tickets table, so a restart loses nothing and a late sweep still acts. Each action
 * is one statement whose WHERE re-checks the ticket's state (status, user, queue, time) while it updates
 * and writes its history entry, so two processes, a retried job or an attendant acting at the same moment
 * can never make a timer fire twice. Messages and events follow the commit.
 */
export function ticketTimerService(deps: {
  db: Db;
  clock: Clock;
  messages: MessageService;
  emitTicket: EmitTicket;
  log: { warn(o: object, m: string): void };
}) {
  const { db, clock } = deps;

  async function send(companyId: number, ticket: TicketRow, body: string, what: string) {
    if (!body.trim() || ticket.isGroup) return;
    try {
      await deps.messages.deliver(companyId, ticket, { body, userId: null });
    } catch (err) {
      deps.log.warn({ err: (err as Error)?.message, ticketId: ticket.id }, `${what} not sent`);
    }
  }

  /** The change, to the rooms that list the ticket now and those that listed it before. */
  async function announce(
    companyId: number,
    ticketId: number,
    previous: { queueId: number | null; userId: number | null; status: string },
    action: 'close' | 'transfer',
  ) {
    const view = await ticketQueries.byId(db, companyId, ticketId);
    if (view) deps.emitTicket(companyId, view, { actor: 'timer', action, before: previous });
  }

  /** Closes the due inactive open tickets; returns how many. */
  async function expireRound(now: Date): Promise<number> {
    const at = sql`${now.toISOString()}::timestamptz`;
    const rows = await executeRows<{ ticket: Record<string, unknown>; message: string }>(
      db,
      sql`with due as (
          select t.id from whatsapps w
          join tickets t on t.company_id = w.company_id and t.status = 'open' and t.whatsapp_id = w.id
            and t.updated_at <= ${at} - w.expires_ticket * interval '1 minute'
          where w.expires_ticket > 0
          limit ${BATCH}),
        closed as (
          update tickets t set status = 'closed', closed_at = ${at}, updated_at = ${at}, chatbot = false,
            use_integration = false, integration_id = null, prompt_id = null
          from due, whatsapps w
          where t.id = due.id and w.id = t.whatsapp_id and w.company_id = t.company_id
            and t.status = 'open' and w.expires_ticket > 0
            and t.updated_at <= ${at} - w.expires_ticket * interval '1 minute'
          returning t.*, w.expires_inactive_message as message),
        h as (
          insert into ticket_histories (company_id, ticket_id, action, user_id, queue_id, whatsapp_id, status, data)
          select company_id, id, 'close', null, queue_id, whatsapp_id, status,
            jsonb_build_object('by', 'expiry', 'from', jsonb_build_object('status', 'open', 'userId', user_id))
          from closed)
      select row_to_json(closed) as ticket, closed.message from closed`,
    );
    for (const r of rows) {
      const ticket = rowOf(tickets, r.ticket);
      await announce(
        ticket.companyId,
        ticket.id,
        { queueId: ticket.queueId, userId: ticket.userId, status: 'open' },
        'close',
      );
      await send(ticket.companyId, ticket, r.message, 'expiry message');
    }
    return rows.length;
  }

  /** Moves the due unattended pending tickets to their connection's transfer queue; returns how many. */
  async function transferRound(now: Date): Promise<number> {
    const at = sql`${now.toISOString()}::timestamptz`;
    // Waiting since its last change of hands (history), or since it was created.
    const since = sql.raw(`coalesce((select h.created_at from ticket_histories h where h.ticket_id = t.id
      order by h.id desc limit 1), t.created_at)`);
    const rows = await executeRows<{ ticket: Record<string, unknown>; from_queue: number | null }>(
      db,
      sql`with due as (
          select t.id, t.queue_id as from_queue from whatsapps w
          join queues q on q.id = w.transfer_queue_id and q.company_id = w.company_id
          join tickets t on t.company_id = w.company_id and t.status = 'pending' and t.whatsapp_id = w.id
            and t.user_id is null and t.queue_id is distinct from w.transfer_queue_id
          where w.time_to_transfer > 0
            and ${since} <= ${at} - w.time_to_transfer * interval '1 minute'
          limit ${BATCH}),
        moved as (
          update tickets t set queue_id = w.transfer_queue_id, updated_at = ${at}
          from due, whatsapps w
          where t.id = due.id and w.id = t.whatsapp_id and w.company_id = t.company_id
            and t.status = 'pending' and t.user_id is null
            and t.queue_id is not distinct from due.from_queue and w.transfer_queue_id is not null
            and w.time_to_transfer > 0
          returning t.*, due.from_queue),
        h as (
          insert into ticket_histories (company_id, ticket_id, action, user_id, queue_id, whatsapp_id, status, data)
          select company_id, id, 'transfer', null, queue_id, whatsapp_id, status,
            jsonb_build_object('by', 'timer', 'from', jsonb_build_object('status', 'pending', 'queueId', from_queue))
          from moved)
      select row_to_json(moved) as ticket, moved.from_queue from moved`,
    );
    for (const r of rows) {
      const ticket = rowOf(tickets, r.ticket);
      await announce(
        ticket.companyId,
        ticket.id,
        { queueId: r.from_queue, userId: null, status: 'pending' },
        'transfer',
      );
      if ((await readSetting(db, ticket.companyId, 'sendMsgTransfTicket')) === 'enabled') {
        const [q] = await executeRows<{ name: string }>(
          db,
          sql`select name from queues where id = ${ticket.queueId} and company_id = ${ticket.companyId}`,
        );
        if (q) await send(ticket.companyId, ticket, customerTexts.transferNotice(q.name), 'transfer message');
      }
    }
    return rows.length;
  }

  /** One sweep: every due expiry and transfer, in rounds of BATCH. */
  async function sweep(): Promise<{ expired: number; transferred: number }> {
    let expired = 0;
    let transferred = 0;
    for (let i = 0; i < MAX_ROUNDS; i++) {
      const n = await expireRound(clock.now());
      expired += n;
      if (n < BATCH) break;
    }
    for (let i = 0; i < MAX_ROUNDS; i++) {
      const n = await transferRound(clock.now());
      transferred += n;
      if (n < BATCH) break;
    }
    return { expired, transferred };
  }

  /** The sweep, every TICKET_TIMER_SWEEP_MS (registered by app.ts). */
  const sweepJob = defineJob({
    kind: 'ticket-timers.sweep',
    payload: noPayload,
    handler: async () => {
      await sweep();
    },
    options: { every: TICKET_TIMER_SWEEP_MS },
  });

  return { sweep, jobs: { sweep: sweepJob } };
}
export type TicketTimerService = ReturnType<typeof ticketTimerService>;
