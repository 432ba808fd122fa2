import { and, eq, sql } from 'drizzle-orm';
import { rooms, type Presence, type PresenceView } from '@recado/contracts';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { users } from '../../db/schema/index.js';
import type { DomainBus } from '../../events/domain-events.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, noPayload, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import type { Events } from '../../realtime/events.js';

/** How long a process's hold on a user lasts without renewal: a dead process's users go offline after it. */
export const PRESENCE_LEASE_MS = 60_000;
/** Renewal period of a process's holds (a third of the lease). */
export const PRESENCE_RENEW_MS = 20_000;
/** After a user's last socket closes: a reload or a short network drop within it changes nothing. */
export const PRESENCE_GRACE_MS = 20_000;
/** How often someone looks for users whose every hold expired (dead processes; the grace's safety net). */
export const PRESENCE_SWEEP_MS = 15_000;

interface Change {
  company_id: number;
  id: number;
  presence: Presence;
  previous: Presence;
  presence_at: Date | string | null;
  presence_manual: boolean;
}

const iso = (d: Date) => d.toISOString();

/**
 * #30.2 Presence (docs/routing.md "Presence"): each attendant is online, away or offline.
 *
 * - The top-bar switch sets it (`set`, manual). A chosen 'away' or 'offline' stays over reloads and activity.
 * - A socket opening makes an automatically offline or away user online; the browser reports idleness after
 *   the company's `presenceAwayMinutes` (online → away) and activity again (away → online).
 * - Offline when the user's last socket closes, after a grace period, in whichever process it was: each
 *   process holds a row in `presence_leases` per user it has sockets of, renews it (a durable per-process
 *   job) and shortens it to the grace when the user's last socket there closes. Once every row of a user has
 *   expired — the sockets closed, or their process died and stopped renewing — the user goes offline
 *   (`presence.offline` for that user at the end of the grace, and the `presence.sweep` safety net).
 *   State lives in the database, so a restart keeps it.
 *
 * Every change is one conditional UPDATE that returns the previous value; a change goes to the user's
 * browsers and the company's admins and supervisors (`company-{id}-presence`) and to the bus (`user.presence`,
 * which routing listens to).
 */
export function presenceService(deps: {
  db: Db;
  events: Events;
  bus: DomainBus;
  clock: Clock;
  jobs: JobQueue;
  graceMs?: number;
  leaseMs?: number;
}) {
  const { db, events, bus, clock, jobs } = deps;
  const graceMs = deps.graceMs ?? PRESENCE_GRACE_MS;
  const leaseMs = deps.leaseMs ?? PRESENCE_LEASE_MS;
  const me = jobs.processId;
  /** This process's open sockets per user (userId → count, companyId). */
  const local = new Map<number, { companyId: number; sockets: number }>();
  /** One user's socket openings and closings are handled in order (a quick reload closes, then opens). */
  const chains = new Map<number, Promise<void>>();
  const inOrder = (userId: number, fn: () => Promise<void>) => {
    const next = (chains.get(userId) ?? Promise.resolve()).then(fn);
    const settled = next.catch(() => undefined);
    chains.set(userId, settled);
    void settled.then(() => {
      if (chains.get(userId) === settled) chains.delete(userId);
    });
    return next;
  };
  /** crash(): this process behaves as dead from then on (tests of a killed process). */
  let dead = false;
  const at = (ms = 0) => new Date(clock.now().getTime() + ms);

  function announce(rows: Change[]) {
    for (const r of rows) {
      if (r.presence === r.previous) continue;
      const presenceAt = r.presence_at ? new Date(r.presence_at).toISOString() : null;
      const view: PresenceView = {
        userId: r.id,
        presence: r.presence,
        presenceAt,
        manual: r.presence_manual,
      };
      events.toRoom(
        [rooms.user(r.company_id, r.id), rooms.supervisors(r.company_id)],
        r.company_id,
        'presence',
        { action: 'update', presence: view, previous: r.previous },
      );
      void bus.emit('user.presence', {
        companyId: r.company_id,
        userId: r.id,
        presence: r.presence,
        previous: r.previous,
      });
    }
  }

  /**
   * One conditional change: the users matched by `where` (alias u, the row before the change as `old`) get
   * `presence`; answers the rows that changed, with their previous presence.
   */
  async function change(presence: Presence, manual: boolean, where: ReturnType<typeof sql>) {
    const rows = await executeRows<Change>(
      db,
      sql`update users u set presence = ${presence}, presence_at = ${iso(at())}, presence_manual = ${manual}
        from users old
        where old.id = u.id and ${where}
        returning u.company_id, u.id, u.presence, old.presence as previous, u.presence_at, u.presence_manual`,
    );
    announce(rows);
    return rows;
  }

  /** Users whose every hold has expired go offline (all of them, or one); their expired rows are removed. */
  async function expire(userId?: number) {
    const now = iso(at());
    const one = userId === undefined ? sql`true` : sql`l.user_id = ${userId}`;
    const rows = await change(
      'offline',
      false,
      sql`u.presence <> 'offline'
        and u.id in (select l.user_id from presence_leases l where ${one}
          group by l.user_id having max(l.expires_at) <= ${now})`,
    );
    await executeRows(
      db,
      sql`delete from presence_leases l where ${one} and l.expires_at <= ${now}
        and not exists (select 1 from presence_leases k where k.user_id = l.user_id and k.expires_at > ${now})`,
    );
    return rows;
  }

  async function hold(userId: number, companyId: number, until: Date) {
    await executeRows(
      db,
      sql`insert into presence_leases (user_id, process_id, company_id, expires_at)
        values (${userId}, ${me}, ${companyId}, ${iso(until)})
        on conflict (user_id, process_id) do update set expires_at = excluded.expires_at`,
    );
  }

  const offlineJob = defineJob({
    kind: 'presence.offline',
    payload: z.object({ userId: z.number().int() }),
    // Conditional: a user who came back (a live hold anywhere) stays as they are.
    handler: async (job) => {
      await expire(job.payload.userId);
    },
  });

  const renewJob = defineJob({
    kind: 'presence.renew',
    payload: noPayload,
    handler: async (job) => {
      // A dead process's row, taken over here, must not renew this process's holds as if they were its own;
      // its holds simply expire.
      if (job.key !== `process:${me}`) return;
      await renew();
    },
    options: { every: PRESENCE_RENEW_MS, perProcess: true },
  });

  const sweepJob = defineJob({
    kind: 'presence.sweep',
    payload: noPayload,
    handler: async () => {
      await expire();
    },
    options: { every: PRESENCE_SWEEP_MS },
  });

  /** Renews this process's holds of the users it has sockets of (and brings back one a sweep raced). */
  async function renew() {
    if (dead) return;
    const open = [...local.entries()].filter(([, v]) => v.sockets > 0);
    for (const [userId, v] of open) await hold(userId, v.companyId, at(leaseMs));
    if (open.length)
      await change(
        'online',
        false,
        sql`u.presence = 'offline' and not u.presence_manual and u.id in (${sql.join(
          open.map(([id]) => sql`${id}`),
          sql`, `,
        )})`,
      );
  }

  return {
    jobs: { offline: offlineJob, renew: renewJob, sweep: sweepJob },

    async get(t: Tenant): Promise<PresenceView> {
      const [row] = await db
        .select({
          userId: users.id,
          presence: users.presence,
          presenceAt: users.presenceAt,
          manual: users.presenceManual,
        })
        .from(users)
        .where(and(eq(users.id, t.userId), eq(users.companyId, t.companyId)));
      if (!row) throw new AppError('ERR_NOT_FOUND', 404);
      return { ...row, presenceAt: row.presenceAt?.toISOString() ?? null };
    },

    /** The top-bar switch: the user's own choice. */
    async set(t: Tenant, presence: Presence): Promise<PresenceView> {
      await change(
        presence,
        true,
        sql`u.id = ${t.userId} and u.company_id = ${t.companyId}
          and (u.presence <> ${presence} or not u.presence_manual)`,
      );
      return this.get(t);
    },

    /** A socket of the user opened in this process. */
    socketOpened: (t: Tenant) =>
      inOrder(t.userId, async () => {
        if (dead) return;
        const entry = local.get(t.userId) ?? { companyId: t.companyId, sockets: 0 };
        entry.sockets++;
        local.set(t.userId, entry);
        await hold(t.userId, t.companyId, at(leaseMs));
        await jobs.cancel(offlineJob, `user:${t.userId}`);
        await change(
          'online',
          false,
          sql`u.id = ${t.userId} and u.company_id = ${t.companyId} and u.presence <> 'online'
          and not u.presence_manual`,
        );
      }),

    /** A socket of the user closed here: with none left here, the hold lasts only the grace period. */
    socketClosed: (t: Tenant) =>
      inOrder(t.userId, async () => {
        if (dead) return;
        const entry = local.get(t.userId);
        if (entry) entry.sockets = Math.max(0, entry.sockets - 1);
        if (entry && entry.sockets > 0) return;
        local.delete(t.userId);
        const until = at(graceMs);
        await db.execute(
          sql`update presence_leases set expires_at = ${iso(until)}
          where user_id = ${t.userId} and process_id = ${me}`,
        );
        await jobs.schedule(offlineJob, {
          key: `user:${t.userId}`,
          runAt: new Date(until.getTime() + 1),
          payload: { userId: t.userId },
          companyId: t.companyId,
        });
      }),

    /** The browser saw no activity for the company's away time: an online user becomes away. */
    async idle(t: Tenant) {
      await change(
        'away',
        false,
        sql`u.id = ${t.userId} and u.company_id = ${t.companyId} and u.presence = 'online'`,
      );
    },

    /** Activity again: a user the server made away is online again (a chosen 'away' stays). */
    async active(t: Tenant) {
      await change(
        'online',
        false,
        sql`u.id = ${t.userId} and u.company_id = ${t.companyId} and u.presence = 'away'
          and not u.presence_manual`,
      );
    },

    renew,
    /** Users whose holds all expired go offline (the sweep job; tests call it). */
    expire,
    /** Test helper: behave like a killed process (forget the sockets, stop renewing; the rows stay). */
    crash() {
      dead = true;
      local.clear();
    },
  };
}
export type PresenceService = ReturnType<typeof presenceService>;
