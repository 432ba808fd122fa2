import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
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
import { webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Clock } from '../../lib/clock.js';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import { assertPublicUrl, safeFetch } from '../../lib/safe-fetch.js';
import { truncate } from '../../lib/text.js';

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
const TIMEOUT_MS = 10_000;
const PAGE_SIZE = 20;
/** Subscriptions are read for every event: kept in memory a few seconds, forgotten on every change. */
const CACHE_MS = 5_000;

export const retryDelayMs = (attempts: number) =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);

/** `sha256=<hex HMAC-SHA256 of the raw body>` (the receiver recomputes it with its secret). */
export const signBody = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

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
}) {
  const { db, events, box, clock } = deps;
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
    payload: z.object({ deliveryId: z.number().int().positive() }),
    handler: (job) => attempt(job.payload.deliveryId),
    // Retries are this module's own (back-off up to a day); a crash mid-attempt is retried by the queue.
    // Beside the other jobs, eight at a time: a slow endpoint waits its 10 s there, not in every queue.
    options: { maxAttempts: 3, leaseMs: 60_000, concurrency: 8 },
  });

  const schedule = (d: Pick<DeliveryRow, 'id' | 'companyId'>, runAt: Date, executor?: unknown) =>
    deps.jobs.schedule(
      deliverJob,
      { key: `delivery:${d.id}`, runAt, payload: { deliveryId: d.id }, companyId: d.companyId },
      executor,
    );

  /** One POST of one delivery; records the outcome and schedules the next attempt when it failed. */
  async function attempt(deliveryId: number): Promise<void> {
    const [d] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    if (!d || d.status !== 'pending') return;
    const [w] = await db.select().from(webhooks).where(eq(webhooks.id, d.webhookId));
    if (!w) return;
    const now = clock.now();
    if (!w.enabled) {
      await db
        .update(webhookDeliveries)
        .set({ status: 'failed', lastError: 'webhook disabled', nextAttemptAt: null })
        .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, 'pending')));
      return;
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
            [WEBHOOK_SIGNATURE_HEADER]: signBody(secret, d.body),
            [WEBHOOK_TIMESTAMP_HEADER]: String(Math.floor(now.getTime() / 1000)),
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
      return;
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
    if (next) await schedule(d, next);
  }

  return {
    jobs: { deliver: deliverJob },

    /** Queues `event` for every enabled webhook of the company subscribed to it (a listener calls this). */
    async enqueue(companyId: number, event: WebhookEvent, data: unknown): Promise<void> {
      const targets = await subscribed(companyId, event);
      if (!targets.length) return;
      const now = clock.now();
      await db.transaction(async (tx) => {
        for (const w of targets) {
          const payload: WebhookPayload = {
            id: randomUUID(),
            event,
            companyId,
            createdAt: now.toISOString(),
            data,
          };
          const [d] = await tx
            .insert(webhookDeliveries)
            .values({
              companyId,
              webhookId: w.id,
              event,
              body: JSON.stringify(payload),
              nextAttemptAt: now,
            })
            .returning({ id: webhookDeliveries.id, companyId: webhookDeliveries.companyId });
          await schedule(d!, now, tx);
        }
      });
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
      const [d] = await db
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now })
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
