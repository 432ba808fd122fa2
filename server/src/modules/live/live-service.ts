import { sql } from 'drizzle-orm';
import { rooms, type LiveAttendant, type LiveQueue, type LiveView, type Presence } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import type { Tenant } from '../../http/tenant.js';
import type { Clock } from '../../lib/clock.js';
import type { Events } from '../../realtime/events.js';

/** At most one push of a company's live view per this many milliseconds (per process). */
export const LIVE_PUSH_MS = 1000;

const num = (v: unknown) => Number(v ?? 0) || 0;
const secondsSince = (now: Date, v: unknown) =>
  v ? Math.max(0, Math.floor((now.getTime() - new Date(v as string).getTime()) / 1000)) : null;

/**
 * #30.8 The supervisor's live view (docs/routing.md "The live view"): per queue, the waiting line and its
 * SLA state; per attendant, presence, load against capacity and time since the last reply. `GET /live`
 * answers it to admins and supervisors; `poke(companyId)` pushes it to the company's live room, coalesced
 * to at most one push per second per company.
 */
export function liveService(deps: {
  db: Db;
  events: Events;
  clock: Clock;
  log?: { warn(o: object, m: string): void };
}) {
  const { db, events, clock } = deps;

  async function view(companyId: number): Promise<LiveView> {
    const now = clock.now();
    const at = now.toISOString();
    // Waiting = pending; snoozed tickets wait for their time, not for an attendant. The wait is counted from
    // the ticket's entry in the current line (routing_waits), else from its creation.
    const active = sql`t.status in ('pending', 'open') and t.snoozed_at is null and not t.is_group`;
    const queueRows = await executeRows<Record<string, unknown>>(
      db,
      sql`select q.id as queue_id, q.name, q.color, s.waiting, s.open, s.longest, s.at_risk, s.breached
        from queues q
        left join lateral (
          select count(*) filter (where t.status = 'pending') as waiting,
            count(*) filter (where t.status = 'open') as open,
            max(extract(epoch from (${at}::timestamptz - coalesce(w.since, t.created_at))))
              filter (where t.status = 'pending') as longest,
            count(*) filter (where t.sla_at_risk_at <= ${at}::timestamptz and cardinality(t.sla_breached) = 0)
              as at_risk,
            count(*) filter (where cardinality(t.sla_breached) > 0) as breached
          from tickets t left join routing_waits w on w.ticket_id = t.id and w.left_at is null
          where t.company_id = ${companyId} and t.queue_id = q.id and ${active}
        ) s on true
        where q.company_id = ${companyId}
        union all
        select null, '', '', count(*) filter (where t.status = 'pending'), count(*) filter (where t.status = 'open'),
          max(extract(epoch from (${at}::timestamptz - coalesce(w.since, t.created_at))))
            filter (where t.status = 'pending'),
          count(*) filter (where t.sla_at_risk_at <= ${at}::timestamptz and cardinality(t.sla_breached) = 0),
          count(*) filter (where cardinality(t.sla_breached) > 0)
        from tickets t left join routing_waits w on w.ticket_id = t.id and w.left_at is null
        where t.company_id = ${companyId} and t.queue_id is null and ${active}`,
    );
    const queues: LiveQueue[] = queueRows
      // Tickets without a queue appear only when there are some.
      .filter((r) => r.queue_id !== null || num(r.waiting) + num(r.open) > 0)
      .map((r) => ({
        queueId: r.queue_id === null ? null : num(r.queue_id),
        name: String(r.name ?? ''),
        color: String(r.color ?? ''),
        waiting: num(r.waiting),
        longestWaitSeconds: Math.max(0, Math.floor(num(r.longest))),
        slaAtRisk: num(r.at_risk),
        slaBreached: num(r.breached),
        open: num(r.open),
      }))
      .sort((a, b) =>
        a.queueId === null
          ? 1
          : b.queueId === null
            ? -1
            : a.name.localeCompare(b.name) || a.queueId - b.queueId,
      );

    const userRows = await executeRows<Record<string, unknown>>(
      db,
      sql`select u.id, u.name, u.profile, u.presence, u.presence_at, u.max_tickets, u.last_reply_at,
          (select count(*) from tickets t where t.company_id = ${companyId} and t.user_id = u.id
            and t.status = 'open') as open_tickets,
          coalesce((select json_agg(uq.queue_id order by uq.queue_id) from user_queues uq where uq.user_id = u.id),
            '[]'::json) as queue_ids
        from users u where u.company_id = ${companyId}
        order by u.name, u.id`,
    );
    const attendants: LiveAttendant[] = userRows.map((r) => ({
      userId: num(r.id),
      name: String(r.name),
      profile: String(r.profile),
      presence: String(r.presence) as Presence,
      presenceAt: r.presence_at ? new Date(r.presence_at as string).toISOString() : null,
      openTickets: num(r.open_tickets),
      capacity: r.max_tickets === null || r.max_tickets === undefined ? null : num(r.max_tickets),
      secondsSinceLastReply: secondsSince(now, r.last_reply_at),
      queueIds: (typeof r.queue_ids === 'string' ? JSON.parse(r.queue_ids) : (r.queue_ids as number[])).map(
        num,
      ),
    }));
    return { at, queues, attendants };
  }

  const timers = new Map<number, NodeJS.Timeout>();
  const lastPush = new Map<number, number>();
  let stopped = false;

  async function push(companyId: number) {
    timers.delete(companyId);
    lastPush.set(companyId, Date.now());
    if (stopped) return;
    try {
      events.toRoom(rooms.live(companyId), companyId, 'live', {
        action: 'update',
        live: await view(companyId),
      });
    } catch (err) {
      deps.log?.warn({ err, companyId }, 'live view push failed');
    }
  }

  return {
    /** GET /live: the caller's company (the route admits admins and supervisors only). */
    get: (t: Tenant) => view(t.companyId),
    view,
    /**
     * Something the view shows changed: the company's live room gets the new view, at most once per
     * LIVE_PUSH_MS (a burst of changes is one push, sent after the burst's first change settles).
     */
    poke(companyId: number) {
      if (stopped || timers.has(companyId)) return;
      const wait = Math.max(0, (lastPush.get(companyId) ?? 0) + LIVE_PUSH_MS - Date.now());
      const timer = setTimeout(() => void push(companyId), Math.max(wait, 50));
      timer.unref?.();
      timers.set(companyId, timer);
    },
    /** Records a reply for the "time since last reply" column. */
    async replied(userId: number, companyId: number, at: Date) {
      await db.execute(
        sql`update users set last_reply_at = ${at.toISOString()}
          where id = ${userId} and company_id = ${companyId}
            and (last_reply_at is null or last_reply_at < ${at.toISOString()})`,
      );
    },
    stop() {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
export type LiveService = ReturnType<typeof liveService>;
