import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WebhookInput,
  type Webhook,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  type WebhookEvent,
  type WebhookPayload,
  type WebhookSecret,
  type WebhookUpdate,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { messages, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import type { MediaStore } from '../../messaging/media-store.js';
import { mimeOf } from '../../http/uploads.js';
import { mediaLinks } from './media-link.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Clock } from '../../lib/clock.js';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import { assertPublicUrl, safeFetch } from '../../lib/safe-fetch.js';
import { truncate } from '../../lib/text.js';
import { signatureHeaders } from '../../lib/webhook-signature.js';

type Row = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export const WEBHOOK_JOB = 'webhook.deliver';
/** First retry after a minute, doubled each time, at most a day apart (docs/webhooks.md). */
export const FIRST_RETRY_MS = 60_000;
export const MAX_RETRY_MS = 24 * 3600_000;
/** After this long failing without one success, the webhook is switched off and the admins told. */
export const DISABLE_AFTER_MS = 24 * 3600_000;
/** Attempts of one delivery (1 + 12 retries: about 1 min → 1 day apart, some 3 days in all). */
export const MAX_ATTEMPTS = 13;
/**
 * A failing delivery holds the later ones of its lane (its contact) for this many attempts (1 + 1, 2, 4, 8
 * minutes: about a quarter of an hour); then it steps aside — its own retries go on, out of order — and the
 * lane moves on, so one event a receiver keeps refusing cannot hold a conversation for days.
 */
export const HOLD_ATTEMPTS = 5;
/** Deliveries one run of a lane makes before it gives its place back (it runs again at once). */
const LANE_BATCH = 50;
const TIMEOUT_MS = 10_000;
const PAGE_SIZE = 20;
/** Subscriptions are read for every event: kept in memory a few seconds, forgotten on every change. */
const CACHE_MS = 5_000;

export const retryDelayMs = (attempts: number) =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);

/** An event as the listener recorded it, in the order it happened. */
export interface Occurred {
  event: WebhookEvent;
  data: unknown;
  occurredAt: Date;
  /** Its order lane (`contact:<id>`: one contact's events go in order), or null. */
  lane: string | null;
  /** The outbox event it comes from (docs/events.md "The outbox"): queued once per webhook, however often replayed. */
  outboxId?: string;
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/**
 * Outgoing webhooks (docs/webhooks.md): admins choose a URL and events; each event becomes a delivery row
 * (the log) and a durable job that POSTs the signed JSON body, retried with exponential back-off.
 */
export function webhookService(deps: {
  db: Db;
  events: Events;
  box: SecretBox;
  clock: Clock;
  jobs: JobQueue;
  log: { warn(o: object, m: string): void; info?(o: object, m: string): void };
  allowPrivateUrls: boolean;
  /** The files of `message.created` events, read by the signed link's route. */
  media?: MediaStore;
  /** Signs those links (a key derived for that use alone) and makes them absolute. */
  appSecret?: string;
  publicUrl?: string;
}) {
  const { db, events, box, clock } = deps;
  const links = mediaLinks({
    appSecret: deps.appSecret ?? 'x'.repeat(32),
    publicUrl: deps.publicUrl ?? '',
    clock,
  });
  const subscriptions = new Map<number, { at: number; rows: Row[] }>();

  const view = (r: Row): Webhook => ({
    id: r.id,
    name: r.name,
    url: r.url,
    events: r.events as WebhookEvent[],
    enabled: r.enabled,
    failingSince: r.failingSince?.toISOString() ?? null,
    disabledReason: r.disabledReason,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  });

  const deliveryView = (d: DeliveryRow): WebhookDelivery => ({
    id: d.id,
    webhookId: d.webhookId,
    event: d.event as WebhookEvent,
    status: d.status as WebhookDelivery['status'],
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    body: d.body,
  });

  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_WEBHOOK_FOUND', 404);
    return r;
  }

  const checkUrl = (url: string) =>
    assertPublicUrl(url, { allowPrivate: deps.allowPrivateUrls, allowQuery: true, field: 'url' });

  function changed(companyId: number, action: 'create' | 'update' | 'delete', r: Row) {
    subscriptions.delete(companyId);
    events.toAdmins(
      companyId,
      'webhook',
      action === 'delete' ? { action, webhookId: r.id } : { action, webhook: view(r) },
    );
  }

  async function subscribed(companyId: number, event: WebhookEvent): Promise<Row[]> {
    let hit = subscriptions.get(companyId);
    if (!hit || Date.now() - hit.at > CACHE_MS) {
      const rows = await db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.companyId, companyId), eq(webhooks.enabled, true)));
      hit = { at: Date.now(), rows };
      subscriptions.set(companyId, hit);
    }
    return hit.rows.filter((r) => r.events.includes(event));
  }

  const deliverJob = defineJob({
    kind: WEBHOOK_JOB,
    // A lane (`webhookId` + `lane`: its deliveries in order) or one delivery on its own (`deliveryId`).
    payload: z.object({
      deliveryId: z.number().int().positive().optional(),
      webhookId: z.number().int().positive().optional(),
      lane: z.string().max(100).optional(),
    }),
    handler: async ({ payload: p }) => {
      if (p.webhookId && p.lane) await drainLane(p.webhookId, p.lane);
      else if (p.deliveryId) await attempt(p.deliveryId);
    },
    // Retries are this module's own (back-off up to a day); a crash mid-attempt is retried by the queue.
    // Beside the other jobs, eight at a time: a slow endpoint waits its 10 s there, not in every queue.
    // The job's key makes a lane run in one place at a time, across processes: that is its order.
    options: { maxAttempts: 3, leaseMs: 60_000, concurrency: 8 },
  });

  const schedule = (d: Pick<DeliveryRow, 'id' | 'companyId'>, runAt: Date, executor?: unknown) =>
    deps.jobs.schedule(
      deliverJob,
      { key: `delivery:${d.id}`, runAt, payload: { deliveryId: d.id }, companyId: d.companyId },
      executor,
    );

  const scheduleLane = (
    l: { companyId: number; webhookId: number; lane: string },
    runAt: Date,
    executor?: unknown,
  ) =>
    deps.jobs.schedule(
      deliverJob,
      {
        key: `lane:${l.webhookId}:${l.lane}`,
        runAt,
        payload: { webhookId: l.webhookId, lane: l.lane },
        companyId: l.companyId,
      },
      executor,
    );

  /**
   * A lane's pending deliveries, oldest event first, one at a time: each waits until the one before it was
   * delivered, failed for good or stepped aside (HOLD_ATTEMPTS). A retry not yet due ends the run, which comes
   * back at that time; the lane's later deliveries wait for it meanwhile.
   */
  async function drainLane(webhookId: number, lane: string): Promise<void> {
    let companyId: number | null = null;
    for (let done = 0; done < LANE_BATCH; done++) {
      const [d] = await db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.webhookId, webhookId),
            eq(webhookDeliveries.lane, lane),
            eq(webhookDeliveries.status, 'pending'),
          ),
        )
        .orderBy(asc(webhookDeliveries.sequence), asc(webhookDeliveries.id))
        .limit(1);
      if (!d) return;
      companyId = d.companyId;
      if (d.nextAttemptAt && d.nextAttemptAt > clock.now()) {
        await scheduleLane({ companyId: d.companyId, webhookId, lane }, d.nextAttemptAt);
        return;
      }
      const next = await post(d);
      if (!next) continue; // delivered, or failed for good: the lane goes on
      if (d.attempts + 1 < HOLD_ATTEMPTS) {
        await scheduleLane({ companyId: d.companyId, webhookId, lane }, next);
        return;
      }
      // Held its lane long enough: it steps aside (its own retries, out of order) and the lane goes on.
      await db
        .update(webhookDeliveries)
        .set({ lane: null })
        .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, 'pending')));
      await schedule(d, next);
    }
    // A long lane gives its place back between batches (other companies' lanes get their turn).
    if (companyId !== null) await scheduleLane({ companyId, webhookId, lane }, clock.now());
  }

  /** One delivery on its own (no lane, a re-send, or one that stepped aside). */
  async function attempt(deliveryId: number): Promise<void> {
    const [d] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    if (!d || d.status !== 'pending') return;
    const next = await post(d);
    if (next) await schedule(d, next);
  }

  /**
   * One POST of one delivery; records the outcome. Answers when to try again (null: delivered, or failed for
   * good); the caller schedules it.
   */
  async function post(d: DeliveryRow): Promise<Date | null> {
    const [w] = await db.select().from(webhooks).where(eq(webhooks.id, d.webhookId));
    if (!w) return null;
    const now = clock.now();
    if (!w.enabled) {
      await db
        .update(webhookDeliveries)
        .set({ status: 'failed', lastError: 'webhook disabled', nextAttemptAt: null })
        .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, 'pending')));
      return null;
    }
    let statusCode: number | null = null;
    let error = '';
    try {
      const secret = box.open(w.secretSealed);
      const res = await safeFetch(
        w.url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Recado-Webhooks/1',
            // The timestamp is inside the signature (a replay with a fresh timestamp fails).
            ...signatureHeaders(secret, d.body, now),
            [WEBHOOK_EVENT_HEADER]: d.event,
            [WEBHOOK_DELIVERY_HEADER]: String(d.id),
          },
          body: d.body,
        },
        { allowPrivate: deps.allowPrivateUrls, timeoutMs: TIMEOUT_MS, maxBytes: 64 * 1024, maxRedirects: 0 },
      );
      statusCode = res.status;
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      error = truncate(err instanceof Error ? err.message : String(err), 300) || 'failed';
    }
    const attempts = d.attempts + 1;
    const at = clock.now();
    if (!error) {
      await db
        .update(webhookDeliveries)
        .set({
          status: 'delivered',
          attempts,
          lastStatusCode: statusCode,
          lastError: '',
          lastAttemptAt: at,
          deliveredAt: at,
          nextAttemptAt: null,
        })
        .where(eq(webhookDeliveries.id, d.id));
      if (w.failingSince) {
        await db.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, w.id));
        subscriptions.delete(w.companyId);
      }
      return null;
    }
    const failingSince = w.failingSince ?? at;
    const disable = at.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS;
    const giveUp = disable || attempts >= MAX_ATTEMPTS;
    const next = giveUp ? null : new Date(at.getTime() + retryDelayMs(attempts));
    await db
      .update(webhookDeliveries)
      .set({
        status: giveUp ? 'failed' : 'pending',
        attempts,
        lastStatusCode: statusCode,
        lastError: error,
        lastAttemptAt: at,
        nextAttemptAt: next,
      })
      .where(eq(webhookDeliveries.id, d.id));
    if (!w.failingSince)
      await db
        .update(webhooks)
        .set({ failingSince })
        .where(and(eq(webhooks.id, w.id), sql`${webhooks.failingSince} is null`));
    if (disable) {
      const [off] = await db
        .update(webhooks)
        .set({
          enabled: false,
          disabledReason: `Failing since ${failingSince.toISOString()}: ${error}`,
          updatedAt: at,
        })
        .where(and(eq(webhooks.id, w.id), eq(webhooks.enabled, true)))
        .returning();
      if (off) {
        deps.log.warn(
          { webhookId: w.id, companyId: w.companyId },
          'webhook disabled after a day of failures',
        );
        // The admins' notice: the settings tab shows it, and a toast comes with this event.
        changed(w.companyId, 'update', off);
      }
    }
    return next;
  }

  /**
   * Queues events, in the order they happened, for every enabled webhook of the company subscribed to them
   * (the listener calls this). One transaction: the company's sequence moves by one per event wanted (one
   * statement, its row lock orders concurrent callers, across processes), the delivery rows, and one job per
   * lane (or per delivery without one).
   */
  async function enqueueMany(companyId: number, occurred: Occurred[]): Promise<void> {
    const wanted: { item: Occurred; targets: Row[] }[] = [];
    for (const item of occurred) {
      const targets = await subscribed(companyId, item.event);
      if (targets.length) wanted.push({ item, targets });
    }
    if (!wanted.length) return;
    const now = clock.now();
    await db.transaction(async (tx) => {
      const [seq] = await executeRows<{ last: number | string }>(
        tx as unknown as Db,
        sql`insert into webhook_sequences (company_id, last) values (${companyId}, ${wanted.length})
          on conflict (company_id) do update set last = webhook_sequences.last + ${wanted.length}
          returning last`,
      );
      let sequence = Number(seq!.last) - wanted.length;
      const values: (typeof webhookDeliveries.$inferInsert)[] = [];
      for (const { item, targets } of wanted) {
        sequence++;
        for (const w of targets) {
          const payload: WebhookPayload = {
            id: randomUUID(),
            event: item.event,
            companyId,
            sequence,
            occurredAt: item.occurredAt.toISOString(),
            createdAt: now.toISOString(),
            data: item.data,
          };
          values.push({
            companyId,
            webhookId: w.id,
            event: item.event,
            body: JSON.stringify(payload),
            nextAttemptAt: now,
            sequence,
            lane: item.lane,
            outboxId: item.outboxId ?? null,
          });
        }
      }
      // A replayed event already queued (webhook_deliveries_outbox_uq) adds nothing: its sequence number stays unused.
      const rows = await tx.insert(webhookDeliveries).values(values).onConflictDoNothing().returning({
        id: webhookDeliveries.id,
        companyId: webhookDeliveries.companyId,
        webhookId: webhookDeliveries.webhookId,
        lane: webhookDeliveries.lane,
      });
      const lanes = new Set<string>();
      for (const r of rows) {
        if (!r.lane) await schedule(r, now, tx);
        else if (!lanes.has(`${r.webhookId}:${r.lane}`)) {
          lanes.add(`${r.webhookId}:${r.lane}`);
          await scheduleLane({ companyId, webhookId: r.webhookId, lane: r.lane }, now, tx);
        }
      }
    });
  }

  return {
    jobs: { deliver: deliverJob },

    enqueueMany,
    /** The listener's clock (an event's time) and log. */
    now: () => clock.now(),
    warn: (o: object, m: string) => deps.log.warn(o, m),

    /** One event now (tests, and callers outside the bus): `enqueueMany` with one. */
    enqueue(companyId: number, event: WebhookEvent, data: unknown, lane: string | null = null) {
      return enqueueMany(companyId, [{ event, data, occurredAt: clock.now(), lane }]);
    },

    /** A `message.created` file's link: signed, expiring, for the receiver to download without a token. */
    mediaLink: (messageId: number) => links.link(messageId),

    /** GET /api/webhook-media/{id}: the file behind a signed link, once its signature and expiry check out. */
    async mediaFile(messageId: number, expires: number, signature: string) {
      const verdict = links.check(messageId, expires, signature);
      if (verdict === 'invalid') throw new AppError('ERR_MEDIA_LINK_INVALID', 403, 'Invalid link');
      if (verdict === 'expired') throw new AppError('ERR_MEDIA_LINK_EXPIRED', 410, 'This link has expired');
      const [m] = await db.select().from(messages).where(eq(messages.id, messageId));
      if (!m?.mediaUrl || m.isDeleted || !deps.media?.belongsTo(m.mediaUrl, m.companyId))
        throw new AppError('ERR_NOT_FOUND', 404, 'File not found');
      const filename = m.mediaName ?? 'file';
      return {
        filename,
        type: mimeOf(filename, m.mediaType === 'image' ? 'image/jpeg' : undefined),
        data: await deps.media.read(m.mediaUrl),
      };
    },

    async list(t: Tenant): Promise<Webhook[]> {
      const rows = await db
        .select()
        .from(webhooks)
        .where(eq(webhooks.companyId, t.companyId))
        .orderBy(webhooks.id);
      return rows.map(view);
    },

    async get(t: Tenant, id: number): Promise<Webhook> {
      return view(await row(t.companyId, id));
    },

    /** Answers the webhook and its secret (shown once here; later only on request). */
    async create(t: Tenant, raw: WebhookInput): Promise<Webhook & WebhookSecret> {
      const input = WebhookInput.parse(raw);
      checkUrl(input.url);
      const secret = newSecret();
      const [r] = await db
        .insert(webhooks)
        .values({
          companyId: t.companyId,
          name: input.name,
          url: input.url,
          events: [...new Set(input.events)],
          enabled: input.enabled,
          secretSealed: box.seal(secret),
        })
        .returning();
      changed(t.companyId, 'create', r!);
      return { ...view(r!), secret };
    },

    async update(t: Tenant, id: number, input: WebhookUpdate): Promise<Webhook> {
      await row(t.companyId, id);
      if (input.url !== undefined) checkUrl(input.url);
      const [r] = await db
        .update(webhooks)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
          // Switching it on again starts a new count of failures.
          ...(input.enabled !== undefined
            ? { enabled: input.enabled, disabledReason: '', ...(input.enabled ? { failingSince: null } : {}) }
            : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(webhooks.id, id), eq(webhooks.companyId, t.companyId)))
        .returning();
      changed(t.companyId, 'update', r!);
      return view(r!);
    },

    async remove(t: Tenant, id: number) {
      const r = await row(t.companyId, id);
      await db.delete(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.companyId, t.companyId)));
      changed(t.companyId, 'delete', r);
      return { message: 'Webhook deleted' };
    },

    async revealSecret(t: Tenant, id: number): Promise<WebhookSecret> {
      return { secret: box.open((await row(t.companyId, id)).secretSealed) };
    },

    async regenerateSecret(t: Tenant, id: number): Promise<WebhookSecret> {
      await row(t.companyId, id);
      const secret = newSecret();
      await db
        .update(webhooks)
        .set({ secretSealed: box.seal(secret), updatedAt: new Date() })
        .where(and(eq(webhooks.id, id), eq(webhooks.companyId, t.companyId)));
      return { secret };
    },

    async deliveries(t: Tenant, id: number, pageNumber: number): Promise<WebhookDeliveryPage> {
      await row(t.companyId, id);
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhookId, id), eq(webhookDeliveries.companyId, t.companyId)))
        .orderBy(desc(webhookDeliveries.id))
        .limit(PAGE_SIZE + 1)
        .offset((pageNumber - 1) * PAGE_SIZE);
      return { deliveries: rows.slice(0, PAGE_SIZE).map(deliveryView), hasMore: rows.length > PAGE_SIZE };
    },

    /** Sends a delivery again now (the same body, a new signature and timestamp). */
    async resend(t: Tenant, id: number, deliveryId: number): Promise<WebhookDelivery> {
      await row(t.companyId, id);
      const now = clock.now();
      // On its own (out of its lane): a re-send is asked for now, whatever else of its lane is waiting.
      const [d] = await db
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now, lane: null })
        .where(
          and(
            eq(webhookDeliveries.id, deliveryId),
            eq(webhookDeliveries.webhookId, id),
            eq(webhookDeliveries.companyId, t.companyId),
          ),
        )
        .returning();
      if (!d) throw new AppError('ERR_NOT_FOUND', 404, 'Delivery not found');
      await schedule(d, now);
      return deliveryView(d);
    },

    /** Tests and the re-send button: one attempt now. */
    attempt,
  };
}
export type WebhookService = ReturnType<typeof webhookService>;
