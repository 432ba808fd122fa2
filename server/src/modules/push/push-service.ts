import { and, eq, inArray, sql } from 'drizzle-orm';
import webpush from 'web-push';
import { z } from 'zod';
import {
  canSeeTicket,
  type ChannelKindName,
  type PushPayload,
  type PushSubscriptionInput,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { pushSubscriptions, tickets, userQueues, users, contacts, whatsapps } from '../../db/schema/index.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import { assertPublicUrl, safeFetch } from '../../lib/safe-fetch.js';
import { truncate } from '../../lib/text.js';
import type { Config } from '../../config.js';
import { pushTexts } from './push-texts.js';

/** A browser keeps at most this many subscriptions per user; the oldest go first. */
const MAX_PER_USER = 10;
/** How long a push service keeps an undelivered push (seconds). */
const TTL_SECONDS = 4 * 3600;
const BODY_MAX = 140;
const SUBSCRIBER_CACHE_MS = 5000;

const Payload = z.object({
  title: z.string().max(200),
  body: z.string().max(1000),
  url: z.string().max(500),
  tag: z.string().max(100).optional(),
});

/**
 * Web Push (docs/push.md), beyond the spec: browsers subscribe per user; `notifyUsers` queues a durable job
 * that encrypts (aes128gcm) and signs (VAPID) one request per subscription and posts it through safeFetch,
 * so a push never slows the caller. A 404 or 410 from the push service removes the subscription.
 */
export function pushService(deps: {
  db: Db;
  jobs: JobQueue;
  vapid: Config['vapid'];
  allowPrivateUrls: boolean;
  log: { warn(o: object, m: string): void; debug?(o: object, m: string): void };
}) {
  const { db, jobs, vapid, log } = deps;

  /** One push to every subscription of these users (of this company). */
  async function deliver(companyId: number, userIds: number[], payload: PushPayload) {
    if (!vapid || !userIds.length) return 0;
    const subs = await db
      .select()
      .from(pushSubscriptions)
      .where(and(eq(pushSubscriptions.companyId, companyId), inArray(pushSubscriptions.userId, userIds)));
    let sent = 0;
    const body = JSON.stringify(payload);
    await Promise.all(
      subs.map(async (s) => {
        try {
          const req = webpush.generateRequestDetails(
            { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
            body,
            {
              vapidDetails: {
                subject: vapid.subject,
                publicKey: vapid.publicKey,
                privateKey: vapid.privateKey,
              },
              TTL: TTL_SECONDS,
              contentEncoding: 'aes128gcm',
              urgency: 'high',
              ...(payload.tag ? { topic: payload.tag.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) } : {}),
            },
          );
          const res = await safeFetch(
            req.endpoint,
            {
              method: req.method,
              headers: req.headers as Record<string, string>,
              body: req.body ?? undefined,
            },
            { allowPrivate: deps.allowPrivateUrls, timeoutMs: 10_000, maxBytes: 64 * 1024, maxRedirects: 0 },
          );
          if (res.status === 404 || res.status === 410) {
            // The browser unsubscribed or the subscription expired: never try it again.
            await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, s.id));
          } else if (res.ok) sent++;
          else log.warn({ status: res.status, subscription: s.id }, 'push service refused a push');
        } catch (err) {
          log.warn(
            { err: err instanceof Error ? err.message : String(err), subscription: s.id },
            'push failed',
          );
        }
      }),
    );
    return sent;
  }

  const sendJob = defineJob({
    kind: 'push.send',
    payload: z.object({
      companyId: z.number().int(),
      userIds: z.array(z.number().int()).max(10_000),
      payload: Payload,
    }),
    // At most once in practice: a retry would repeat the pushes that did go out.
    options: { maxAttempts: 1 },
    handler: async (job) => {
      await deliver(job.payload.companyId, job.payload.userIds, job.payload.payload);
    },
  });

  /**
   * A customer's message on a ticket: the attendant of an open ticket, or (pending) every subscribed user
   * who may see it by the visibility rule (contracts/visibility.ts).
   */
  const ticketJob = defineJob({
    kind: 'push.ticket',
    payload: z.object({
      companyId: z.number().int(),
      ticketId: z.number().int(),
      body: z.string().max(1000),
    }),
    options: { maxAttempts: 1 },
    handler: async ({ payload: p }) => {
      const [t] = await db
        .select({
          ticket: tickets,
          contactName: contacts.name,
          contactNumber: contacts.number,
          channel: whatsapps.channel,
        })
        .from(tickets)
        .innerJoin(contacts, eq(contacts.id, tickets.contactId))
        .leftJoin(whatsapps, and(eq(whatsapps.id, tickets.whatsappId), eq(whatsapps.companyId, p.companyId)))
        .where(and(eq(tickets.id, p.ticketId), eq(tickets.companyId, p.companyId)));
      if (!t || (t.ticket.status !== 'pending' && t.ticket.status !== 'open')) return;
      // A customer an automation is answering waits for nobody yet (docs/automation.md).
      if (t.ticket.status === 'pending' && t.ticket.useIntegration) return;
      const subscribed = await db
        .selectDistinct({
          id: users.id,
          profile: users.profile,
          super: users.super,
          allTicket: users.allTicket,
          showQueuelessTickets: users.showQueuelessTickets,
          language: users.language,
        })
        .from(pushSubscriptions)
        .innerJoin(users, eq(users.id, pushSubscriptions.userId))
        .where(eq(pushSubscriptions.companyId, p.companyId));
      if (!subscribed.length) return;
      const queues = await db
        .select({ userId: userQueues.userId, queueId: userQueues.queueId })
        .from(userQueues)
        .where(
          inArray(
            userQueues.userId,
            subscribed.map((u) => u.id),
          ),
        );
      const recipients = subscribed.filter((u) =>
        t.ticket.status === 'open'
          ? t.ticket.userId === u.id
          : canSeeTicket(
              {
                userId: u.id,
                profile: u.profile,
                super: u.super,
                allTicket: u.allTicket,
                showQueuelessTickets: u.showQueuelessTickets,
                queueIds: queues.filter((q) => q.userId === u.id).map((q) => q.queueId),
              },
              t.ticket,
            ),
      );
      const byLanguage = new Map<string, number[]>();
      for (const u of recipients) byLanguage.set(u.language, [...(byLanguage.get(u.language) ?? []), u.id]);
      const who = t.contactName || t.contactNumber;
      for (const [language, ids] of byLanguage) {
        const texts = pushTexts(language);
        // #34.4 The push names the channel the customer wrote on ("Cliente aguardando: Maria · Telegram").
        const on = t.channel ? ` · ${texts.channels[t.channel as ChannelKindName] ?? t.channel}` : '';
        await deliver(p.companyId, ids, {
          title:
            t.ticket.status === 'pending' ? `${texts.waiting}: ${who}${on}` : `${texts.message}: ${who}${on}`,
          body: truncate(p.body || texts.media, BODY_MAX),
          url: `/tickets/${t.ticket.uuid}`,
          tag: `ticket-${t.ticket.id}`,
        });
      }
    },
  });

  /**
   * Whether anyone of the company could receive a push (listeners skip the job otherwise). Remembered for a
   * few seconds, so a burst of inbound messages costs one look-up; a subscription made in another process
   * counts from the next look-up.
   */
  const known = new Map<number, { value: boolean; at: number }>();
  async function anySubscriber(companyId: number) {
    if (!vapid) return false;
    const hit = known.get(companyId);
    if (hit && Date.now() - hit.at < SUBSCRIBER_CACHE_MS) return hit.value;
    const [row] = await db
      .select({ one: sql<number>`1` })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.companyId, companyId))
      .limit(1);
    if (known.size > 10_000) known.clear();
    known.set(companyId, { value: Boolean(row), at: Date.now() });
    return Boolean(row);
  }

  return {
    jobs: { sendJob, ticketJob },
    publicKey: () => ({ publicKey: vapid?.publicKey ?? null }),

    /**
     * Saves the caller's subscription of a browser. Scoped by user: an endpoint another user already has
     * (of this company or another) stays theirs, and the caller gets a row of its own — never moved, so
     * posting someone else's endpoint takes nothing over (docs/push.md).
     */
    async subscribe(t: Tenant, input: PushSubscriptionInput) {
      assertPublicUrl(input.endpoint, { allowPrivate: deps.allowPrivateUrls, field: 'endpoint' });
      known.delete(t.companyId);
      await db
        .insert(pushSubscriptions)
        .values({
          companyId: t.companyId,
          userId: t.userId,
          endpoint: input.endpoint,
          p256dh: input.keys.p256dh,
          auth: input.keys.auth,
        })
        .onConflictDoUpdate({
          target: [pushSubscriptions.userId, pushSubscriptions.endpoint],
          set: {
            p256dh: input.keys.p256dh,
            auth: input.keys.auth,
            updatedAt: new Date(),
          },
        });
      await db.execute(sql`delete from ${pushSubscriptions} where ${pushSubscriptions.id} in (
        select ${pushSubscriptions.id} from ${pushSubscriptions}
        where ${pushSubscriptions.userId} = ${t.userId}
        order by ${pushSubscriptions.updatedAt} desc, ${pushSubscriptions.id} desc offset ${MAX_PER_USER})`);
      return { subscribed: true };
    },

    /** Removes one of the user's own subscriptions (another user's endpoint is left alone). */
    async unsubscribe(t: Tenant, endpoint: string) {
      await db
        .delete(pushSubscriptions)
        .where(
          and(
            eq(pushSubscriptions.endpoint, endpoint),
            eq(pushSubscriptions.userId, t.userId),
            eq(pushSubscriptions.companyId, t.companyId),
          ),
        );
      return { subscribed: false };
    },

    /** Whether this browser's endpoint is subscribed for the user. */
    async status(t: Tenant, endpoint: string) {
      const [hit] = await db
        .select({ id: pushSubscriptions.id })
        .from(pushSubscriptions)
        .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.userId, t.userId)));
      return { subscribed: Boolean(hit) };
    },

    /** Queues one push to every browser of these users; returns once the job is stored. */
    async notifyUsers(
      companyId: number,
      userIds: number[],
      payload: { title: string; body: string; url: string; tag?: string },
    ) {
      const ids = [...new Set(userIds)].filter((id) => Number.isInteger(id) && id > 0);
      if (!ids.length || !(await anySubscriber(companyId))) return;
      await jobs.schedule(sendJob, {
        companyId,
        payload: {
          companyId,
          userIds: ids,
          payload: {
            title: truncate(payload.title, 200),
            body: truncate(payload.body, BODY_MAX),
            url: payload.url,
            ...(payload.tag ? { tag: truncate(payload.tag, 100) } : {}),
          },
        },
      });
    },

    /** A customer's message was stored on a ticket: the push goes out from a job. */
    async onCustomerMessage(companyId: number, ticketId: number, body: string) {
      if (!(await anySubscriber(companyId))) return;
      await jobs.schedule(ticketJob, {
        companyId,
        payload: { companyId, ticketId, body: truncate(body, 1000) },
      });
    },

    /** A test push to the user's own browsers (the profile menu's opt-in confirms it works). */
    async test(t: Tenant) {
      const [u] = await db.select({ language: users.language }).from(users).where(eq(users.id, t.userId));
      await this.notifyUsers(t.companyId, [t.userId], {
        title: 'Recado',
        body: pushTexts(u?.language).test,
        url: '/tickets',
        tag: 'push-test',
      });
      return { queued: true };
    },
  };
}
export type PushService = ReturnType<typeof pushService>;
