import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { renderTemplate, type CampaignEvent } from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { campaigns, campaignShippings, filesOptions } from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { z } from 'zod';
import { defineJob, type JobQueue, type JobRecord } from '../../jobs/job-queue.js';
import type { Events } from '../../realtime/events.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { Channel, InboundMessage } from '../../messaging/channel.js';
import { ChannelError } from '../../messaging/channel.js';
import type { AckClaim } from '../../messaging/inbound-events.js';
import type { ConnectionRef, SessionManager } from '../../messaging/session-manager.js';
import { readCampaignSettings } from '../campaign-settings/campaign-setting-service.js';
import { countsOf, withNames, type CampaignRow, type ShippingRow } from './campaign-queries.js';
import { fillMessage, nextDelayMs, pickVariant, shippingProviderId, variantsOf } from './campaign-message.js';
import { truncate } from '../../lib/text.js';
import { mimeOf } from '../../http/uploads.js';
import type { DomainBus } from '../../events/domain-events.js';
import { failureData } from '../../messaging/inbound-pipeline.js';
import { templateSendOf } from '../message-templates/message-template-service.js';
import { sendFailure, storedTemplate, templateValuesFor, type StoredTemplate } from './campaign-template.js';

/** #35 The reason a recipient who opted out after the campaign started was not sent to (docs/privacy.md). */
export const OPTED_OUT_ERROR = 'opted out';

export const START_JOB = 'campaign.start';
export const SEND_JOB = 'campaign.send';
const jobKey = (campaignId: number) => `campaign:${campaignId}`;
const startPayload = z.object({ campaignId: z.number().int() });
/** A chain of sends: its campaign, its token (a restart starts a new chain) and the rows it sent. */
const sendPayload = z.object({
  campaignId: z.number().int(),
  token: z.string(),
  n: z.number().int(),
  /** After a rate-limit answer: how many more sends go slowly, and how hard the last back-off was. */
  slow: z.object({ left: z.number().int(), level: z.number().int() }).optional(),
});
type StartPayload = z.output<typeof startPayload>;
type SendPayload = z.output<typeof sendPayload>;

/** When the connection is not running in this process (starting, another owner): try again after this. */
const CHANNEL_RETRY_MS = 5000;
/** Zero-interval sends run back to back inside one job run for at most this long (then the job is queued again). */
const INLINE_BUDGET_MS = 1000;
/** Live report updates: at most one per campaign in this window while it sends. */
const PROGRESS_EVERY_MS = 500;
/** Rows claimed at once when there is no interval between sends. */
const BATCH = 25;
/**
 * Rate limits (Meta's 130429 / 131056, HTTP 429): the recipient is sent again after a back-off that doubles
 * with each limit in a row (from BACKOFF_MS up to BACKOFF_MAX_MS), and the next SLOW_SENDS sends go one at a
 * time at least SLOW_GAP_MS × 2^(level-1) apart. A recipient limited RATE_LIMIT_GIVE_UP times fails.
 */
export const RATE_LIMIT = {
  BACKOFF_MS: 30_000,
  BACKOFF_MAX_MS: 10 * 60_000,
  SLOW_SENDS: 50,
  SLOW_GAP_MS: 1000,
  GIVE_UP: 12,
} as const;

export interface DispatchDeps {
  db: Db;
  events: Events;
  media: MediaStore;
  clock: Clock;
  jobs: JobQueue;
  sessions: () => Pick<SessionManager, 'get'> | undefined;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /** Rate-limit back-off (defaults RATE_LIMIT). */
  rateLimit?: Partial<typeof RATE_LIMIT>;
  /** Variant choice and interval jitter (tests pass a seeded one). */
  random?: () => number;
  /** campaign.finished for the outgoing webhooks. */
  bus?: Pick<DomainBus, 'emit'>;
}

/**
 * The campaign dispatch engine, on the durable jobs module.
 *
 * - `campaign.start` (key campaign:{id}, runAt scheduledAt): PROGRAMADA → EM_ANDAMENTO and one shipping row
 *   per valid recipient (insert … on conflict do nothing), in one transaction with the first send job.
 * - `campaign.send` (the same key: one chain per campaign): takes the next row, sends it, and schedules
 *   itself at now + the interval. Zero intervals send back to back within one run.
 *
 * Exactly once: a row is claimed (pending → claimed, conditional UPDATE) before anything is sent, with its
 * text and its provider id fixed in the same statement. A row found still `claimed` when a send run starts
 * was interrupted (a crash between claim and the "sent" mark): it is sent again with the SAME provider id,
 * which the channel treats as the same message (the simulator and Baileys send under the id they are
 * given; a repeat is dropped), so the customer gets it once whether or not the first attempt went out.
 */
export function campaignDispatch(deps: DispatchDeps) {
  const { db, events, clock, log } = deps;
  const random = deps.random ?? Math.random;
  const limits = { ...RATE_LIMIT, ...deps.rateLimit };
  const progressTimers = new Map<number, NodeJS.Timeout>();
  let stopped = false;

  const now = () => clock.now();

  async function emit(companyId: number, campaignId: number) {
    const [row] = await db
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.companyId, companyId)));
    if (!row) return;
    const [record] = await withNames(db, [row], now());
    const payload: CampaignEvent = {
      action: 'update',
      record: record!,
      counts: await countsOf(db, campaignId),
    };
    events.toCompany(companyId, 'campaign', payload);
  }

  /** Throttled live update of a running campaign's figures. */
  function progress(companyId: number, campaignId: number) {
    if (stopped || progressTimers.has(campaignId)) return;
    const t = setTimeout(() => {
      progressTimers.delete(campaignId);
      if (!stopped) void emit(companyId, campaignId).catch(() => undefined);
    }, PROGRESS_EVERY_MS);
    t.unref?.();
    progressTimers.set(campaignId, t);
  }

  /** One shipping row per valid recipient; running it again adds nothing (the unique campaign+number key). */
  async function materialise(tx: Tx, c: CampaignRow) {
    if (c.contactListId)
      await tx.execute(sql`
        insert into campaign_shippings (company_id, campaign_id, contact_list_item_id, number, name, email)
        select ${c.companyId}, ${c.id}, i.id, i.number, i.name, i.email
        from contact_list_items i
        where i.contact_list_id = ${c.contactListId} and i.company_id = ${c.companyId}
          and i.number <> '' and i.is_whatsapp_valid is not false
          -- #35 A contact who refused consent or opted out is never a recipient (docs/privacy.md).
          and not exists (select 1 from contacts oc where oc.company_id = ${c.companyId} and oc.number = i.number
            and oc.consent_status in ('refused', 'opted_out'))
        order by i.id
        on conflict (campaign_id, number) do nothing`);
    else if (c.tagId)
      // A tag's audience: the contacts of the company's tickets that carry it.
      await tx.execute(sql`
        insert into campaign_shippings (company_id, campaign_id, contact_id, number, name, email)
        select distinct on (ct.number) ${c.companyId}, ${c.id}, ct.id, ct.number, ct.name, ct.email
        from ticket_tags tt
        join tickets t on t.id = tt.ticket_id and t.company_id = ${c.companyId}
        join contacts ct on ct.id = t.contact_id and ct.company_id = ${c.companyId}
        where tt.tag_id = ${c.tagId} and ct.number <> '' and not ct.is_group
          and ct.consent_status is distinct from 'refused' and ct.consent_status is distinct from 'opted_out'
        order by ct.number, ct.id
        on conflict (campaign_id, number) do nothing`);
  }

  async function scheduleSend(
    c: { id: number; companyId: number },
    token: string,
    n: number,
    runAt: Date,
    executor?: unknown,
    slow?: SendPayload['slow'],
  ) {
    const jobs = deps.jobs;
    await jobs.schedule(
      sendJob,
      {
        key: jobKey(c.id),
        runAt,
        payload: { campaignId: c.id, token, n, ...(slow ? { slow } : {}) },
        companyId: c.companyId,
      },
      executor,
    );
  }

  async function handleStart(job: JobRecord<StartPayload>) {
    const { campaignId } = job.payload;
    const at = now();
    const token = randomUUID();
    const started = await db.transaction(async (tx) => {
      const [c] = await tx
        .update(campaigns)
        .set({ status: 'EM_ANDAMENTO', dispatchToken: token, updatedAt: at })
        .where(
          and(
            eq(campaigns.id, campaignId),
            eq(campaigns.status, 'PROGRAMADA'),
            lte(campaigns.scheduledAt, at),
          ),
        )
        .returning();
      if (!c) return null;
      await materialise(tx, c);
      await scheduleSend(c, token, 0, at, tx);
      return c;
    });
    if (started) await emit(started.companyId, started.id);
  }

  /**
   * The next rows to send (up to `limit`): interrupted claims first (recovery), else the oldest pending
   * ones, claimed in one statement with their text and provider id fixed before anything is sent.
   */
  async function nextRows(
    c: CampaignRow,
    vars: { key: string; value: string }[],
    limit: number,
    template: StoredTemplate | null,
  ): Promise<ShippingRow[]> {
    const interrupted = await db
      .select()
      .from(campaignShippings)
      .where(and(eq(campaignShippings.campaignId, c.id), eq(campaignShippings.status, 'claimed')))
      .orderBy(asc(campaignShippings.id))
      .limit(limit);
    if (interrupted.length) return interrupted;
    // #35 Recipients who opted out after the campaign started are left out (failed, with the reason); the
    // company's few opted-out contacts are read from their partial index first.
    await db.execute(sql`update campaign_shippings s set status = 'failed', error = ${OPTED_OUT_ERROR}
      from contacts oc
      where oc.company_id = ${c.companyId} and oc.consent_status in ('refused', 'opted_out')
        and s.campaign_id = ${c.id} and s.number = oc.number and s.status = 'pending'`);
    for (;;) {
      const candidates = await db
        .select()
        .from(campaignShippings)
        .where(and(eq(campaignShippings.campaignId, c.id), eq(campaignShippings.status, 'pending')))
        .orderBy(asc(campaignShippings.id))
        .limit(limit);
      if (!candidates.length) return [];
      const at = now();
      const values = candidates.map((r) => {
        const ctx = { now: at, protocol: `${c.id}${r.id}`, variables: vars };
        // A template campaign keeps the template as WhatsApp shows it with this recipient's values.
        const message = c.template
          ? template
            ? renderTemplate(template.components, templateValuesFor(c.template, r))
            : ''
          : fillMessage(pickVariant(variantsOf(c, 'message'), random), r, ctx);
        const confirmation =
          c.confirmation && !c.template
            ? fillMessage(pickVariant(variantsOf(c, 'confirmationMessage'), random), r, ctx)
            : '';
        return sql`(${r.id}::bigint, ${message}, ${confirmation}, ${shippingProviderId(c.id, r.id, 'm')})`;
      });
      // The claim (pending → claimed): only rows still pending are taken, so a row is claimed once.
      const claimed = await executeRows<{ id: number | string }>(
        db,
        sql`update campaign_shippings s set status = 'claimed', claimed_at = ${at.toISOString()}::timestamptz,
            message = v.message, confirmation_message = v.confirmation, provider_id = v.provider_id,
            updated_at = ${at.toISOString()}::timestamptz
          from (values ${sql.join(values, sql`, `)}) as v(id, message, confirmation, provider_id)
          where s.id = v.id and s.status = 'pending'
          returning s.id`,
      );
      if (!claimed.length) continue;
      const ids = claimed.map((r) => Number(r.id));
      return db
        .select()
        .from(campaignShippings)
        .where(inArray(campaignShippings.id, ids))
        .orderBy(asc(campaignShippings.id));
    }
  }

  /** The main message: text (with the campaign's media as its caption'd attachment), then the file list. */
  async function sendMain(
    c: CampaignRow,
    row: ShippingRow,
    channel: Channel,
    template: StoredTemplate | null,
  ): Promise<string> {
    const id = shippingProviderId(c.id, row.id, 'm');
    if (c.template) {
      // Cloud API: the approved template with this recipient's values (no attachment, no file list: Meta
      // accepts only the template from someone who did not write in the last 24 hours).
      if (!template)
        throw new Error(`Template ${c.template.name} (${c.template.language}) is no longer stored`);
      if (!channel.sendTemplate) throw new Error('This connection cannot send message templates');
      const { template: send } = templateSendOf(template, templateValuesFor(c.template, row));
      return (await channel.sendTemplate(row.number, send)).providerId;
    }
    let sent;
    if (c.mediaPath) {
      const name = c.mediaName ?? 'file';
      sent = await channel.sendMedia(
        row.number,
        {
          data: await deps.media.read(c.mediaPath),
          mimetype: mimeOf(name),
          filename: name,
          caption: row.message,
        },
        { providerId: id },
      );
    } else sent = await channel.sendText(row.number, row.message, { providerId: id });
    if (c.fileListId) {
      const options = await db
        .select()
        .from(filesOptions)
        .where(and(eq(filesOptions.fileId, c.fileListId), eq(filesOptions.companyId, c.companyId)))
        .orderBy(asc(filesOptions.id));
      for (const [i, o] of options.entries()) {
        if (!o.path) continue;
        const filename = o.fileName || o.name || `file${extname(o.path)}`;
        await channel.sendMedia(
          row.number,
          { data: await deps.media.read(o.path), mimetype: mimeOf(o.path), filename },
          { providerId: shippingProviderId(c.id, row.id, `f${i}`) },
        );
      }
    }
    return sent.providerId;
  }

  /** 'throttled': the provider said "slow down"; the row stays claimed and is sent again after a back-off. */
  type Outcome = 'sent' | 'confirmation' | 'failed' | 'retry' | 'throttled';

  /** The campaign's template as stored for its connection now (null: not a template campaign, or gone). */
  async function templateOf(c: CampaignRow): Promise<StoredTemplate | null> {
    if (!c.template || !c.whatsappId) return null;
    return storedTemplate(db, c.companyId, c.whatsappId, c.template);
  }

  async function sendRow(
    c: CampaignRow,
    row: ShippingRow,
    template: StoredTemplate | null,
  ): Promise<Outcome> {
    const channel = c.whatsappId ? deps.sessions()?.get(c.whatsappId) : undefined;
    if (!channel) return 'retry';
    try {
      if (c.confirmation && !c.template && !row.confirmedAt) {
        await channel.sendText(row.number, row.confirmationMessage, {
          providerId: shippingProviderId(c.id, row.id, 'c'),
        });
        const at = now();
        await db
          .update(campaignShippings)
          .set({ status: 'confirmation_sent', confirmationRequestedAt: at, updatedAt: at })
          .where(and(eq(campaignShippings.id, row.id), eq(campaignShippings.status, 'claimed')));
        confirming.set(c.whatsappId!, { pending: true, at: performance.now() });
        return 'confirmation';
      }
      const providerId = await sendMain(c, row, channel, template);
      await markSent(row.id, providerId);
      return 'sent';
    } catch (err) {
      if (err instanceof ChannelError && err.code === 'ERR_WAPP_NOT_INITIALIZED') return 'retry';
      const at = now();
      const error = truncate(err instanceof Error ? err.message : String(err), 500);
      const { rateLimited, code } = sendFailure(err);
      if (rateLimited && row.rateLimited + 1 < limits.GIVE_UP) {
        // Nothing went out: the row stays claimed (sent first by the next run), with Meta's answer on it.
        await db
          .update(campaignShippings)
          .set({
            rateLimited: sql`${campaignShippings.rateLimited} + 1`,
            error,
            errorCode: code,
            updatedAt: at,
          })
          .where(and(eq(campaignShippings.id, row.id), eq(campaignShippings.status, 'claimed')));
        return 'throttled';
      }
      await db
        .update(campaignShippings)
        .set({ status: 'failed', error, errorCode: code, updatedAt: at })
        .where(and(eq(campaignShippings.id, row.id), eq(campaignShippings.status, 'claimed')));
      return 'failed';
    }
  }

  /** The wait after a rate-limit answer: doubles with each one in a row, up to the maximum. */
  const backoffMs = (level: number) =>
    Math.min(limits.BACKOFF_MAX_MS, limits.BACKOFF_MS * 2 ** Math.max(0, level - 1));
  /** While slowed down, sends are at least this far apart. */
  const slowGapMs = (level: number) => limits.SLOW_GAP_MS * 2 ** Math.max(0, level - 1);

  async function markSent(rowId: number, providerId: string) {
    const at = now();
    // An ack may have come first (status delivered already): only a claimed row becomes sent.
    await db
      .update(campaignShippings)
      .set({
        status: sql`case when ${campaignShippings.status} = 'claimed' then 'sent' else ${campaignShippings.status} end`,
        sentAt: sql`coalesce(${campaignShippings.sentAt}, ${at.toISOString()}::timestamptz)`,
        providerId,
        updatedAt: at,
      })
      .where(eq(campaignShippings.id, rowId));
  }

  /** FINALIZADA once no row is waiting to be sent (confirmations still awaiting a reply do not hold it). */
  async function finishIfDone(c: CampaignRow, token: string): Promise<boolean> {
    const [left] = await db
      .select({ id: campaignShippings.id })
      .from(campaignShippings)
      .where(
        and(
          eq(campaignShippings.campaignId, c.id),
          inArray(campaignShippings.status, ['pending', 'claimed']),
        ),
      )
      .limit(1);
    if (left) return false;
    const at = now();
    const [done] = await db
      .update(campaigns)
      .set({ status: 'FINALIZADA', completedAt: at, updatedAt: at })
      .where(
        and(eq(campaigns.id, c.id), eq(campaigns.status, 'EM_ANDAMENTO'), eq(campaigns.dispatchToken, token)),
      )
      .returning();
    if (done) {
      await emit(done.companyId, done.id);
      deps.bus?.emit('campaign.finished', { companyId: done.companyId, campaignId: done.id });
    }
    return true;
  }

  async function handleSend(job: JobRecord<SendPayload>) {
    const { campaignId, token } = job.payload;
    let n = job.payload.n;
    let slow = job.payload.slow;
    /** A rate limit: this chain waits (longer each time in a row), then goes slowly for a while. */
    const throttle = async (c: CampaignRow) => {
      const level = (slow?.level ?? 0) + 1;
      slow = { left: limits.SLOW_SENDS, level };
      log.warn({ campaignId: c.id, level }, 'campaign rate-limited by the provider: slowing down');
      await scheduleSend(c, token, n, new Date(now().getTime() + backoffMs(level)), undefined, slow);
    };
    const budgetEnds = Date.now() + INLINE_BUDGET_MS; // a work budget in real time, not a business time
    let settings: Awaited<ReturnType<typeof readCampaignSettings>> | undefined;
    for (;;) {
      const [c] = await db.select().from(campaigns).where(eq(campaigns.id, campaignId));
      // Cancelled, deleted, or a chain replaced by a restart: this chain ends here.
      if (!c || c.status !== 'EM_ANDAMENTO' || c.dispatchToken !== token) return;
      settings ??= await readCampaignSettings(db, c.companyId);
      const template = await templateOf(c);
      const slowing = (slow?.left ?? 0) > 0;
      // Without waits between sends, rows are claimed a batch at a time (each still claimed before it is sent).
      const rows = await nextRows(
        c,
        settings.variables,
        settings.messageInterval > 0 || slowing ? 1 : BATCH,
        template,
      );
      if (!rows.length) {
        await finishIfDone(c, token);
        return;
      }
      if (!slowing && settings.messageInterval <= 0 && settings.longerIntervalAfter <= 0) {
        // No spacing at all: the batch goes out concurrently (each row is already claimed on its own).
        const outcomes = await Promise.all(rows.map((row) => sendRow(c, row, template)));
        n += outcomes.filter((o) => o === 'sent' || o === 'confirmation').length;
        progress(c.companyId, c.id);
        if (outcomes.includes('throttled')) {
          await throttle(c);
          return;
        }
        if (outcomes.includes('retry')) {
          await scheduleSend(c, token, n, new Date(now().getTime() + CHANNEL_RETRY_MS));
          return;
        }
        if (Date.now() > budgetEnds) {
          await scheduleSend(c, token, n, now());
          return;
        }
        continue;
      }
      for (const row of rows) {
        const outcome = await sendRow(c, row, template);
        if (outcome === 'retry') {
          await scheduleSend(c, token, n, new Date(now().getTime() + CHANNEL_RETRY_MS), undefined, slow);
          return;
        }
        if (outcome === 'throttled') {
          await throttle(c);
          return;
        }
        if (outcome !== 'failed') n++;
        progress(c.companyId, c.id);
        let delay = nextDelayMs(n, settings, random);
        if (slow && slow.left > 0) {
          // Slowed down after a rate limit: a wider gap for the next sends, then back to the settings.
          delay = Math.max(delay, slowGapMs(slow.level));
          slow = slow.left > 1 ? { left: slow.left - 1, level: slow.level } : undefined;
        }
        if (delay > 0) {
          // Rows of this batch not yet sent stay claimed: the next run sends them first, in order.
          if (await finishIfDone(c, token)) return;
          await scheduleSend(c, token, n, new Date(now().getTime() + delay), undefined, slow);
          return;
        }
      }
      if (Date.now() > budgetEnds) {
        await scheduleSend(c, token, n, now(), undefined, slow);
        return;
      }
    }
  }

  /**
   * Ack ≥ 2 from the channel: the campaign message reached the phone. Ack 0 (the Cloud API's `failed`
   * status): Meta gave up on it; the row fails with Meta's code and words (131026, 131047…). #31 A CTE of the
   * pipeline's ack statement (one statement per ack, the campaign's update and the message's together), from
   * the same statuses as before, so a campaign row is still delivered (or failed) once; when it returns a
   * row the message update of that statement does nothing.
   */
  const ackClaim: AckClaim = {
    cte(ref, a, guard) {
      const at = now().toISOString();
      if (a.ack === 0) {
        const { error, errorCode } = failureData(a.data);
        return sql`update campaign_shippings
          set status = 'failed', error = ${truncate(error, 500)}, error_code = ${errorCode ?? null},
            updated_at = ${at}::timestamptz
          where company_id = ${ref.companyId} and provider_id = ${a.providerId}
            and status in ('claimed', 'sent', 'delivered') and ${guard}
          returning campaign_id`;
      }
      if (a.ack < 2) return null;
      return sql`update campaign_shippings
        set status = 'delivered', delivered_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
        where company_id = ${ref.companyId} and provider_id = ${a.providerId}
          and status in ('claimed', 'sent') and ${guard}
        returning campaign_id`;
    },
    taken(ref, rows) {
      for (const r of rows) progress(ref.companyId, Number(r.campaign_id));
    },
  };

  /** How long a connection's "anyone asked to confirm?" answer is kept (docs/campaigns.md). */
  const CONFIRM_CHECK_MS = 5000;
  /**
   * Connections with customers asked to confirm, so that replies on the others cost no statement: looked up
   * at most every CONFIRM_CHECK_MS, and set at once when a confirmation goes out. It goes out from the
   * process that runs the connection's session (sendRow), which is where the replies arrive.
   */
  const confirming = new Map<number, { pending: boolean; at: number }>();
  async function anyConfirming(ref: ConnectionRef) {
    const known = confirming.get(ref.id);
    if (known && performance.now() - known.at < CONFIRM_CHECK_MS) return known.pending;
    const at = performance.now();
    const [hit] = await db
      .select({ id: campaignShippings.id })
      .from(campaignShippings)
      .where(
        and(
          eq(campaignShippings.companyId, ref.companyId),
          eq(campaignShippings.status, 'confirmation_sent'),
          sql`${campaignShippings.campaignId} in (select id from campaigns where whatsapp_id = ${ref.id})`,
        ),
      )
      .limit(1);
    // A confirmation sent while this looked stays pending.
    const latest = confirming.get(ref.id);
    if (!latest || latest.at <= at) confirming.set(ref.id, { pending: Boolean(hit), at });
    return Boolean(hit) || Boolean(latest && latest.at > at && latest.pending);
  }

  /**
   * Confirmation flow: a reply from a number whose confirmation message went out on this connection
   * claims its row again (confirmation_sent → claimed, confirmedAt) and the main message follows.
   */
  async function onInbound(ref: ConnectionRef, ms: InboundMessage[]) {
    const numbers = [
      ...new Set(
        ms.filter((m) => m.kind === 'message' && !m.fromMe && !m.isGroup && m.from).map((m) => m.from),
      ),
    ];
    if (!numbers.length || !(await anyConfirming(ref))) return;
    const at = now();
    const confirmed = await db
      .update(campaignShippings)
      .set({ status: 'claimed', confirmedAt: at, updatedAt: at })
      .where(
        and(
          eq(campaignShippings.companyId, ref.companyId),
          eq(campaignShippings.status, 'confirmation_sent'),
          inArray(campaignShippings.number, numbers),
          sql`${campaignShippings.campaignId} in (select id from campaigns where whatsapp_id = ${ref.id})`,
        ),
      )
      .returning();
    for (const row of confirmed) {
      const [c] = await db.select().from(campaigns).where(eq(campaigns.id, row.campaignId));
      if (!c) continue;
      const outcome = await sendRow(c, row, await templateOf(c));
      if (outcome === 'retry')
        log.warn({ campaignId: c.id }, 'confirmed campaign message waits for its connection');
      progress(c.companyId, c.id);
    }
  }

  const startJob = defineJob({
    kind: START_JOB,
    payload: startPayload,
    handler: handleStart,
    options: { maxAttempts: 10, retryDelayMs: 5000 },
  });
  const sendJob = defineJob({
    kind: SEND_JOB,
    payload: sendPayload,
    handler: handleSend,
    // The lease covers a run of back-to-back sends; a crashed run is taken over after it.
    options: { leaseMs: 60_000, maxAttempts: 1000, retryDelayMs: 5000 },
  });

  return {
    /** Registered by app.ts. */
    jobs: { start: startJob, send: sendJob },

    /** A PROGRAMADA campaign's start at its time (again: the new time replaces the old one). */
    async scheduleStart(c: { id: number; companyId: number; scheduledAt: Date }, executor?: unknown) {
      const jobs = deps.jobs;
      await jobs.schedule(
        startJob,
        {
          key: jobKey(c.id),
          runAt: c.scheduledAt,
          payload: { campaignId: c.id },
          companyId: c.companyId,
        },
        executor,
      );
    },

    async unscheduleStart(campaignId: number) {
      await deps.jobs.cancel(startJob, jobKey(campaignId));
    },

    /** Restart: a new chain (new token) that continues with the rows still pending. */
    async resume(c: { id: number; companyId: number }, token: string, executor?: unknown) {
      await scheduleSend(c, token, 0, now(), executor);
    },

    ackClaim,
    onInbound,
    emit,

    stop() {
      stopped = true;
      progressTimers.forEach((t) => clearTimeout(t));
      progressTimers.clear();
    },
  };
}
export type CampaignDispatch = ReturnType<typeof campaignDispatch>;
