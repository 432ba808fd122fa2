import { sql, type SQL } from 'drizzle-orm';
import {
  CHANNEL_KINDS,
  PRESENCES,
  SETTING_DEFAULTS,
  SOURCE_TRACKING_LIMIT,
  type ClosingStats,
  type DashboardCounters,
  type DashboardQuery,
  type DashboardRangeQuery,
  type DurationStat,
  type Presence,
  type SourceTrackingList,
  type TicketsPerChannel,
  type TicketsPerDay,
  type TicketsPerUser,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import type { Tenant } from '../../http/tenant.js';
import type { Clock } from '../../lib/clock.js';
import { readSetting } from '../settings/setting-service.js';
import { canonicalTimeZone } from '../settings/setting-service.js';

/**
 * The dashboard (docs/metrics.md): every figure is one SQL aggregate over one company's tickets in a
 * range of local days, read through the period indexes of the tickets table. The exact definitions are in
 * docs/metrics.md; keep the two in step.
 */

/** A user is shown online while a socket of theirs is connected and has reported within this time. */
export const ONLINE_GRACE_MINUTES = 11;
/** GET /dashboard/export answers at most this many tickets. */
export const EXPORT_LIMIT = 100_000;

interface Period {
  from: string;
  to: string;
  timeZone: string;
  queueId?: number;
  whatsappId?: number;
  /** #34.4 Only the tickets of this channel's connections (of the company `companyId`). */
  channel?: string;
  companyId: number;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
/** A local day `n` days after (before, when negative) `d`. */
const shiftDay = (d: string, n: number) => day(new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000));
/** Days from `from` to `to`, both included. */
const spanDays = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

/** Today in the zone, as YYYY-MM-DD. */
export function localToday(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function dashboardService({ db, clock }: { db: Db; clock: Clock }) {
  async function timeZoneOf(companyId: number): Promise<string> {
    const tz = await readSetting(db, companyId, 'timezone');
    return canonicalTimeZone(tz) ?? SETTING_DEFAULTS.timezone;
  }

  async function periodOf(t: Tenant, q: DashboardQuery): Promise<Period> {
    const timeZone = await timeZoneOf(t.companyId);
    const filters = {
      queueId: q.queueId,
      whatsappId: q.whatsappId,
      channel: q.channel,
      companyId: t.companyId,
    };
    if (q.date_from && q.date_to) return { from: q.date_from, to: q.date_to, timeZone, ...filters };
    const to = localToday(clock.now(), timeZone);
    const from = day(new Date(Date.parse(`${to}T00:00:00Z`) - ((q.days ?? 1) - 1) * 86_400_000));
    return { from, to, timeZone, ...filters };
  }

  async function rangeOf(t: Tenant, q: DashboardRangeQuery): Promise<Period> {
    return {
      from: q.initialDate,
      to: q.finalDate,
      timeZone: await timeZoneOf(t.companyId),
      queueId: q.queueId,
      whatsappId: q.whatsappId,
      channel: q.channel,
      companyId: t.companyId,
    };
  }

  /** [lo, hi): local midnight of the first day to local midnight after the last, as instants. */
  const bounds = (p: Period) => ({
    lo: sql`((${p.from}::date)::timestamp at time zone ${p.timeZone})`,
    hi: sql`((${p.to}::date + 1)::timestamp at time zone ${p.timeZone})`,
  });
  /** The queue, connection and channel filters, on the tickets aliased `alias`. */
  const queueFilter = (p: Period, alias: string): SQL =>
    sql`${p.queueId ? sql`and ${sql.raw(alias)}.queue_id = ${p.queueId}` : sql``} ${
      p.whatsappId ? sql`and ${sql.raw(alias)}.whatsapp_id = ${p.whatsappId}` : sql``
    } ${
      // #34.4 The channel's connections of the company (a handful of ids): no join per ticket.
      p.channel
        ? sql`and ${sql.raw(alias)}.whatsapp_id in (select w.id from whatsapps w
            where w.company_id = ${p.companyId} and w.channel = ${p.channel})`
        : sql``
    }`;

  /** Minutes between two timestamps, as seconds / 60. */
  const stat = (name: string, expr: string) =>
    sql.raw(`round((avg(${expr}) / 60)::numeric, 1) as ${name}_avg,
      round((percentile_cont(0.5) within group (order by ${expr}) / 60)::numeric, 1) as ${name}_median,
      count(${expr}) as ${name}_count`);
  const statOf = (r: Record<string, unknown>, name: string): DurationStat => ({
    avg: numOrNull(r[`${name}_avg`]),
    median: numOrNull(r[`${name}_median`]),
    count: num(r[`${name}_count`]),
  });

  /** When a ticket starts waiting for a person: its creation, or the bot's hand-off when a bot talked first. */
  const waitStart = (until: string) =>
    `greatest(t.created_at, case when b.started_at is null then t.created_at
      else least(coalesce(b.ended_at, ${until}), ${until}) end)`;

  /**
   * The figures of one period. `full` adds what only the period asked for shows: the counts of now (open,
   * pending) and the attendants table; the previous period (the comparison) reads the period figures alone.
   */
  async function figures(c: number, p: Period, full: boolean) {
    const { lo, hi } = bounds(p);
    const closed = sql`closed as (select t.id, t.user_id, t.created_at, t.accepted_at, t.closed_at from tickets t
            where t.company_id = ${c} and t.closed_at is not null and t.closed_at >= ${lo} and t.closed_at < ${hi}
              and t.status = 'closed' ${queueFilter(p, 't')})`;
    const rated = sql`rated as (select r.user_id, r.rate from closed
            join user_ratings r on r.ticket_id = closed.id and r.company_id = ${c})`;
    /** The mean and median wait until `col` (acceptance or first response), over tickets with it in the period. */
    const waitStat = (col: string) =>
      sql`select row_to_json(x) as stat from (select ${stat('v', 's')} from (
            select date_part('epoch', t.${sql.raw(col)} - ${sql.raw(waitStart(`t.${col}`))}) as s
            from tickets t left join ticket_bot_states b on b.ticket_id = t.id and b.company_id = ${c}
            where t.company_id = ${c} and t.${sql.raw(col)} is not null and t.${sql.raw(col)} >= ${lo}
              and t.${sql.raw(col)} < ${hi} ${queueFilter(p, 't')}) w) x`;
    const one = async (query: SQL) => (await executeRows<Record<string, unknown>>(db, query))[0] ?? {};
    // Four statements on four pool connections at once (each reads its own range of one index): on
    // PostgreSQL they run on separate backends in parallel; PGlite runs them one after the other.
    const [r, waitRow, responseRow] = await Promise.all([
      one(sql`with ${closed},
          durations as (select
              case when accepted_at is not null and accepted_at <= closed_at
                then date_part('epoch', closed_at - accepted_at) end as support,
              date_part('epoch', closed_at - created_at) as resolution
            from closed)
        select
          ${
            full
              ? sql`(select count(*) from tickets t where t.company_id = ${c} and t.status = 'open' ${queueFilter(p, 't')}) as happening,
          (select count(*) from tickets t where t.company_id = ${c} and t.status = 'pending' ${queueFilter(p, 't')}) as pending,`
              : sql``
          }
          (select row_to_json(x) from (select count(*) as finished,
            ${stat('support', 'support')}, ${stat('resolution', 'resolution')} from durations) x) as closed_stats`),
      one(waitStat('accepted_at')),
      one(waitStat('first_response_at')),
      one(sql`with ${closed},
          per_user as (select user_id, count(*) as tickets,
              round((avg(case when accepted_at is not null and accepted_at <= closed_at
                then date_part('epoch', closed_at - accepted_at) end) / 60)::numeric, 1) as support
            from closed group by user_id),
          ${rated}
        select
          (select row_to_json(x) from (select round(avg(rate)::numeric, 2) as avg, count(*) as n from rated) x) as csat
          ${
            full
              ? sql`, (select coalesce(json_agg(a order by a.name, a.id), '[]'::json) from (
            select u.id, u.name, coalesce(pu.tickets, 0) as tickets, pu.support, coalesce(rt.rating, 0) as rating,
              coalesce(rt.n, 0) as ratings,
              (u.online and u.last_seen_at > now() - ${`${ONLINE_GRACE_MINUTES} minutes`}::interval) as online,
              u.presence
            from users u
              left join per_user pu on pu.user_id = u.id
              left join (select user_id, round(avg(rate)::numeric, 2) as rating, count(*) as n
                from rated group by user_id) rt on rt.user_id = u.id
            where u.company_id = ${c}) a) as attendants`
              : sql``
          }`),
    ]).then(([a, w, f, u]) => [{ ...a, ...u }, w, f] as const);
    const row = r;
    const part = (k: Record<string, unknown>) => statOf((k.stat ?? {}) as Record<string, unknown>, 'v');
    const closedStats = (row.closed_stats ?? {}) as Record<string, unknown>;
    const finished = num(closedStats.finished);
    const csatRow = (row.csat ?? {}) as { avg?: unknown; n?: unknown };
    const ratings = num(csatRow.n);
    const attendants = (row.attendants ?? []) as Record<string, unknown>[];

    const wait = part(waitRow);
    const support = statOf(closedStats, 'support');
    return {
      period: { from: p.from, to: p.to, timeZone: p.timeZone },
      supportHappening: num(row.happening),
      supportPending: num(row.pending),
      supportFinished: finished,
      avgWaitTime: wait.avg,
      avgSupportTime: support.avg,
      waitTime: wait,
      supportTime: support,
      firstResponseTime: part(responseRow),
      resolutionTime: statOf(closedStats, 'resolution'),
      csat: {
        avg: ratings ? numOrNull(csatRow.avg) : null,
        ratings,
        responseRate: finished ? Math.round((ratings / finished) * 1000) / 1000 : null,
      },
      attendants: attendants.map((a) => ({
        id: num(a.id),
        name: String(a.name),
        tickets: num(a.tickets),
        rating: num(a.rating),
        ratings: num(a.ratings),
        avgSupportTime: numOrNull(a.support),
        online: Boolean(a.online),
        presence: PRESENCES.includes(a.presence as Presence) ? (a.presence as Presence) : 'offline',
      })),
    };
  }

  return {
    async counters(t: Tenant, q: DashboardQuery): Promise<DashboardCounters> {
      const p = await periodOf(t, q);
      // The comparison: the period of the same length that ends the day before this one starts.
      const length = spanDays(p.from, p.to);
      const prev = { ...p, from: shiftDay(p.from, -length), to: shiftDay(p.from, -1) };
      const [now, before] = await Promise.all([
        figures(t.companyId, p, true),
        figures(t.companyId, prev, false),
      ]);
      const { supportFinished, waitTime, supportTime, firstResponseTime, resolutionTime, csat } = before;
      return {
        ...now,
        previous: {
          period: { from: prev.from, to: prev.to },
          supportFinished,
          waitTime,
          supportTime,
          firstResponseTime,
          resolutionTime,
          csat,
        },
      };
    },

    /** Tickets closed in the period, per attendant at the close (null: closed with nobody on it). */
    async ticketsUsers(t: Tenant, q: DashboardRangeQuery): Promise<TicketsPerUser[]> {
      const p = await rangeOf(t, q);
      const { lo, hi } = bounds(p);
      const rows = await executeRows<Record<string, unknown>>(
        db,
        sql`select t.user_id, u.name, count(*) as total from tickets t
          left join users u on u.id = t.user_id and u.company_id = t.company_id
          where t.company_id = ${t.companyId} and t.closed_at is not null and t.closed_at >= ${lo}
            and t.closed_at < ${hi} and t.status = 'closed' ${queueFilter(p, 't')}
          group by t.user_id, u.name
          order by total desc, u.name nulls last`,
      );
      return rows.map((r) => ({
        userId: r.user_id === null ? null : num(r.user_id),
        name: (r.name as string | null) ?? null,
        total: num(r.total),
      }));
    },

    /**
     * #32.3 Tickets closed in the period (closed now, by their closedAt) by closing reason and by attendant at
     * the close: how many and the sum of their sale values (docs/metrics.md "Closing reasons").
     */
    async closingStats(t: Tenant, q: DashboardRangeQuery): Promise<ClosingStats> {
      const p = await rangeOf(t, q);
      const { lo, hi } = bounds(p);
      const closed = sql`t.company_id = ${t.companyId} and t.closed_at is not null and t.closed_at >= ${lo}
        and t.closed_at < ${hi} and t.status = 'closed' ${queueFilter(p, 't')}`;
      const [byReason, byAttendant] = await Promise.all([
        executeRows<Record<string, unknown>>(
          db,
          sql`select t.closing_reason_id as id, r.name, count(*) as n, coalesce(sum(t.sale_value), 0) as v
            from tickets t left join closing_reasons r on r.id = t.closing_reason_id and r.company_id = t.company_id
            where ${closed} group by t.closing_reason_id, r.name order by n desc, r.name nulls last`,
        ),
        executeRows<Record<string, unknown>>(
          db,
          sql`select t.user_id as id, u.name, count(*) as n, coalesce(sum(t.sale_value), 0) as v
            from tickets t left join users u on u.id = t.user_id and u.company_id = t.company_id
            where ${closed} group by t.user_id, u.name order by n desc, u.name nulls last`,
        ),
      ]);
      const line = (r: Record<string, unknown>) => ({
        id: r.id === null ? null : num(r.id),
        name: (r.name as string | null) ?? null,
        count: num(r.n),
        saleValue: num(r.v),
      });
      const reasons = byReason.map(line);
      return {
        byReason: reasons,
        byAttendant: byAttendant.map(line),
        total: {
          count: reasons.reduce((s, r) => s + r.count, 0),
          saleValue: Math.round(reasons.reduce((s, r) => s + r.saleValue, 0) * 100) / 100,
        },
      };
    },

    /**
     * #34.4 Per channel: tickets created in the period, closed in it (closed now, by their last close), and
     * open or pending now. Each count reads its own index range and groups the company's few connections.
     */
    async ticketsChannel(t: Tenant, q: DashboardRangeQuery): Promise<TicketsPerChannel[]> {
      const p = await rangeOf(t, q);
      const { lo, hi } = bounds(p);
      const c = t.companyId;
      const rows = await executeRows<Record<string, unknown>>(
        db,
        sql`with counted as (
            select t.whatsapp_id, count(*) as created, 0 as closed, 0 as active from tickets t
              where t.company_id = ${c} and t.created_at >= ${lo} and t.created_at < ${hi} ${queueFilter(p, 't')}
              group by t.whatsapp_id
            union all
            select t.whatsapp_id, 0, count(*), 0 from tickets t
              where t.company_id = ${c} and t.closed_at is not null and t.closed_at >= ${lo} and t.closed_at < ${hi}
                and t.status = 'closed' ${queueFilter(p, 't')}
              group by t.whatsapp_id
            union all
            select t.whatsapp_id, 0, 0, count(*) from tickets t
              where t.company_id = ${c} and t.status in ('open', 'pending') ${queueFilter(p, 't')}
              group by t.whatsapp_id)
          select w.channel, sum(k.created) as created, sum(k.closed) as closed, sum(k.active) as active
          from counted k left join whatsapps w on w.id = k.whatsapp_id and w.company_id = ${c}
          group by w.channel
          order by sum(k.created) + sum(k.active) desc, w.channel nulls last`,
      );
      return rows.map((r) => ({
        channel: (CHANNEL_KINDS as readonly string[]).includes(String(r.channel))
          ? (r.channel as TicketsPerChannel['channel'])
          : null,
        created: num(r.created),
        closed: num(r.closed),
        active: num(r.active),
      }));
    },

    /** Tickets created and closed on each local day of the period (every day listed, zeros included). */
    async ticketsDay(t: Tenant, q: DashboardRangeQuery): Promise<TicketsPerDay[]> {
      const p = await rangeOf(t, q);
      const tz = p.timeZone;
      const c = t.companyId;
      const rows = await executeRows<Record<string, unknown>>(
        db,
        // Each local day's bounds once, then two index range counts per day (no per-ticket zone conversion).
        sql`select to_char(days.d, 'YYYY-MM-DD') as date,
            (select count(*) from tickets t where t.company_id = ${c} and t.created_at >= days.lo
              and t.created_at < days.hi ${queueFilter(p, 't')}) as created,
            (select count(*) from tickets t where t.company_id = ${c} and t.closed_at is not null
              and t.closed_at >= days.lo and t.closed_at < days.hi and t.status = 'closed' ${queueFilter(p, 't')}) as closed
          from (select d, (d::timestamp at time zone ${tz}) as lo, ((d + 1)::timestamp at time zone ${tz}) as hi
            from (select generate_series(${p.from}::date, ${p.to}::date, interval '1 day')::date as d) g) days
          order by days.d`,
      );
      return rows.map((r) => ({ date: String(r.date), created: num(r.created), closed: num(r.closed) }));
    },

    /**
     * GET /dashboard/export: the tickets behind the period's figures (created, accepted, first answered or
     * closed in it), one CSV row each, times in the company's zone. Semicolon-separated like the contacts
     * export; a cell that a spreadsheet would run as a formula is quoted with a leading apostrophe.
     */
    async exportCsv(t: Tenant, q: DashboardRangeQuery): Promise<{ filename: string; csv: string }> {
      const p = await rangeOf(t, q);
      const { lo, hi } = bounds(p);
      const c = t.companyId;
      const tz = p.timeZone;
      const local = (col: string) =>
        sql`to_char(${sql.raw(col)} at time zone ${tz}, 'YYYY-MM-DD HH24:MI:SS')`;
      const rows = await executeRows<Record<string, string | number | null>>(
        db,
        sql`select t.id, t.protocol, ct.name as contact, ct.number, q.name as queue, u.name as attendant, t.status,
            ${local('t.created_at')} as created, ${local('t.accepted_at')} as accepted,
            ${local('t.first_response_at')} as first_response, ${local('t.closed_at')} as closed, r.rate,
            cr.name as closing_reason, t.sale_value
          from tickets t
            left join closing_reasons cr on cr.id = t.closing_reason_id
            join contacts ct on ct.id = t.contact_id
            left join queues q on q.id = t.queue_id
            left join users u on u.id = t.user_id
            left join user_ratings r on r.ticket_id = t.id
          where t.company_id = ${c} ${queueFilter(p, 't')} and (
            (t.created_at >= ${lo} and t.created_at < ${hi})
            or (t.accepted_at >= ${lo} and t.accepted_at < ${hi})
            or (t.first_response_at >= ${lo} and t.first_response_at < ${hi})
            or (t.closed_at >= ${lo} and t.closed_at < ${hi}))
          order by t.id
          limit ${EXPORT_LIMIT}`,
      );
      const cell = (v: unknown) => {
        let text = v === null || v === undefined ? '' : String(v);
        if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
        return /[";\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
      };
      const header = [
        'id',
        'contact',
        'number',
        'queue',
        'attendant',
        'status',
        'created',
        'accepted',
        'firstResponse',
        'closed',
        'rating',
        'protocol',
        'closingReason',
        'saleValue',
      ];
      const lines = rows.map((r) =>
        [
          r.id,
          r.contact,
          r.number,
          r.queue,
          r.attendant,
          r.status,
          r.created,
          r.accepted,
          r.first_response,
          r.closed,
          r.rate,
          r.protocol,
          r.closing_reason,
          r.sale_value,
        ]
          .map(cell)
          .join(';'),
      );
      return {
        filename: `atendimentos-${p.from}-${p.to}.csv`,
        csv: [header.join(';'), ...lines].join('\r\n') + '\r\n',
      };
    },

    /** The ads and tracked links tickets came through in the period, newest first. */
    async sourceTracking(t: Tenant, q: DashboardRangeQuery): Promise<SourceTrackingList> {
      const p = await rangeOf(t, q);
      const { lo, hi } = bounds(p);
      const c = t.companyId;
      const where = sql`s.company_id = ${c} and s.created_at >= ${lo} and s.created_at < ${hi}
        ${p.queueId || p.whatsappId || p.channel ? sql`and exists (select 1 from tickets t where t.id = s.ticket_id ${queueFilter(p, 't')})` : sql``}`;
      const [count] = await executeRows<{ n: unknown }>(
        db,
        sql`select count(*) as n from ticket_source_tracking s where ${where}`,
      );
      const rows = await executeRows<Record<string, unknown>>(
        db,
        sql`select s.id, s.uuid, s.ticket_id, s.campaign, s.source, s.medium, s.metadata->>'sourceUrl' as url,
            s.created_at from ticket_source_tracking s where ${where}
          order by s.created_at desc, s.id desc limit ${SOURCE_TRACKING_LIMIT}`,
      );
      return {
        count: num(count?.n),
        records: rows.map((r) => ({
          id: num(r.id),
          uuid: String(r.uuid),
          ticketId: num(r.ticket_id),
          campaign: String(r.campaign),
          source: String(r.source),
          medium: String(r.medium),
          sourceUrl: (r.url as string | null) ?? null,
          createdAt: new Date(r.created_at as string).toISOString(),
        })),
      };
    },
  };
}
export type DashboardService = ReturnType<typeof dashboardService>;
