import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { TicketSnooze, TicketView } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { contacts, ticketHistories, tickets, users } from '../../db/schema/index.js';
import type { DomainBus, DomainEvents } from '../../events/domain-events.js';
import type { OutboxBus } from '../../events/outbox.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import type { Events } from '../../realtime/events.js';
import { ticketQueries, visibleTicketRow } from '../tickets/ticket-queries.js';
import type { EmitTicket } from '../tickets/ticket-service.js';

type TicketRow = typeof tickets.$inferSelect;
export type WakeReason = 'time' | 'reply' | 'manual';

/** What the woken ticket's push says, in the attendant's language (pt the fallback). */
const WAKE_TEXTS = {
  pt: { title: 'Atendimento de volta', reply: 'O cliente respondeu', time: 'O adiamento terminou' },
  en: { title: 'Ticket is back', reply: 'The customer replied', time: 'The snooze ended' },
  es: { title: 'Atención de vuelta', reply: 'El cliente respondió', time: 'El aplazamiento terminó' },
} as const;
const wakeTexts = (language: string | null | undefined) =>
  WAKE_TEXTS[(language ?? 'pt') as keyof typeof WAKE_TEXTS] ?? WAKE_TEXTS.pt;

/** One wake-up job per ticket (a new snooze moves it); the payload names the snooze it ends. */
const wakeKey = (ticketId: number) => `ticket:${ticketId}`;

/**
 * Snooze (#30.7, docs/routing.md "Snooze"): an open ticket leaves its attendant's open list for the "Adiados"
 * tab until a time (a durable job wakes it) or until the customer writes (a listener on inbound messages),
 * whichever comes first. Waking is one conditional UPDATE on the snooze it ends (`snoozed_at`), so a job run
 * twice (a process killed after the update, a lease taken over) or a reply racing the job wakes it once.
 */
export function snoozeService(deps: {
  db: Db;
  events: Events;
  clock: Clock;
  jobs: Pick<JobQueue, 'schedule' | 'cancel'>;
  emitTicket: EmitTicket;
  /** stage: ticket.snoozed / ticket.woken's outbox rows commit with the change (docs/events.md "The outbox"). */
  bus?: Pick<DomainBus, 'emit'> & Partial<Pick<OutboxBus, 'stage'>>;
  /** The top bar's push (Web Push) to the attendant. */
  notifyUsers?: (
    companyId: number,
    userIds: number[],
    payload: { title: string; body: string; url: string; tag?: string },
  ) => Promise<void>;
  log: { warn(o: object, m: string): void };
}) {
  const { db, clock } = deps;

  const wakeJob = defineJob({
    kind: 'ticket.snooze-wake',
    payload: z.object({ ticketId: z.number().int().positive(), snoozedAt: z.string() }),
    handler: async ({ companyId, payload }) => {
      if (companyId === null) return;
      await wake(companyId, payload.ticketId, 'time', { snoozedAt: new Date(payload.snoozedAt) });
    },
    options: { leaseMs: 30_000, retryDelayMs: 5_000 },
  });

  // Another company's ticket, or one the rule hides: as if it did not exist (tickets' own routes say 403
  // for the hidden ones; a snooze of a ticket one cannot open is refused the same way).
  const visibleRow = (t: Tenant, id: number): Promise<TicketRow> => visibleTicketRow(db, t, id);

  async function announce(companyId: number, before: TicketRow, by: number | null) {
    const view = (await ticketQueries.byId(db, companyId, before.id))!;
    deps.emitTicket(companyId, view, {
      actor: by ? 'user' : 'timer',
      by,
      action: 'update',
      before: { status: before.status, queueId: before.queueId, userId: before.userId },
    });
    return view;
  }

  /**
   * Ends the snooze: only the snooze `expect` names (the job's), or any (a reply, a user's hand). Returns the
   * woken ticket's view, or null when it was not snoozed (already woken: nothing happens twice).
   */
  async function wake(
    companyId: number,
    ticketId: number,
    reason: WakeReason,
    opts: { snoozedAt?: Date; by?: number } = {},
  ): Promise<TicketView | null> {
    const now = clock.now();
    const woken = await db.transaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId), isNotNull(tickets.snoozedAt)))
        .for('update');
      if (!before?.snoozedAt) return null;
      if (opts.snoozedAt && before.snoozedAt.getTime() !== opts.snoozedAt.getTime()) return null;
      const [after] = await tx
        .update(tickets)
        .set({
          snoozedAt: null,
          snoozedUntil: null,
          snoozeUntilReply: false,
          snoozedBy: null,
          updatedAt: now,
        })
        .where(
          and(
            eq(tickets.id, ticketId),
            eq(tickets.companyId, companyId),
            eq(tickets.snoozedAt, before.snoozedAt),
          ),
        )
        .returning();
      if (!after) return null;
      await tx.insert(ticketHistories).values({
        companyId,
        ticketId,
        action: 'wake',
        userId: opts.by ?? null,
        queueId: after.queueId,
        whatsappId: after.whatsappId,
        status: after.status,
        data: { reason, snoozedAt: before.snoozedAt.toISOString() },
      });
      const event: DomainEvents['ticket.woken'] = {
        companyId,
        ticketId,
        reason,
        snoozedAt: before.snoozedAt,
        at: now,
        by: opts.by ?? null,
      };
      const [meta] = (await deps.bus?.stage?.(tx, [{ event: 'ticket.woken', payload: event }])) ?? [];
      return { before, after, event, meta };
    });
    if (!woken) return null;
    const { before, after } = woken;
    // A reply or a hand woke it before its time: its job has nothing left to do.
    if (reason !== 'time')
      await deps.jobs
        .cancel(wakeJob, wakeKey(ticketId))
        .catch((err: unknown) => deps.log.warn({ err, ticketId }, 'snooze job not cancelled'));
    const view = await announce(companyId, before, opts.by ?? null);
    const attendant = after.userId ?? before.snoozedBy;
    if (attendant) {
      deps.events.toUser(companyId, attendant, 'ticketWoken', { action: 'woken', ticket: view, reason });
      if (deps.notifyUsers && attendant !== opts.by) {
        const [u] = await db
          .select({ language: users.language, contact: contacts.name })
          .from(users)
          .innerJoin(contacts, eq(contacts.id, after.contactId))
          .where(eq(users.id, attendant));
        const texts = wakeTexts(u?.language);
        await deps
          .notifyUsers(companyId, [attendant], {
            title: `${texts.title}: ${u?.contact ?? ''}`.trim(),
            body: reason === 'reply' ? texts.reply : texts.time,
            url: `/tickets/${view.uuid}`,
            tag: `ticket-woken-${ticketId}`,
          })
          .catch((err: unknown) => deps.log.warn({ err, ticketId }, 'woken push not queued'));
      }
    }
    await deps.bus?.emit('ticket.woken', woken.event, woken.meta);
    return view;
  }

  return {
    jobs: { wake: wakeJob },
    wake,

    /** POST /tickets/{id}/snooze: an open ticket the user may see, until a future time and/or a reply. */
    async snooze(t: Tenant, id: number, input: TicketSnooze): Promise<TicketView> {
      const current = await visibleRow(t, id);
      const now = clock.now();
      const until = input.until ? new Date(input.until) : null;
      if (until && until.getTime() <= now.getTime())
        throw new AppError('ERR_VALIDATION', 400, 'until must be in the future', {
          fields: [{ path: 'until', message: 'in the past' }],
        });
      if (current.status !== 'open') throw new AppError('ERR_TICKET_NOT_OPEN', 400);
      const untilReply = input.untilReply === true;
      const snoozed = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(tickets)
          .set({
            snoozedAt: now,
            snoozedUntil: until,
            snoozeUntilReply: untilReply,
            snoozedBy: t.userId,
            updatedAt: now,
          })
          .where(and(eq(tickets.id, id), eq(tickets.companyId, t.companyId), eq(tickets.status, 'open')))
          .returning();
        if (!row) return null;
        await tx.insert(ticketHistories).values({
          companyId: t.companyId,
          ticketId: id,
          action: 'snooze',
          userId: t.userId,
          queueId: row.queueId,
          whatsappId: row.whatsappId,
          status: row.status,
          data: { until: until?.toISOString() ?? null, untilReply },
        });
        const event: DomainEvents['ticket.snoozed'] = {
          companyId: t.companyId,
          ticketId: id,
          until,
          untilReply,
          at: now,
          by: t.userId,
        };
        const [meta] = (await deps.bus?.stage?.(tx, [{ event: 'ticket.snoozed', payload: event }])) ?? [];
        // The wake-up exists only if the snooze commits (and a new snooze moves it).
        if (until)
          await deps.jobs.schedule(
            wakeJob,
            {
              key: wakeKey(id),
              runAt: until,
              companyId: t.companyId,
              payload: { ticketId: id, snoozedAt: now.toISOString() },
            },
            tx,
          );
        return { event, meta };
      });
      if (!snoozed) throw new AppError('ERR_TICKET_NOT_OPEN', 400);
      // Until a reply only: a wake-up of an earlier snooze has nothing to do.
      if (!until) await deps.jobs.cancel(wakeJob, wakeKey(id));
      const view = await announce(t.companyId, current, t.userId);
      await deps.bus?.emit('ticket.snoozed', snoozed.event, snoozed.meta);
      return view;
    },

    /** DELETE /tickets/{id}/snooze: back to the open list now (a ticket not snoozed stays as it is). */
    async unsnooze(t: Tenant, id: number): Promise<TicketView> {
      await visibleRow(t, id);
      const view = await wake(t.companyId, id, 'manual', { by: t.userId });
      return view ?? (await ticketQueries.byId(db, t.companyId, id))!;
    },

    /** A customer wrote on a snoozed ticket: it wakes now (the listener calls this). */
    async onCustomerMessage(companyId: number, ticketId: number) {
      await wake(companyId, ticketId, 'reply');
    },

    /** The ticket left "open" (closed, returned, transferred): its snooze ends quietly with it. */
    async clear(companyId: number, ticketId: number) {
      const [row] = await db
        .update(tickets)
        .set({ snoozedAt: null, snoozedUntil: null, snoozeUntilReply: false, snoozedBy: null })
        .where(
          and(
            eq(tickets.id, ticketId),
            eq(tickets.companyId, companyId),
            isNotNull(tickets.snoozedAt),
            sql`${tickets.status} <> 'open'`,
          ),
        )
        .returning({ id: tickets.id });
      if (row) await deps.jobs.cancel(wakeJob, wakeKey(ticketId));
    },
  };
}

export type SnoozeService = ReturnType<typeof snoozeService>;
