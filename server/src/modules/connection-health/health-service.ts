import { and, asc, desc, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  UPTIME_WINDOWS,
  type ConnectionHealth,
  type ConnectionIncident,
  type UptimeWindow,
  type WebhookEvent,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { users, whatsapps } from '../../db/schema/index.js';
import { connectionIncidents, connectionStates } from '../../db/schema/connection-health.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, noPayload, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import { safeFetch } from '../../lib/safe-fetch.js';
import type { Mailer } from '../../mail/mailer.js';
import type { StateUpdate } from '../../messaging/channel.js';
import type { ConnectionRef } from '../../messaging/session-manager.js';
import type { Events } from '../../realtime/events.js';
import { readSetting } from '../settings/setting-service.js';
import { EMAIL } from './alert-emails.js';
import { formatOutage, healthTexts } from './health-texts.js';

const DAY_MS = 86_400_000;
/** The top bar keeps a "back" notice this long after the outage ended. */
const BACK_SHOWN_MS = 3_600_000;
/** History and outages older than this are purged daily (the state a connection was in then is kept). */
export const HISTORY_DAYS = 90;
/** The connection dialog's timeline: at most this many entries (the last 30 days). */
const TIMELINE_MAX = 200;

type Incident = typeof connectionIncidents.$inferSelect;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type StateRow = Pick<typeof connectionStates.$inferSelect, 'status' | 'at'>;
type Kind = 'down' | 'back';
/** How a notice reaches people besides the admins' screens (each its own job: one failing never holds the others). */
const VIAS = ['push', 'mail', 'url', 'webhook'] as const;
type Via = (typeof VIAS)[number];

/**
 * The time in CONNECTED ÷ the time observed in [from, to): `rows` ascending, the first one may be older than
 * `from` (the state the window starts in). Time before the first row is not observed (null when none is).
 */
export function uptimeRatio(rows: StateRow[], from: Date, to: Date): number | null {
  let up = 0;
  let seen = 0;
  for (let i = 0; i < rows.length; i++) {
    const start = Math.max(rows[i]!.at.getTime(), from.getTime());
    const end = Math.min(rows[i + 1]?.at.getTime() ?? to.getTime(), to.getTime());
    if (end <= start) continue;
    seen += end - start;
    if (rows[i]!.status === 'CONNECTED') up += end - start;
  }
  return seen > 0 ? up / seen : null;
}

/**
 * #33.1 and #33.2 (docs/connection-health.md): a connection's state history, its uptime, and the alerts of an
 * outage that lasts longer than the company's `connectionAlertMinutes` — told once per outage, and once when it
 * ends, through durable jobs claimed with conditional UPDATEs (several processes, restarts: still once).
 */
export function connectionHealthService(deps: {
  db: Db;
  events: Events;
  jobs: JobQueue;
  clock: Clock;
  mailer: Mailer;
  notifyUsers(
    companyId: number,
    userIds: number[],
    payload: { title: string; body: string; url: string; tag?: string },
  ): Promise<void>;
  webhook(companyId: number, event: WebhookEvent, data: unknown, lane: string | null): Promise<void>;
  allowPrivateUrls: boolean;
  publicUrl: string;
  log: { warn(o: object, m: string): void; info(o: object, m: string): void };
}) {
  const { db, events, jobs, clock } = deps;

  const connectionOf = async (id: number) => {
    const [c] = await db
      .select({
        id: whatsapps.id,
        name: whatsapps.name,
        channel: whatsapps.channel,
        status: whatsapps.status,
      })
      .from(whatsapps)
      .where(eq(whatsapps.id, id));
    return c;
  };

  const outageSeconds = (i: Incident, now = clock.now()) =>
    Math.max(0, Math.round(((i.endedAt ?? now).getTime() - i.startedAt.getTime()) / 1000));

  const incidentView = (i: Incident, name: string): ConnectionIncident => ({
    id: i.id,
    whatsappId: i.whatsappId,
    name,
    status: i.status,
    reason: i.reason,
    startedAt: i.startedAt.toISOString(),
    alertedAt: i.alertedAt?.toISOString() ?? null,
    endedAt: i.endedAt?.toISOString() ?? null,
    seconds: outageSeconds(i),
  });

  /** The `connection.updated` webhook's data. */
  const webhookData = (
    c: { id: number; name: string; channel: string },
    s: { status: string; previousStatus: string | null; reason: string | null; at: Date },
    alert: Kind | null,
    incident: Incident | null,
  ) => ({
    connection: { id: c.id, name: c.name, channel: c.channel },
    status: s.status,
    previousStatus: s.previousStatus,
    reason: s.reason,
    at: s.at.toISOString(),
    alert,
    outageSeconds: incident && alert ? outageSeconds(incident) : null,
    incidentId: incident?.id ?? null,
  });

  /**
   * The connection is CONNECTED in its row but its outage is still open: its return was stored and not (yet)
   * recorded here (the listener is about to, or its process died in between). Records it now, under the
   * connection's row lock the listener takes too (so it finds CONNECTED recorded and adds nothing), and ends
   * the outage untold instead of alerting about a connection that is up.
   */
  async function returnedUnrecorded(tx: Tx, incidentId: number, now: Date) {
    const [i] = await tx.select().from(connectionIncidents).where(eq(connectionIncidents.id, incidentId));
    if (!i || i.endedAt) return false;
    const [c] = await tx
      .select({ status: whatsapps.status })
      .from(whatsapps)
      .where(eq(whatsapps.id, i.whatsappId))
      .for('update');
    if (c?.status !== 'CONNECTED') return false;
    const [last] = await tx
      .select({ status: connectionStates.status })
      .from(connectionStates)
      .where(eq(connectionStates.whatsappId, i.whatsappId))
      .orderBy(desc(connectionStates.at), desc(connectionStates.id))
      .limit(1);
    if (last?.status !== 'CONNECTED')
      await tx
        .insert(connectionStates)
        .values({ companyId: i.companyId, whatsappId: i.whatsappId, status: 'CONNECTED', at: now });
    await tx
      .update(connectionIncidents)
      .set({ endedAt: now })
      .where(and(eq(connectionIncidents.id, incidentId), isNull(connectionIncidents.endedAt)));
    return true;
  }

  /** One notice of one incident by one way (push, mail, external URL, webhook); retried on its own. */
  const notifyJob = defineJob({
    kind: 'connection-health.notify',
    payload: z.object({ incidentId: z.number().int(), kind: z.enum(['down', 'back']), via: z.enum(VIAS) }),
    options: { maxAttempts: 5, retryDelayMs: 30_000 },
    handler: async ({ payload: p }) => {
      const [incident] = await db
        .select()
        .from(connectionIncidents)
        .where(eq(connectionIncidents.id, p.incidentId));
      const c = incident && (await connectionOf(incident.whatsappId));
      if (!incident || !c) return;
      await deliver(p.via, p.kind, incident, c);
    },
  });

  /**
   * The outage lasted the threshold ('down') or ended after it was told ('back'): claims the incident's notice
   * (once, whatever runs it how often), queues each way of telling in the same transaction, then the screens.
   */
  const alertJob = defineJob({
    kind: 'connection-health.alert',
    payload: z.object({ incidentId: z.number().int(), kind: z.enum(['down', 'back']) }),
    handler: async ({ payload: p }) => {
      const now = clock.now();
      const claimed = await db.transaction(async (tx) => {
        if (p.kind === 'down' && (await returnedUnrecorded(tx, p.incidentId, now))) return undefined;
        const [i] =
          p.kind === 'down'
            ? await tx
                .update(connectionIncidents)
                .set({ alertedAt: now })
                .where(
                  and(
                    eq(connectionIncidents.id, p.incidentId),
                    isNull(connectionIncidents.endedAt),
                    isNull(connectionIncidents.alertedAt),
                  ),
                )
                .returning()
            : await tx
                .update(connectionIncidents)
                .set({ backAt: now })
                .where(
                  and(
                    eq(connectionIncidents.id, p.incidentId),
                    isNotNull(connectionIncidents.alertedAt),
                    isNotNull(connectionIncidents.endedAt),
                    isNull(connectionIncidents.backAt),
                  ),
                )
                .returning();
        if (!i) return undefined;
        for (const via of VIAS)
          await jobs.schedule(
            notifyJob,
            {
              key: `${p.kind}:${via}:${i.id}`,
              runAt: now,
              payload: { incidentId: i.id, kind: p.kind, via },
              companyId: i.companyId,
            },
            tx,
          );
        return i;
      });
      if (!claimed) return;
      const c = await connectionOf(claimed.whatsappId);
      deps.log.info(
        { whatsappId: claimed.whatsappId, incidentId: claimed.id, kind: p.kind },
        'connection alert',
      );
      events.toAdmins(claimed.companyId, 'connectionAlert', {
        action: p.kind,
        alert: incidentView(claimed, c?.name ?? ''),
      });
    },
  });

  async function admins(companyId: number) {
    return db
      .select({ id: users.id, email: users.email, language: users.language })
      .from(users)
      .where(and(eq(users.companyId, companyId), eq(users.profile, 'admin')));
  }

  async function deliver(
    via: Via,
    kind: Kind,
    i: Incident,
    c: { id: number; name: string; channel: string; status: string },
  ) {
    const duration = formatOutage(outageSeconds(i));
    const say = (language: string | null) => {
      const t = healthTexts(language);
      return kind === 'down'
        ? { title: t.downTitle(c.name), body: t.downBody(duration, i.status) }
        : { title: t.backTitle(c.name), body: t.backBody(duration) };
    };
    const link = `${deps.publicUrl.replace(/\/$/, '')}/connections?health=${c.id}`;
    if (via === 'push') {
      const byLanguage = new Map<string, number[]>();
      for (const a of await admins(i.companyId))
        byLanguage.set(a.language, [...(byLanguage.get(a.language) ?? []), a.id]);
      for (const [language, ids] of byLanguage)
        await deps.notifyUsers(i.companyId, ids, {
          ...say(language),
          url: `/connections?health=${c.id}`,
          tag: `connection-${c.id}`,
        });
    } else if (via === 'mail') {
      const companyLanguage = await readSetting(db, i.companyId, 'language');
      const extra = (await readSetting(db, i.companyId, 'connectionAlertEmails'))
        .split(/[\s,;]+/)
        .filter((e) => EMAIL.test(e));
      const recipients = new Map<string, string>();
      for (const a of await admins(i.companyId)) recipients.set(a.email.toLowerCase(), a.language);
      for (const e of extra)
        if (!recipients.has(e.toLowerCase())) recipients.set(e.toLowerCase(), companyLanguage);
      for (const [to, language] of recipients) {
        const { title, body } = say(language);
        await deps.mailer.send({
          to,
          subject: title,
          text: `${body}\n\n${healthTexts(language).mailFooter(link)}\n`,
        });
      }
    } else if (via === 'url') {
      const url = (await readSetting(db, i.companyId, 'connectionAlertUrl')).trim();
      if (!url) return;
      const res = await safeFetch(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            id: `${i.id}:${kind}`,
            event: 'connection.alert',
            alert: kind,
            companyId: i.companyId,
            connection: { id: c.id, name: c.name, channel: c.channel },
            status: kind === 'back' ? 'CONNECTED' : i.status,
            reason: i.reason,
            startedAt: i.startedAt.toISOString(),
            endedAt: i.endedAt?.toISOString() ?? null,
            outageSeconds: outageSeconds(i),
            text: say(await readSetting(db, i.companyId, 'language')).body,
          }),
        },
        { allowPrivate: deps.allowPrivateUrls, timeoutMs: 10_000, maxBytes: 64 * 1024, maxRedirects: 0 },
      );
      // Anything but a 2xx is tried again (the job's retries); the body says which notice it is (`id`).
      if (!res.ok) throw new Error(`alert URL answered ${res.status}`);
    } else {
      await deps.webhook(
        i.companyId,
        'connection.updated',
        webhookData(
          c,
          {
            status: kind === 'back' ? 'CONNECTED' : c.status,
            previousStatus: null,
            reason: i.reason,
            at: kind === 'back' ? (i.endedAt ?? clock.now()) : (i.alertedAt ?? clock.now()),
          },
          kind,
          i,
        ),
        `connection:${c.id}`,
      );
    }
  }

  /** Minutes of the company's threshold (connectionAlertMinutes, default 2). */
  async function thresholdMinutes(companyId: number) {
    const n = Number(await readSetting(db, companyId, 'connectionAlertMinutes'));
    return Number.isFinite(n) && n >= 1 ? n : 2;
  }

  /**
   * A state the channel reported (the `connection.state` listener): a change of status becomes a history row;
   * leaving CONNECTED opens an outage and schedules its check; coming back closes it (and queues its "back"
   * notice when it was told). One transaction with the connection's row locked, so two reports of one
   * connection cannot open two outages.
   */
  async function recordState(ref: ConnectionRef, state: StateUpdate, at: Date) {
    const minutes = await thresholdMinutes(ref.companyId);
    const reason = state.data?.reason ?? null;
    const detail = state.data?.detail ?? null;
    const done = await db.transaction(async (tx) => {
      const [c] = await tx
        .select({ id: whatsapps.id, name: whatsapps.name, channel: whatsapps.channel })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, ref.id), eq(whatsapps.companyId, ref.companyId)))
        .for('update');
      if (!c) return undefined;
      const [last] = await tx
        .select({ status: connectionStates.status })
        .from(connectionStates)
        .where(eq(connectionStates.whatsappId, ref.id))
        .orderBy(desc(connectionStates.at), desc(connectionStates.id))
        .limit(1);
      if (last?.status === state.status) return undefined;
      await tx
        .insert(connectionStates)
        .values({ companyId: ref.companyId, whatsappId: ref.id, status: state.status, reason, detail, at });
      let ended: Incident | undefined;
      if (state.status !== 'CONNECTED' && last?.status === 'CONNECTED') {
        const [opened] = await tx
          .insert(connectionIncidents)
          .values({
            companyId: ref.companyId,
            whatsappId: ref.id,
            status: state.status,
            reason,
            startedAt: at,
          })
          .onConflictDoNothing()
          .returning();
        if (opened)
          await jobs.schedule(
            alertJob,
            {
              key: `down:${opened.id}`,
              runAt: new Date(at.getTime() + minutes * 60_000),
              payload: { incidentId: opened.id, kind: 'down' },
              companyId: ref.companyId,
            },
            tx,
          );
      } else if (state.status === 'CONNECTED') {
        [ended] = await tx
          .update(connectionIncidents)
          .set({ endedAt: at })
          .where(and(eq(connectionIncidents.whatsappId, ref.id), isNull(connectionIncidents.endedAt)))
          .returning();
        if (ended?.alertedAt)
          await jobs.schedule(
            alertJob,
            {
              key: `back:${ended.id}`,
              runAt: at,
              payload: { incidentId: ended.id, kind: 'back' },
              companyId: ref.companyId,
            },
            tx,
          );
      }
      return { c, previous: last?.status ?? null, ended };
    });
    if (!done) return;
    // A blip shorter than the threshold: its check has nothing to do; drop it.
    if (done.ended && !done.ended.alertedAt) await jobs.cancel(alertJob, `down:${done.ended.id}`);
    await deps
      .webhook(
        ref.companyId,
        'connection.updated',
        webhookData(done.c, { status: state.status, previousStatus: done.previous, reason, at }, null, null),
        `connection:${ref.id}`,
      )
      .catch((err) => deps.log.warn({ err, whatsappId: ref.id }, 'connection.updated not queued'));
  }

  /** A connection's states from `from` on, with the one it was in at `from`; ascending. */
  async function statesSince(whatsappId: number, from: Date) {
    return db
      .select()
      .from(connectionStates)
      .where(
        and(
          eq(connectionStates.whatsappId, whatsappId),
          sql`${connectionStates.at} >= coalesce((select max(p.at) from connection_states p
                where p.whatsapp_id = ${whatsappId} and p.at <= ${from}), ${from})`,
        ),
      )
      .orderBy(asc(connectionStates.at), asc(connectionStates.id));
  }

  /**
   * Daily: states older than HISTORY_DAYS go, but the last one before the cut stays (the state the history
   * starts in); ended outages older than the cut go too. Idempotent.
   */
  async function purge() {
    const cut = new Date(clock.now().getTime() - HISTORY_DAYS * DAY_MS);
    await db.execute(sql`delete from connection_states s where s.at < ${cut}
      and exists (select 1 from connection_states n where n.whatsapp_id = s.whatsapp_id
        and n.at <= ${cut} and (n.at > s.at or (n.at = s.at and n.id > s.id)))`);
    await db.execute(sql`delete from connection_incidents where ended_at is not null and ended_at < ${cut}`);
  }
  const purgeJob = defineJob({
    kind: 'connection-health.purge',
    payload: noPayload,
    options: { every: DAY_MS },
    handler: () => purge(),
  });

  const windowStart = (now: Date, w: UptimeWindow) => new Date(now.getTime() - UPTIME_WINDOWS[w] * DAY_MS);

  return {
    jobs: { alertJob, notifyJob, purgeJob },
    recordState,
    purge,

    /** GET /whatsapp/{id}/health (admins of its company; another company's id is a 404). */
    async health(t: Tenant, id: number): Promise<ConnectionHealth> {
      const [c] = await db
        .select({ id: whatsapps.id, name: whatsapps.name, status: whatsapps.status })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, id), eq(whatsapps.companyId, t.companyId)));
      if (!c) throw new AppError('ERR_NO_WAPP_FOUND', 404);
      const now = clock.now();
      const rows = await statesSince(id, windowStart(now, '30d'));
      const timeline = rows
        .map((r, i) => {
          const until = rows[i + 1]?.at ?? null;
          return {
            id: r.id,
            status: r.status,
            reason: r.reason,
            detail: r.detail,
            at: r.at.toISOString(),
            until: until?.toISOString() ?? null,
            seconds: Math.max(0, Math.round(((until ?? now).getTime() - r.at.getTime()) / 1000)),
          };
        })
        .reverse()
        .slice(0, TIMELINE_MAX);
      const incidents = await db
        .select()
        .from(connectionIncidents)
        .where(
          and(
            eq(connectionIncidents.whatsappId, id),
            eq(connectionIncidents.companyId, t.companyId),
            gt(connectionIncidents.startedAt, windowStart(now, '30d')),
          ),
        )
        .orderBy(desc(connectionIncidents.startedAt))
        .limit(50);
      return {
        whatsappId: id,
        status: c.status,
        uptime: {
          '7d': uptimeRatio(rows, windowStart(now, '7d'), now),
          '30d': uptimeRatio(rows, windowStart(now, '30d'), now),
        },
        alertMinutes: await thresholdMinutes(t.companyId),
        timeline,
        incidents: incidents.map((i) => incidentView(i, c.name)),
      };
    },

    /** GET /connection-alerts: outages told and still lasting, and those that ended in the last hour. */
    async alerts(t: Tenant) {
      const now = clock.now();
      const rows = await db
        .select({ i: connectionIncidents, name: whatsapps.name })
        .from(connectionIncidents)
        .innerJoin(whatsapps, eq(whatsapps.id, connectionIncidents.whatsappId))
        .where(
          and(
            eq(connectionIncidents.companyId, t.companyId),
            isNotNull(connectionIncidents.alertedAt),
            or(
              isNull(connectionIncidents.endedAt),
              gt(connectionIncidents.endedAt, new Date(now.getTime() - BACK_SHOWN_MS)),
            ),
          ),
        )
        .orderBy(desc(connectionIncidents.startedAt))
        .limit(50);
      return { alerts: rows.map((r) => incidentView(r.i, r.name)) };
    },

    /** Every connection's uptime ratio per window (`/metrics`, all companies). */
    async uptimeAll(): Promise<
      { whatsappId: number; companyId: number; window: UptimeWindow; ratio: number }[]
    > {
      const now = clock.now();
      const from = windowStart(now, '30d');
      const rows = await db
        .select({
          whatsappId: connectionStates.whatsappId,
          companyId: connectionStates.companyId,
          status: connectionStates.status,
          at: connectionStates.at,
        })
        .from(connectionStates)
        .where(
          sql`${connectionStates.at} >= coalesce((select max(p.at) from connection_states p
                where p.whatsapp_id = ${connectionStates.whatsappId} and p.at <= ${from}), ${from})`,
        )
        .orderBy(asc(connectionStates.whatsappId), asc(connectionStates.at), asc(connectionStates.id));
      const byConnection = new Map<number, typeof rows>();
      for (const r of rows) {
        let list = byConnection.get(r.whatsappId);
        if (!list) byConnection.set(r.whatsappId, (list = []));
        list.push(r);
      }
      const out: { whatsappId: number; companyId: number; window: UptimeWindow; ratio: number }[] = [];
      for (const [whatsappId, list] of byConnection)
        for (const w of Object.keys(UPTIME_WINDOWS) as UptimeWindow[]) {
          const ratio = uptimeRatio(list, windowStart(now, w), now);
          if (ratio !== null) out.push({ whatsappId, companyId: list[0]!.companyId, window: w, ratio });
        }
      return out;
    },
  };
}
export type ConnectionHealthService = ReturnType<typeof connectionHealthService>;
