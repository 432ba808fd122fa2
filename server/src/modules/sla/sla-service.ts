import { z } from 'zod';
import { and, desc, eq, gte, inArray, ne, sql } from 'drizzle-orm';
import {
  SLA_KINDS,
  SLA_PRIORITIES,
  SETTING_DEFAULTS,
  type DashboardRangeQuery,
  type DaySchedule,
  type SlaAchievement,
  type SlaBreach,
  type SlaKind,
  type SlaPolicy,
  SlaPolicyInput,
  type SlaPolicyUpdate,
  type TicketView,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import {
  companies,
  contacts,
  queues,
  slaOutcomes,
  slaPolicies,
  tickets,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Clock } from '../../lib/clock.js';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import type { DomainBus } from '../../events/domain-events.js';
import type { Events } from '../../realtime/events.js';
import { ticketEventRooms } from '../../realtime/room-policy.js';
import { executeRows, preparedQuery } from '../../db/rows.js';
import { ttlCache } from '../../lib/ttl-cache.js';
import { canonicalTimeZone, readSettings } from '../settings/setting-service.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import { addBusinessTime, businessTimeBetween } from './business-time.js';
import {
  duesOf,
  dueOf,
  onAgentReply,
  onCustomerMessage,
  syncState,
  type AddTime,
  type ClockEnd,
  type Measure,
  type Targets,
} from './sla-state.js';
import { slaTexts } from './sla-texts.js';

type PolicyRow = typeof slaPolicies.$inferSelect;
type TicketRow = typeof tickets.$inferSelect;
type PolicyInput = z.output<typeof SlaPolicyInput>;

/** What happened to a ticket, as the listener hands it over. */
export type SlaEvent = { type: 'sync' } | { type: 'customer' } | { type: 'agent'; userId: number };

const DUE_COLUMN = {
  first_response: 'firstResponseDueAt',
  next_response: 'nextResponseDueAt',
  resolution: 'resolutionDueAt',
} as const satisfies Record<SlaKind, keyof TicketRow>;

const priorityNumber = (p: (typeof SLA_PRIORITIES)[number]) => SLA_PRIORITIES.indexOf(p);

export const policyView = (r: PolicyRow): SlaPolicy => ({
  id: r.id,
  name: r.name,
  firstResponseMinutes: r.firstResponseMinutes,
  nextResponseMinutes: r.nextResponseMinutes,
  resolutionMinutes: r.resolutionMinutes,
  businessHours: r.businessHours,
  queueIds: r.queueIds,
  priorities: r.priorities.map((p) => SLA_PRIORITIES[p] ?? 'normal'),
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/**
 * The policy that applies to a ticket (docs/metrics.md "SLA", precedence): among the policies whose queues
 * include the ticket's queue (or name none) and whose priorities include its priority (or name none), the most
 * specific — queue and priority named, then queue only, then priority only, then neither — and among equals
 * the oldest (lowest id). A ticket without a queue has none.
 */
export function policyFor(policies: PolicyRow[], queueId: number | null, priority: number): PolicyRow | null {
  if (queueId === null) return null;
  const rank = (p: PolicyRow) => (p.queueIds.length ? 2 : 0) + (p.priorities.length ? 1 : 0);
  const matching = policies.filter(
    (p) =>
      (!p.queueIds.length || p.queueIds.includes(queueId)) &&
      (!p.priorities.length || p.priorities.includes(priority)),
  );
  matching.sort((a, b) => rank(b) - rank(a) || a.id - b.id);
  return matching[0] ?? null;
}

const targetsOf = (p: PolicyRow | null): Targets | null =>
  p
    ? {
        first_response: p.firstResponseMinutes,
        next_response: p.nextResponseMinutes,
        resolution: p.resolutionMinutes,
      }
    : null;

/** The ticket the clocks sync (every customer message and announcement of a company with policies). */
const ticketRowQuery = preparedQuery((db: Db) =>
  db
    .select()
    .from(tickets)
    .where(and(eq(tickets.id, sql.placeholder('id')), eq(tickets.companyId, sql.placeholder('companyId'))))
    .prepare('sla_ticket_row'),
);

/** How long a process keeps a company's SLA policies (policiesOf). */
export const POLICY_CACHE_TTL_MS = 5_000;

const sameTime = (a: Date | null | undefined, b: Date | null | undefined) =>
  (a?.getTime() ?? null) === (b?.getTime() ?? null);

export function slaService(deps: {
  db: Db;
  events: Events;
  clock: Clock;
  jobs: Pick<JobQueue, 'schedule' | 'cancel'>;
  bus?: Pick<DomainBus, 'emit'>;
  log: { warn(o: object, m: string): void };
  notifyUsers?: (
    companyId: number,
    userIds: number[],
    payload: { title: string; body: string; url: string; tag?: string },
  ) => Promise<void>;
}) {
  const { db, events, clock, log } = deps;

  // ---- policies ------------------------------------------------------------------------------------------

  /**
   * The company's policies as the clocks use them (every customer message and ticket announcement asks), kept
   * per company for POLICY_CACHE_TTL_MS of real time. This module's writes forget the entry at once; another
   * process's are seen within the TTL, and the resync a change schedules runs again after it (resyncCompany).
   */
  const policyCache = ttlCache(POLICY_CACHE_TTL_MS, (companyId: number) =>
    db
      .select()
      .from(slaPolicies)
      .where(eq(slaPolicies.companyId, companyId))
      .then((rows): PolicyRow[] => rows),
  );
  const policiesOf = (companyId: number) => policyCache.get(companyId);
  /**
   * Whether any ticket of the company has SLA bookkeeping (kept like the policies, and forgotten with them):
   * a company without policies and without clocks has nothing to sync, so its events read no ticket.
   */
  const clockCache = ttlCache(POLICY_CACHE_TTL_MS, (companyId: number) =>
    executeRows<{ any: boolean }>(
      db,
      sql`select exists (select 1 from tickets where company_id = ${companyId} and sla_state is not null) as any`,
    ).then(([r]) => Boolean(r?.any)),
  );
  const clocksRunning = (companyId: number) => clockCache.get(companyId);
  const forgetPolicies = (companyId: number) => {
    policyCache.forget(companyId);
    clockCache.forget(companyId);
  };

  async function policyRow(t: Tenant, id: number) {
    const [r] = await db
      .select()
      .from(slaPolicies)
      .where(and(eq(slaPolicies.id, id), eq(slaPolicies.companyId, t.companyId)));
    if (!r) throw new AppError('ERR_NO_SLA_POLICY_FOUND', 404);
    return r;
  }

  /** Every queue named must be the company's: 400 naming the field otherwise (another company's = unknown). */
  async function assertQueues(companyId: number, ids: number[] | undefined) {
    const unique = [...new Set(ids ?? [])];
    if (!unique.length) return unique;
    const found = await db
      .select({ id: queues.id })
      .from(queues)
      .where(and(eq(queues.companyId, companyId), inArray(queues.id, unique)));
    if (found.length !== unique.length)
      throw new AppError('ERR_VALIDATION', 400, 'unknown queue', {
        fields: [{ path: 'queueIds', message: 'unknown queue' }],
      });
    return unique;
  }

  function noTargetError(input: { first: unknown; next: unknown; resolution: unknown }) {
    if (input.first === null && input.next === null && input.resolution === null)
      throw new AppError('ERR_VALIDATION', 400, 'set at least one target', {
        fields: [{ path: 'firstResponseMinutes', message: 'set at least one target' }],
      });
  }

  /**
   * After a policy change every open ticket of the company is re-synced (new targets, new due times) by a
   * durable job, not in the request: a company with thousands of open tickets answers the change at once,
   * and a crash mid-way runs the job again (a sync is idempotent). One job per company (keyed): changes in a
   * row while it waits make one pass.
   */
  async function resyncCompany(companyId: number) {
    forgetPolicies(companyId);
    await deps.jobs.schedule(resyncJob, { key: String(companyId), payload: { companyId }, companyId });
    // Another process's listener may apply the old policies until its cache's TTL: a second pass after it.
    await deps.jobs.schedule(resyncJob, {
      key: `${companyId}:late`,
      runAt: new Date(clock.now().getTime() + POLICY_CACHE_TTL_MS + 1_000),
      payload: { companyId },
      companyId,
    });
  }

  const RESYNC_BATCH = 200;
  const resyncJob = defineJob({
    kind: 'sla.resync',
    payload: z.object({ companyId: z.number().int() }),
    handler: async ({ payload: { companyId } }) => {
      // The policies as they are now, not as this process's cache last saw them.
      forgetPolicies(companyId);
      for (let after = 0; ;) {
        const open = await db
          .select({ id: tickets.id })
          .from(tickets)
          .where(
            and(
              eq(tickets.companyId, companyId),
              ne(tickets.status, 'closed'),
              sql`${tickets.id} > ${after}`,
            ),
          )
          .orderBy(tickets.id)
          .limit(RESYNC_BATCH);
        for (const r of open) await handle(companyId, r.id, { type: 'sync' });
        if (open.length < RESYNC_BATCH) return;
        after = open[open.length - 1]!.id;
      }
    },
    options: { leaseMs: 10 * 60_000 },
  });

  const parsedPriorities = (list: readonly (typeof SLA_PRIORITIES)[number][] | undefined) =>
    list === undefined ? undefined : [...new Set(list.map(priorityNumber))];

  // ---- the clocks ----------------------------------------------------------------------------------------

  interface Hours {
    timeZone: string;
    scheduleType: string;
    companyWeek: DaySchedule[];
  }

  /** The company's zone, schedule type and week: read only for a business-hours policy. */
  async function hoursOf(companyId: number): Promise<Hours> {
    const [settings, company] = await Promise.all([
      readSettings(db, companyId),
      db.select({ schedules: companies.schedules }).from(companies).where(eq(companies.id, companyId)),
    ]);
    const setting = (k: string) => settings.find((s) => s.key === k)?.value;
    return {
      timeZone: canonicalTimeZone(setting('timezone') ?? '') ?? SETTING_DEFAULTS.timezone,
      scheduleType: setting('scheduleType') ?? 'disabled',
      companyWeek: company[0]?.schedules ?? [],
    };
  }

  /**
   * The week a policy counts in and its zone: the queue's week with scheduleType "queue", else the company's;
   * null (calendar time) without businessHours.
   */
  async function weekFor(companyId: number, policy: PolicyRow | null, queueId: number | null) {
    if (!policy?.businessHours) return { week: null, timeZone: 'UTC' };
    const hours = await hoursOf(companyId);
    if (hours.scheduleType === 'queue' && queueId !== null) {
      const [q] = await db.select({ schedules: queues.schedules }).from(queues).where(eq(queues.id, queueId));
      if (q) return { week: q.schedules, timeZone: hours.timeZone };
    }
    return { week: hours.companyWeek, timeZone: hours.timeZone };
  }

  const dueColumns = (dues: Record<SlaKind, Date | null>) => ({
    firstResponseDueAt: dues.first_response,
    nextResponseDueAt: dues.next_response,
    resolutionDueAt: dues.resolution,
  });

  /**
   * Applies one event to a ticket's clocks and stores the result with a compare-and-set on the state (two
   * processes, or the breach job, changing it at once: the loser reads again). Schedules one breach job per
   * due time, cancels those no longer due, records met targets, and announces the ticket when what the
   * screens show changed.
   */
  async function handle(companyId: number, ticketId: number, event: SlaEvent): Promise<void> {
    const policies = await policiesOf(companyId);
    // A company without policies keeps no bookkeeping: unless clocks of earlier policies still run, nothing to read.
    if (!policies.length && !(await clocksRunning(companyId))) return;
    for (let attempt = 0; attempt < 6; attempt++) {
      const [row] = await ticketRowQuery(db).execute({ id: ticketId, companyId });
      if (!row) return;
      // A company without policies keeps no bookkeeping (a policy created later starts open tickets' clocks then).
      if (!policies.length && !row.slaState) return;
      const now = clock.now();
      const policy = policyFor(policies, row.queueId, row.priority);
      const { week, timeZone } = await weekFor(companyId, policy, row.queueId);
      const measure: Measure = (a, b) => businessTimeBetween(a, b, week, timeZone);
      const add: AddTime = (a, ms) => addBusinessTime(a, ms, week, timeZone);
      const before = row.slaState ?? null;
      const synced = syncState(
        before,
        {
          queueId: row.queueId,
          status: row.status,
          snoozed: row.snoozedAt !== null,
          replied: row.firstResponseAt !== null && event.type !== 'agent',
        },
        now,
        measure,
      );
      let state = synced.state;
      const ended: ClockEnd[] = [...synced.ended];
      if (event.type === 'customer') state = onCustomerMessage(state, now);
      if (event.type === 'agent') {
        const replied = onAgentReply(state, now, measure);
        state = replied.state;
        ended.push(...replied.ended);
      }
      if (state) state = { ...state, policyId: policy?.id ?? null };
      const targets = targetsOf(policy);
      const { dues, atRiskAt } = duesOf(state, targets, add);
      const changed =
        JSON.stringify(state) !== JSON.stringify(before) ||
        !sameTime(row.firstResponseDueAt, dues.first_response) ||
        !sameTime(row.nextResponseDueAt, dues.next_response) ||
        !sameTime(row.resolutionDueAt, dues.resolution) ||
        !sameTime(row.slaAtRiskAt, atRiskAt);
      if (!changed) return;

      // Each clock that ended with a target: met before its due time, or late (a breach not yet recorded).
      const outcomes: { kind: SlaKind; due: Date; met: boolean }[] = [];
      for (const e of ended) {
        if (e.how !== 'met' || !targets || targets[e.kind] === null || e.before.breached) continue;
        const due =
          e.before.state === 'running'
            ? dueOf(e.before, targets[e.kind], add)
            : add(now, targets[e.kind]! * 60_000 - e.before.usedMs);
        if (due) outcomes.push({ kind: e.kind, due, met: now < due });
      }
      const userId = event.type === 'agent' ? event.userId : row.userId;

      const stored = await db.transaction(async (tx) => {
        const updated = await tx
          .update(tickets)
          .set({ slaState: state, ...dueColumns(dues), slaAtRiskAt: atRiskAt })
          .where(
            and(
              eq(tickets.id, ticketId),
              before === null
                ? sql`${tickets.slaState} is null`
                : sql`${tickets.slaState} = ${JSON.stringify(before)}::jsonb`,
            ),
          )
          .returning({ id: tickets.id });
        if (!updated.length) return false;
        for (const o of outcomes.filter((x) => x.met))
          await tx
            .insert(slaOutcomes)
            .values({
              companyId,
              ticketId,
              kind: o.kind,
              outcome: 'met',
              policyId: policy?.id ?? null,
              dueAt: o.due,
              at: now,
              queueId: row.queueId,
              userId,
            })
            .onConflictDoNothing();
        for (const k of SLA_KINDS) {
          const due = dues[k];
          if (due && state && !state.clocks[k].breached)
            await deps.jobs.schedule(
              breachJob,
              {
                key: `${ticketId}:${k}`,
                runAt: due,
                companyId,
                payload: { companyId, ticketId, kind: k, dueAt: due.toISOString() },
              },
              tx,
            );
        }
        return true;
      });
      if (!stored) continue;
      for (const k of SLA_KINDS)
        if (!dues[k] || state?.clocks[k].breached)
          await deps.jobs.cancel(breachJob, `${ticketId}:${k}`).catch(() => undefined);
      for (const o of outcomes.filter((x) => !x.met))
        await breach(companyId, ticketId, o.kind, o.due, policy?.id ?? null);
      await announce(companyId, ticketId);
      return;
    }
    log.warn({ companyId, ticketId }, 'sla: the ticket kept changing; clocks not updated');
  }

  /** Sends the ticket's new view to the rooms that list it (the chip and the filters follow). */
  async function announce(companyId: number, ticketId: number): Promise<TicketView | undefined> {
    const view = await ticketQueries.byId(db, companyId, ticketId);
    if (view)
      events.toRoom(ticketEventRooms(companyId, view), companyId, 'ticket', {
        action: 'update',
        ticket: view,
      });
    return view;
  }

  // ---- breaches ------------------------------------------------------------------------------------------

  /**
   * Records a breach once per (ticket, kind, due time): the insert is the claim, so a repeated job, a second
   * process or the listener arriving at the same time never alert twice. Then: the ticket's `sla_breached`,
   * the screens, the `sla.breached` webhook, and the admins' and supervisors' top bar and push.
   */
  async function breach(
    companyId: number,
    ticketId: number,
    kind: SlaKind,
    due: Date,
    policyId: number | null,
  ): Promise<boolean> {
    const now = clock.now();
    const claimed = await db.transaction(async (tx) => {
      const [t] = await tx
        .select({ queueId: tickets.queueId, userId: tickets.userId })
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
      if (!t) return null;
      const [row] = await tx
        .insert(slaOutcomes)
        .values({
          companyId,
          ticketId,
          kind,
          outcome: 'breached',
          policyId,
          dueAt: due,
          at: now,
          queueId: t.queueId,
          userId: t.userId,
        })
        .onConflictDoNothing()
        .returning();
      if (!row) return null;
      // The alert goes out from a job queued with the claim: a crash after the commit still alerts (at
      // least once; the push tag and the webhook's event id let the receivers drop a repeat).
      await deps.jobs.schedule(
        alertJob,
        {
          key: String(row.id),
          companyId,
          payload: { companyId, outcomeId: row.id },
        },
        tx,
      );
      await tx
        .update(tickets)
        .set({
          slaBreached: sql`(select coalesce(array_agg(distinct k order by k), '{}') from unnest(${tickets.slaBreached} || array[${kind}]::text[]) k)`,
          slaState: sql`case when ${tickets.slaState} is null then null
            else jsonb_set(${tickets.slaState}, ${`{clocks,${kind},breached}`}::text[], 'true'::jsonb) end`,
        })
        .where(eq(tickets.id, ticketId));
      return row;
    });
    if (!claimed) return false;
    return true;
  }

  /** The screens, the `sla.breached` webhook, and the admins' and supervisors' top bar and push for one breach. */
  async function alert(companyId: number, outcomeId: number) {
    const [claimed] = await db
      .select()
      .from(slaOutcomes)
      .where(and(eq(slaOutcomes.id, outcomeId), eq(slaOutcomes.companyId, companyId)));
    if (!claimed) return;
    const { ticketId, policyId } = claimed;
    const kind = claimed.kind as SlaKind;
    const due = claimed.dueAt;
    const now = claimed.at;
    const view = await announce(companyId, ticketId);
    if (!view) return;
    // The alert job runs at least once: keyed on the breach, a repeat writes no second timeline entry or webhook.
    deps.bus?.emit(
      'sla.breached',
      { companyId, ticket: view, kind, policyId, dueAt: due, breachedAt: now },
      { outboxKey: `sla.breached:${outcomeId}` },
    );
    const breachView: SlaBreach = {
      id: claimed.id,
      ticketId,
      kind,
      policyId,
      dueAt: due.toISOString(),
      breachedAt: now.toISOString(),
      queueId: claimed.queueId,
      userId: claimed.userId,
      contactName: view.contact.name,
    };
    const watchers = await db
      .select({ id: users.id, language: users.language })
      .from(users)
      .where(and(eq(users.companyId, companyId), inArray(users.profile, ['admin', 'supervisor'])));
    for (const w of watchers)
      events.toUser(companyId, w.id, 'slaBreach', { action: 'create', breach: breachView });
    const byLanguage = new Map<string, number[]>();
    for (const w of watchers) byLanguage.set(w.language, [...(byLanguage.get(w.language) ?? []), w.id]);
    for (const [language, ids] of byLanguage) {
      const texts = slaTexts(language);
      await deps
        .notifyUsers?.(companyId, ids, {
          title: texts.title(texts.kinds[kind]),
          body: texts.body(view.contact.name, view.queue?.name ?? ''),
          url: `/tickets/${view.uuid}`,
          tag: `sla-${ticketId}-${kind}`,
        })
        .catch((err: unknown) => log.warn({ err, companyId }, 'sla breach push not queued'));
    }
  }

  const alertJob = defineJob({
    kind: 'sla.alert',
    payload: z.object({ companyId: z.number().int(), outcomeId: z.number().int() }),
    handler: async ({ payload: p }) => alert(p.companyId, p.outcomeId),
  });

  /**
   * One job per due time (key ticket:kind, rescheduled when the due time moves, cancelled when the clock
   * stops). It acts only if the ticket still has that due time: a met or moved target is ignored.
   */
  const breachJob = defineJob({
    kind: 'sla.breach',
    payload: z.object({
      companyId: z.number().int(),
      ticketId: z.number().int(),
      kind: z.enum(SLA_KINDS),
      dueAt: z.string(),
    }),
    handler: async ({ payload: p }) => {
      const [row] = await db
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, p.ticketId), eq(tickets.companyId, p.companyId)));
      if (!row) return;
      const due = new Date(p.dueAt);
      const current = row[DUE_COLUMN[p.kind]];
      if (!current || current.getTime() !== due.getTime()) return;
      if (clock.now() < due) return;
      await breach(p.companyId, p.ticketId, p.kind, due, row.slaState?.policyId ?? null);
    },
  });

  // ---- reports -------------------------------------------------------------------------------------------

  async function achievement(t: Tenant, q: DashboardRangeQuery): Promise<SlaAchievement> {
    const settings = await readSettings(db, t.companyId);
    const tz =
      canonicalTimeZone(settings.find((s) => s.key === 'timezone')?.value ?? '') ?? SETTING_DEFAULTS.timezone;
    // Local days of the company's zone, both included (docs/metrics.md "The period").
    const from = sql`((${q.initialDate}::date)::timestamp at time zone ${tz})`;
    const to = sql`((${q.finalDate}::date + 1)::timestamp at time zone ${tz})`;
    const rows = await executeRows<{
      queue_id: number | null;
      user_id: number | null;
      kind: SlaKind;
      met: number | string;
      breached: number | string;
    }>(
      db,
      sql`select o.queue_id, o.user_id, o.kind,
          count(*) filter (where o.outcome = 'met') as met,
          count(*) filter (where o.outcome = 'breached') as breached
        from sla_outcomes o
        where o.company_id = ${t.companyId} and o.at >= ${from} and o.at < ${to}
          ${q.queueId ? sql`and o.queue_id = ${q.queueId}` : sql``}
        group by o.queue_id, o.user_id, o.kind`,
    );
    const empty = () =>
      Object.fromEntries(
        SLA_KINDS.map((k) => [k, { met: 0, breached: 0, percent: null as number | null }]),
      ) as {
        [K in SlaKind]: { met: number; breached: number; percent: number | null };
      };
    const total = empty();
    const perQueue = new Map<number | null, ReturnType<typeof empty>>();
    const perUser = new Map<number | null, ReturnType<typeof empty>>();
    for (const r of rows) {
      for (const cells of [
        total,
        perQueue.get(r.queue_id) ?? perQueue.set(r.queue_id, empty()).get(r.queue_id)!,
        perUser.get(r.user_id) ?? perUser.set(r.user_id, empty()).get(r.user_id)!,
      ]) {
        cells[r.kind].met += Number(r.met);
        cells[r.kind].breached += Number(r.breached);
      }
    }
    const finish = (cells: ReturnType<typeof empty>) => {
      for (const k of SLA_KINDS) {
        const c = cells[k];
        const n = c.met + c.breached;
        c.percent = n ? Math.round((c.met / n) * 1000) / 10 : null;
      }
      return cells;
    };
    const queueIds = [...perQueue.keys()].filter((id): id is number => id !== null);
    const userIds = [...perUser.keys()].filter((id): id is number => id !== null);
    const queueNames = new Map(
      (queueIds.length
        ? await db
            .select({ id: queues.id, name: queues.name })
            .from(queues)
            .where(and(eq(queues.companyId, t.companyId), inArray(queues.id, queueIds)))
        : []
      ).map((r) => [r.id, r.name]),
    );
    const userNames = new Map(
      (userIds.length
        ? await db
            .select({ id: users.id, name: users.name })
            .from(users)
            .where(and(eq(users.companyId, t.companyId), inArray(users.id, userIds)))
        : []
      ).map((r) => [r.id, r.name]),
    );
    return {
      total: finish(total),
      queues: [...perQueue.entries()]
        .map(([queueId, kinds]) => ({
          queueId,
          name: queueId === null ? '' : (queueNames.get(queueId) ?? ''),
          kinds: finish(kinds),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      users: [...perUser.entries()]
        .map(([userId, kinds]) => ({
          userId,
          name: userId === null ? '' : (userNames.get(userId) ?? ''),
          kinds: finish(kinds),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  const mayWatch = (t: Tenant) => t.profile === 'admin' || t.profile === 'supervisor' || t.super;

  return {
    jobs: { breach: breachJob, alert: alertJob, resync: resyncJob },
    handle,
    breach,

    async list(t: Tenant): Promise<SlaPolicy[]> {
      const rows = await db
        .select()
        .from(slaPolicies)
        .where(eq(slaPolicies.companyId, t.companyId))
        .orderBy(slaPolicies.name, slaPolicies.id);
      return rows.map(policyView);
    },

    async get(t: Tenant, id: number) {
      return policyView(await policyRow(t, id));
    },

    async create(t: Tenant, input: PolicyInput) {
      noTargetError({
        first: input.firstResponseMinutes,
        next: input.nextResponseMinutes,
        resolution: input.resolutionMinutes,
      });
      const queueIds = await assertQueues(t.companyId, input.queueIds);
      const [row] = await db
        .insert(slaPolicies)
        .values({
          companyId: t.companyId,
          name: input.name,
          firstResponseMinutes: input.firstResponseMinutes,
          nextResponseMinutes: input.nextResponseMinutes,
          resolutionMinutes: input.resolutionMinutes,
          businessHours: input.businessHours,
          queueIds,
          priorities: parsedPriorities(input.priorities) ?? [],
        })
        .returning();
      await resyncCompany(t.companyId);
      return policyView(row!);
    },

    async update(t: Tenant, id: number, input: SlaPolicyUpdate) {
      const current = await policyRow(t, id);
      noTargetError({
        first:
          input.firstResponseMinutes === undefined
            ? current.firstResponseMinutes
            : input.firstResponseMinutes,
        next:
          input.nextResponseMinutes === undefined ? current.nextResponseMinutes : input.nextResponseMinutes,
        resolution:
          input.resolutionMinutes === undefined ? current.resolutionMinutes : input.resolutionMinutes,
      });
      const queueIds =
        input.queueIds === undefined ? undefined : await assertQueues(t.companyId, input.queueIds);
      const [row] = await db
        .update(slaPolicies)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.firstResponseMinutes !== undefined
            ? { firstResponseMinutes: input.firstResponseMinutes }
            : {}),
          ...(input.nextResponseMinutes !== undefined
            ? { nextResponseMinutes: input.nextResponseMinutes }
            : {}),
          ...(input.resolutionMinutes !== undefined ? { resolutionMinutes: input.resolutionMinutes } : {}),
          ...(input.businessHours !== undefined ? { businessHours: input.businessHours } : {}),
          ...(queueIds !== undefined ? { queueIds } : {}),
          ...(input.priorities !== undefined ? { priorities: parsedPriorities(input.priorities) } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(slaPolicies.id, id), eq(slaPolicies.companyId, t.companyId)))
        .returning();
      await resyncCompany(t.companyId);
      return policyView(row!);
    },

    async remove(t: Tenant, id: number) {
      await policyRow(t, id);
      await db.delete(slaPolicies).where(and(eq(slaPolicies.id, id), eq(slaPolicies.companyId, t.companyId)));
      await resyncCompany(t.companyId);
      return { message: 'SLA policy deleted' };
    },

    /** GET /sla-breaches: the last week's breaches on tickets still open (the top bar), admins and supervisors. */
    async breaches(t: Tenant): Promise<{ breaches: SlaBreach[] }> {
      if (!mayWatch(t)) throw new AppError('ERR_NO_PERMISSION', 403);
      const since = new Date(clock.now().getTime() - 7 * 86_400_000);
      const rows = await db
        .select({ o: slaOutcomes, contactName: contacts.name })
        .from(slaOutcomes)
        .innerJoin(tickets, eq(tickets.id, slaOutcomes.ticketId))
        .innerJoin(contacts, eq(contacts.id, tickets.contactId))
        .where(
          and(
            eq(slaOutcomes.companyId, t.companyId),
            eq(slaOutcomes.outcome, 'breached'),
            gte(slaOutcomes.at, since),
            ne(tickets.status, 'closed'),
          ),
        )
        .orderBy(desc(slaOutcomes.at), desc(slaOutcomes.id))
        .limit(50);
      return {
        breaches: rows.map(({ o, contactName }) => ({
          id: o.id,
          ticketId: o.ticketId,
          kind: o.kind as SlaKind,
          policyId: o.policyId,
          dueAt: o.dueAt.toISOString(),
          breachedAt: o.at.toISOString(),
          queueId: o.queueId,
          userId: o.userId,
          contactName,
        })),
      };
    },

    achievement,
  };
}

export type SlaService = ReturnType<typeof slaService>;
