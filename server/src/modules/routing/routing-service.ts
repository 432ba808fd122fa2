import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { TicketView } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows, rowOf } from '../../db/rows.js';
import { tickets } from '../../db/schema/index.js';
import type { DomainBus, TicketRow } from '../../events/domain-events.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, noPayload, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import type { Events } from '../../realtime/events.js';
import type { MessageService } from '../messages/message-service.js';
import { readSetting, readSettings } from '../settings/setting-service.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import type { EmitTicket } from '../tickets/ticket-service.js';
import { fillWaitingMessage, formatEta } from './waiting-text.js';

/** The periodic sweep (clock time): re-runs every queue with waiting tickets (restart, lost events). */
export const ROUTING_SWEEP_MS = 15_000;
/** Advisory lock namespace of routing (one lock per company: capacity counts an attendant's every queue). */
const LOCK_NS = 0x5254; // "RT"
/** How long the owner settings of a company are kept in memory (one read per round otherwise). */
const OWNER_SETTINGS_MS = 5_000;
/** Waiting tickets read per round (a round assigns at most the free places). */
const MAX_ROUND = 500;

type Policy = 'manual' | 'round_robin' | 'least_busy';
type Reason = 'policy' | 'owner' | 'skip';

interface QueueRow {
  assignment_policy: Policy;
  capacity: number | null;
  rr_last_user_id: number | null;
}
interface Candidate {
  id: number;
  max_tickets: number | null;
  last_assigned_at: string | Date | null;
  load: number;
}
interface Waiting {
  id: number;
  owner_id: number | null;
  since: string | Date;
  skipped: number[] | string | null;
}

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const ids = (v: Waiting['skipped']): number[] =>
  Array.isArray(v)
    ? v.map(Number)
    : typeof v === 'string' && v.length > 2
      ? v.slice(1, -1).split(',').map(Number)
      : [];

/** Waiting: pending, nobody's, in the queue, no bot or automation answering it. */
const WAITING = sql.raw(`t.status = 'pending' and t.user_id is null and t.chatbot = false
  and t.use_integration = false and t.prompt_id is null`);

/**
 * The routing engine (docs/routing.md): gives a queue's waiting tickets to its online attendants under the
 * queue's policy and capacity, tells the line its place, returns owners' customers to them. It runs from bus
 * listeners (routing-listener.ts) at once in this process, and from durable jobs: a periodic sweep (restart,
 * a process that died after a change and before its listener ran) and keyed delayed runs (an owner's window
 * ending, the next waiting-line message). The ticket service knows nothing of it.
 *
 * Atomicity: one round is one transaction under `pg_advisory_xact_lock(routing, company)`, so two processes
 * (or two rounds of one) never count the same free place twice; each ticket is taken with a conditional
 * UPDATE (still pending, still nobody's), so a manual pick at the same moment wins or loses cleanly.
 */
export function routingService(deps: {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  events: Events;
  messages: MessageService;
  emitTicket: EmitTicket;
  bus: Pick<DomainBus, 'emit'>;
  log: { warn(o: object, m: string): void };
}) {
  const { db, clock } = deps;
  /** Per queue: a round running here, and whether another was asked for meanwhile. */
  const running = new Map<number, { again: boolean; enter: boolean; done: Promise<void> }>();
  let statements = 0;
  const exec = <T>(q: Parameters<typeof executeRows>[1], on: Db = db) => {
    statements++;
    return executeRows<T>(on, q);
  };

  /** Owner settings read in the last few seconds, per company (a change applies within OWNER_SETTINGS_MS). */
  const ownerCache = new Map<
    number,
    { at: number; value: Promise<{ mode: 'off' | 'policies' | 'always'; waitMs: number }> }
  >();
  function ownerSettings(companyId: number) {
    const hit = ownerCache.get(companyId);
    if (hit && Date.now() - hit.at < OWNER_SETTINGS_MS) return hit.value;
    const value = readOwnerSettings(companyId);
    ownerCache.set(companyId, { at: Date.now(), value });
    value.catch(() => ownerCache.delete(companyId));
    return value;
  }

  /** The owner settings, in one read of the company's settings. */
  async function readOwnerSettings(companyId: number) {
    statements++;
    const all = new Map((await readSettings(db, companyId)).map((s) => [s.key, s.value]));
    const mode = all.get('ownerRouting') ?? 'policies';
    const minutes = Number.parseInt(all.get('ownerWaitMinutes') ?? '', 10);
    return {
      mode: (['off', 'policies', 'always'].includes(mode) ? mode : 'policies') as
        'off' | 'policies' | 'always',
      waitMs: (Number.isFinite(minutes) && minutes >= 0 ? minutes : 5) * 60_000,
    };
  }

  /** Gives the waiting tickets the places free now; answers what it assigned (after the commit). */
  async function assignRound(companyId: number, queueId: number) {
    const owner = await ownerSettings(companyId);
    const now = clock.now();
    let policy: Policy = 'manual';
    let laterAt: Date | null = null;
    const rows = await db.transaction(async (tx) => {
      const txDb = tx as unknown as Db;
      await exec(sql`select pg_advisory_xact_lock(${LOCK_NS}::int, ${companyId}::int)`, txDb);
      const [q] = await exec<QueueRow>(
        sql`select assignment_policy, capacity, rr_last_user_id from queues
          where id = ${queueId} and company_id = ${companyId}`,
        txDb,
      );
      if (!q) return [];
      policy = q.assignment_policy;
      const ownersHere = owner.mode === 'always' || (owner.mode === 'policies' && policy !== 'manual');
      if (policy === 'manual' && !ownersHere) return [];
      const candidates = await exec<Candidate>(
        sql`select u.id, u.max_tickets, u.last_assigned_at,
            (select count(*)::int from tickets o where o.user_id = u.id and o.status = 'open'
              and o.snoozed_at is null) as load
          from user_queues uq join users u on u.id = uq.user_id
          where uq.queue_id = ${queueId} and u.company_id = ${companyId} and u.presence = 'online'
          order by u.id`,
        txDb,
      );
      if (!candidates.length) return [];
      const limitOf = (c: Candidate) => q.capacity ?? c.max_tickets ?? Number.POSITIVE_INFINITY;
      const free = candidates.filter((c) => c.load < limitOf(c));
      if (!free.length) return [];
      const places = free.reduce((n, c) => n + Math.min(limitOf(c) - c.load, MAX_ROUND), 0);
      const waiting = await exec<Waiting>(
        sql`select t.id, c.owner_id, coalesce(w.since, t.created_at) as since,
            (select array_agg(s.user_id) from routing_skips s
              where s.ticket_id = t.id and s.created_at >= coalesce(w.since, t.created_at)) as skipped
          from tickets t
          join contacts c on c.id = t.contact_id
          left join routing_waits w on w.ticket_id = t.id
          where t.company_id = ${companyId} and t.queue_id = ${queueId} and ${WAITING}
          order by t.priority desc, coalesce(w.since, t.created_at), t.id
          limit ${Math.min(places + 50, MAX_ROUND)}`,
        txDb,
      );
      const byId = new Map(candidates.map((c) => [c.id, c]));
      const online = new Set(candidates.map((c) => c.id));
      const hasRoom = (c: Candidate) => c.load < limitOf(c);
      let pointer = q.rr_last_user_id;
      const chosen: { tid: number; uid: number; reason: Reason }[] = [];
      for (const w of waiting) {
        if (!candidates.some(hasRoom)) break;
        const skipped = new Set(ids(w.skipped));
        const waitedMs = now.getTime() - new Date(w.since).getTime();
        // The contact's owner, online in this queue, within the owner's window: theirs or nobody's yet.
        if (ownersHere && w.owner_id && online.has(w.owner_id) && !skipped.has(w.owner_id)) {
          const o = byId.get(w.owner_id)!;
          if (hasRoom(o)) {
            o.load++;
            chosen.push({ tid: w.id, uid: o.id, reason: 'owner' });
            continue;
          }
          if (waitedMs < owner.waitMs) {
            const end = new Date(new Date(w.since).getTime() + owner.waitMs);
            if (!laterAt || end < laterAt) laterAt = end;
            continue;
          }
        }
        if (policy === 'manual') continue;
        // Not back to an attendant who skipped it, unless every online attendant of the queue has (a new round).
        const fresh = candidates.filter((c) => !skipped.has(c.id));
        const pool = (fresh.length ? fresh : candidates).filter(hasRoom);
        if (!pool.length) continue;
        let pick: Candidate;
        if (policy === 'round_robin') {
          pick = pool.find((c) => pointer === null || c.id > pointer) ?? pool[0]!;
          pointer = pick.id;
        } else {
          pick = pool.reduce((best, c) => {
            if (c.load !== best.load) return c.load < best.load ? c : best;
            const a = c.last_assigned_at ? new Date(c.last_assigned_at).getTime() : 0;
            const b = best.last_assigned_at ? new Date(best.last_assigned_at).getTime() : 0;
            return a < b ? c : best;
          });
          pick.last_assigned_at = now;
        }
        pick.load++;
        chosen.push({ tid: w.id, uid: pick.id, reason: skipped.size ? 'skip' : 'policy' });
      }
      if (!chosen.length) return [];
      const at = iso(now);
      return exec<{ ticket: Record<string, unknown>; reason: Reason }>(
        sql`with v as (
            select * from jsonb_to_recordset(${JSON.stringify(chosen)}::jsonb) as v(tid int, uid int, reason text)),
          upd as (
            update tickets t set status = 'open', user_id = v.uid, updated_at = ${at},
              accepted_at = coalesce(t.accepted_at, ${at}), use_integration = false, integration_id = null,
              prompt_id = null, automation = null
            from v
            where t.id = v.tid and t.company_id = ${companyId} and t.queue_id = ${queueId} and ${WAITING}
            returning t.*, v.reason),
          h as (
            insert into ticket_histories (company_id, ticket_id, action, user_id, queue_id, whatsapp_id, status, data)
            select company_id, id, 'accept', user_id, queue_id, whatsapp_id, status,
              jsonb_build_object('by', 'routing', 'policy', ${policy}::text, 'reason', reason,
                'from', jsonb_build_object('status', 'pending', 'userId', null, 'queueId', queue_id))
            from upd),
          a as (
            insert into routing_assignments (company_id, queue_id, ticket_id, user_id, policy, reason)
            select company_id, queue_id, id, user_id, ${policy}::text, reason from upd),
          lw as (update routing_waits rw set left_at = ${at} from upd where rw.ticket_id = upd.id),
          lu as (update users u set last_assigned_at = ${at} where u.id in (select user_id from upd)),
          lq as (update queues set rr_last_user_id = ${pointer}::int
            where id = ${queueId} and ${pointer}::int is not null and ${policy}::text = 'round_robin')
          select row_to_json(upd) as ticket, upd.reason from upd`,
        txDb,
      );
    });
    if (laterAt) await later(companyId, queueId, laterAt);
    const assigned: { ticket: TicketRow; view: TicketView; reason: Reason }[] = [];
    for (const r of rows) {
      const ticket = rowOf(tickets, r.ticket);
      const view = await ticketQueries.byId(db, companyId, ticket.id);
      if (!view) continue;
      statements++;
      announce(companyId, ticket, view, policy, r.reason);
      assigned.push({ ticket, view, reason: r.reason });
    }
    return assigned;
  }

  /** The assignment, as an accept: to the lists and rooms, the attendant's own room, the bus and webhooks. */
  function announce(companyId: number, ticket: TicketRow, view: TicketView, policy: Policy, reason: Reason) {
    const before = { status: 'pending', userId: null, queueId: ticket.queueId };
    deps.emitTicket(companyId, view, { actor: 'routing', by: ticket.userId, action: 'accept', before });
    deps.events.toUser(companyId, ticket.userId!, 'ticket', {
      action: 'update',
      ticket: view,
      previousStatus: 'pending',
    });
    // The greeting ("my name is…") and the automation's end follow an accept, as when the attendant clicks.
    void deps.bus.emit('ticket.changed', {
      companyId,
      before: { ...ticket, ...before, status: 'pending' } as TicketRow,
      after: ticket,
      action: 'accept',
      by: ticket.userId!,
    });
    void deps.bus.emit('ticket.assigned', {
      companyId,
      ticket: view,
      userId: ticket.userId!,
      policy,
      reason,
    });
  }

  /** A run of the queue's round at `at` (durable: survives a restart). */
  async function later(companyId: number, queueId: number, at: Date) {
    await deps.jobs.schedule(queueJob, {
      key: `queue:${queueId}`,
      runAt: at,
      payload: { companyId, queueId },
      companyId,
    });
  }

  /** The line's state rows: a ticket that (re)entered the line starts its stay now. */
  async function enterLine(companyId: number, queueId: number, now: Date) {
    await exec(
      sql`insert into routing_waits (ticket_id, company_id, queue_id, since)
        select t.id, t.company_id, t.queue_id, ${iso(now)} from tickets t
        where t.company_id = ${companyId} and t.queue_id = ${queueId} and t.status = 'pending' and t.user_id is null
        on conflict (ticket_id) do update set queue_id = excluded.queue_id, since = excluded.since,
          left_at = null, told_position = null, told_at = null
        where routing_waits.left_at is not null or routing_waits.queue_id is distinct from excluded.queue_id`,
    );
  }

  /** The waiting-line message to those who joined or moved up enough (at most once per interval each). */
  async function tellLine(companyId: number, queueId: number) {
    const [q] = await exec<{ waiting_message: string; step: number; interval: number }>(
      sql`select waiting_message, waiting_message_step as step, waiting_message_interval as interval
        from queues where id = ${queueId} and company_id = ${companyId}`,
    );
    if (!q || !q.waiting_message.trim()) return;
    const now = clock.now();
    const line = await exec<{
      id: number;
      pos: number;
      told_position: number | null;
      told_at: string | Date | null;
    }>(
      sql`select t.id, (row_number() over (order by t.priority desc, coalesce(w.since, t.created_at), t.id))::int as pos,
          w.told_position, w.told_at
        from tickets t left join routing_waits w on w.ticket_id = t.id
        where t.company_id = ${companyId} and t.queue_id = ${queueId} and ${WAITING} and t.is_group = false`,
    );
    const due = line.filter((l) => l.told_position === null || l.told_position - l.pos >= q.step);
    if (!due.length) return;
    let eta: string | undefined;
    let nextAt: Date | null = null;
    for (const l of due) {
      const toldAt = l.told_at ? new Date(l.told_at) : null;
      if (toldAt && now.getTime() - toldAt.getTime() < q.interval * 60_000) {
        const at = new Date(toldAt.getTime() + q.interval * 60_000);
        if (!nextAt || at < nextAt) nextAt = at;
        continue;
      }
      // Claimed before it is sent: a second process (or a retried job) finds it told and sends nothing.
      const [claimed] = await exec<{ ticket: Record<string, unknown> }>(
        sql`with c as (
            update routing_waits set told_position = ${l.pos}, told_at = ${iso(now)}
            where ticket_id = ${l.id} and told_position is not distinct from ${l.told_position}::int
              and left_at is null
            returning ticket_id)
          select row_to_json(t) as ticket from tickets t join c on c.ticket_id = t.id`,
      );
      if (!claimed) continue;
      eta ??= await etaText(companyId, queueId);
      const ticket = rowOf(tickets, claimed.ticket);
      try {
        await deps.messages.deliver(companyId, ticket, {
          body: fillWaitingMessage(q.waiting_message, l.pos, eta),
          userId: null,
          data: { routing: 'waiting-line' },
        });
      } catch (err) {
        deps.log.warn({ err: (err as Error)?.message, ticketId: ticket.id }, 'waiting-line message not sent');
      }
    }
    if (nextAt) await later(companyId, queueId, nextAt);
  }

  /** The queue's recent median wait (last 50 tickets that left its line in 24 h), in the company's language. */
  async function etaText(companyId: number, queueId: number) {
    const [m] = await exec<{ seconds: number | string | null }>(
      sql`select percentile_cont(0.5) within group (order by extract(epoch from left_at - since)) as seconds
        from (select since, left_at from routing_waits
          where queue_id = ${queueId} and company_id = ${companyId} and left_at is not null
            and left_at > ${iso(clock.now())} - interval '24 hours'
          order by left_at desc limit 50) recent`,
    );
    const lang = await readSetting(db, companyId, 'language');
    return formatEta(m?.seconds == null ? null : Number(m.seconds), lang);
  }

  /** One queue's whole pass: line rows, rounds until nothing more fits, the line's messages. */
  async function runQueue(companyId: number, queueId: number, enter: boolean) {
    // Only a pass that may have new entrants records them (a freed place alone brings nobody new).
    if (enter) await enterLine(companyId, queueId, clock.now());
    for (let i = 0; i < 20; i++) {
      const assigned = await assignRound(companyId, queueId);
      if (assigned.length < MAX_ROUND) break;
    }
    await tellLine(companyId, queueId);
  }

  /**
   * Routes a queue now in this process. Calls for a queue already routing here are folded into one more pass
   * after it (a burst of events costs one or two passes, not one each).
   */
  function route(companyId: number, queueId: number, opts: { enter?: boolean } = {}): Promise<void> {
    const enter = opts.enter ?? true;
    const busy = running.get(queueId);
    if (busy) {
      busy.again = true;
      busy.enter ||= enter;
      return busy.done;
    }
    const state = { again: false, enter, done: Promise.resolve() };
    state.done = (async () => {
      try {
        do {
          state.again = false;
          const entering = state.enter;
          state.enter = false;
          try {
            await runQueue(companyId, queueId, entering);
          } catch (err) {
            deps.log.warn({ err: (err as Error)?.message, companyId, queueId }, 'routing pass failed');
            // Retried durably: the job runs the queue again shortly.
            await later(companyId, queueId, new Date(clock.now().getTime() + 5_000)).catch(() => undefined);
          }
        } while (state.again);
      } finally {
        running.delete(queueId);
      }
    })();
    running.set(queueId, state);
    return state.done;
  }

  /** Every queue of a user (their place may have freed, or they came online). */
  async function routeUser(companyId: number, userId: number) {
    // A freed place or an attendant back: no new entrant to record (the sweep records any it finds).
    const qs = await exec<{ queue_id: number }>(
      sql`select uq.queue_id from user_queues uq join queues q on q.id = uq.queue_id
        where uq.user_id = ${userId} and q.company_id = ${companyId}`,
    );
    await Promise.all(qs.map((q) => route(companyId, q.queue_id, { enter: false })));
  }

  /** The queues of the attendant who has this ticket (it was snoozed: their place frees). */
  async function routeTicketUser(companyId: number, ticketId: number) {
    const [r] = await exec<{ user_id: number | null }>(
      sql`select user_id from tickets where id = ${ticketId} and company_id = ${companyId}`,
    );
    if (r?.user_id) await routeUser(companyId, r.user_id);
  }

  /** Every queue with waiting tickets, of every company (the sweep). */
  async function sweep() {
    const qs = await exec<{ company_id: number; queue_id: number }>(
      sql`select distinct t.company_id, t.queue_id from tickets t
        where t.queue_id is not null and ${WAITING}`,
    );
    for (const q of qs) await route(q.company_id, q.queue_id);
  }

  /** A ticket left the line (picked by hand, moved, closed): the ETA's wait ends. */
  async function leftLine(companyId: number, ticketId: number) {
    await exec(
      sql`update routing_waits set left_at = ${iso(clock.now())}
        where ticket_id = ${ticketId} and company_id = ${companyId} and left_at is null`,
    );
  }

  /**
   * POST /tickets/{id}/skip: the attendant it was given to passes it on. It goes back to the line (keeping
   * its place), the skip is stored, and the next round gives it to someone else (not back to the skipper
   * while another online attendant of the queue has not skipped it).
   */
  async function skip(t: Tenant, ticketId: number): Promise<TicketView> {
    const now = clock.now();
    const at = iso(now);
    const rows = await db.transaction(async (tx) => {
      const txDb = tx as unknown as Db;
      await exec(sql`select pg_advisory_xact_lock(${LOCK_NS}::int, ${t.companyId}::int)`, txDb);
      return exec<{ ticket: Record<string, unknown> }>(
        sql`with upd as (
            update tickets set status = 'pending', user_id = null, updated_at = ${at}
            where id = ${ticketId} and company_id = ${t.companyId} and user_id = ${t.userId}
              and status = 'open' and queue_id is not null
            returning *),
          s as (insert into routing_skips (company_id, ticket_id, user_id, queue_id)
            select company_id, id, ${t.userId}, queue_id from upd),
          h as (insert into ticket_histories (company_id, ticket_id, action, user_id, queue_id, whatsapp_id, status, data)
            select company_id, id, 'return', ${t.userId}, queue_id, whatsapp_id, status,
              jsonb_build_object('by', 'skip', 'from', jsonb_build_object('status', 'open', 'userId', ${t.userId}::int))
            from upd),
          w as (insert into routing_waits (ticket_id, company_id, queue_id, since)
            select id, company_id, queue_id, created_at from upd
            on conflict (ticket_id) do update set left_at = null, queue_id = excluded.queue_id)
          select row_to_json(upd) as ticket from upd`,
        txDb,
      );
    });
    const [r] = rows;
    if (!r) {
      const [exists] = await exec<{ id: number }>(
        sql`select id from tickets where id = ${ticketId} and company_id = ${t.companyId} and user_id = ${t.userId}`,
      );
      // Another's ticket (or another company's) is not found; one's own that is not open in a queue cannot be skipped.
      if (!exists) throw new AppError('ERR_NO_TICKET_FOUND', 404);
      throw new AppError('ERR_TICKET_NOT_SKIPPABLE', 409);
    }
    const ticket = rowOf(tickets, r.ticket);
    const view = (await ticketQueries.byId(db, t.companyId, ticket.id))!;
    deps.emitTicket(t.companyId, view, {
      actor: 'user',
      by: t.userId,
      action: 'return',
      before: { status: 'open', userId: t.userId, queueId: ticket.queueId },
    });
    await route(t.companyId, ticket.queueId!);
    return (await ticketQueries.byId(db, t.companyId, ticket.id))!;
  }

  /** Per attendant of the company: open tickets, skips and assignments since `since` (supervisors, live view). */
  async function stats(t: Tenant, since: Date) {
    const rows = await exec<{
      user_id: number;
      name: string;
      presence: string;
      open: number;
      skips: number;
      assigned: number;
      max_tickets: number | null;
    }>(
      sql`select u.id as user_id, u.name, u.presence, u.max_tickets,
          (select count(*)::int from tickets o where o.user_id = u.id and o.status = 'open') as open,
          (select count(*)::int from routing_skips s where s.user_id = u.id and s.company_id = u.company_id
            and s.created_at >= ${iso(since)}) as skips,
          (select count(*)::int from routing_assignments a where a.user_id = u.id and a.company_id = u.company_id
            and a.created_at >= ${iso(since)}) as assigned
        from users u where u.company_id = ${t.companyId} order by u.name, u.id`,
    );
    return rows.map((r) => ({
      userId: r.user_id,
      name: r.name,
      presence: r.presence,
      maxTickets: r.max_tickets,
      open: r.open,
      skips: r.skips,
      assigned: r.assigned,
    }));
  }

  const queueJob = defineJob({
    kind: 'routing.queue',
    payload: z.object({ companyId: z.number().int(), queueId: z.number().int() }),
    handler: async (job) => route(job.payload.companyId, job.payload.queueId),
  });
  const sweepJob = defineJob({
    kind: 'routing.sweep',
    payload: noPayload,
    handler: sweep,
    options: { every: ROUTING_SWEEP_MS },
  });
  /** Once per process start: waiting tickets left by a stop or a crash are routed without waiting for the sweep. */
  const startJob = defineJob({ kind: 'routing.start', payload: noPayload, handler: sweep });

  return {
    route,
    routeUser,
    routeTicketUser,
    sweep,
    skip,
    stats,
    leftLine,
    /** Statements sent by the engine so far (the benchmark's count). */
    statements: () => statements,
    /** Resolves once no pass runs in this process. */
    async idle() {
      while (running.size) await Promise.all([...running.values()].map((r) => r.done));
    },
    kickOff: () => deps.jobs.schedule(startJob, { key: `start:${deps.jobs.processId}`, payload: {} }),
    jobs: { queue: queueJob, sweep: sweepJob, start: startJob },
  };
}
export type RoutingService = ReturnType<typeof routingService>;
