import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type MediaPayload,
  type OutboundOptions,
  type SendResult,
} from '../../channel.js';
import { splitText } from '../../../lib/text.js';
import { CloudConfigError } from '../cloud-api/cloud-api-config.js';
import { graphStartFailure } from '../cloud-api/graph-client.js';
import { openMetaConfig, type MetaChannelKind, type MetaOpenConfig } from './meta-config.js';
import { attachmentTypeFor, metaGraphClient, type MetaGraphClient } from './meta-graph.js';
import { parseMetaWebhook, type ParsedMetaWebhook } from './meta-webhook.js';
import { startRetries } from '../start-retries.js';

/**
 * Instagram Direct and Facebook Messenger through Meta's Messenger Platform as a Channel
 * (docs/channels.md "Instagram and Messenger"). Inbound traffic is pushed to the webhook (meta-routes.ts),
 * which hands each verified payload to handleWebhook; replies go through the Send API with the page token.
 * Customers are known by their page-scoped id (PSID) or Instagram-scoped id (IGSID): the `identity`.
 */

export type MetaContext = ChannelContext & {
  kind: MetaChannelKind;
  /** ALLOW_PRIVATE_URLS: the Graph base URL (and attachments on its host) may be a private address. */
  allowPrivateUrls?: boolean;
  /** CLOUD_API_GRAPH_URL (graph-client.ts): connections on Meta's default URL go there. */
  operatorGraphUrl?: string;
  /** First wait before asking an unreachable Graph again (doubles up to 5 minutes). */
  retryMs?: number;
  /** Messenger's read receipts: the provider ids of messages sent to `customer` up to `watermark`. */
  sentUpTo?: (customer: string, watermark: Date) => Promise<string[]>;
};

export interface MetaChannel extends Channel {
  readonly kind: MetaChannelKind;
  handleWebhook(payload: unknown): Promise<ParsedMetaWebhook>;
}

/** How long a looked-up profile name is kept (names rarely change; one Graph call per customer a day). */
const NAME_TTL_MS = 24 * 3_600_000;
const NAME_CACHE_MAX = 5_000;
/** The Send API's longest text. */
const TEXT_MAX = 2_000;

const NOT_GRAPH =
  "The Graph base URL did not answer like Meta's Graph API (no matching account id): check the URL";

export function metaChannel(ctx: MetaContext): MetaChannel {
  let graph: MetaGraphClient | undefined;
  let config: MetaOpenConfig | undefined;
  const retries = startRetries(ctx.sink, ctx.retryMs);
  /** A start under way: a webhook arriving meanwhile (a takeover) waits for it instead of failing. */
  let starting: Promise<void> | undefined;
  const names = new Map<string, { name: string | undefined; at: number }>();

  const disconnected = (reason: string, detail?: string) => {
    graph = undefined;
    config = undefined;
    return retries.disconnected(reason, detail);
  };
  const ready = (): MetaGraphClient => {
    if (!graph) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED', `${ctx.kind} connection not started`);
    return graph;
  };
  const address = (to: string): string => {
    const id = to.trim();
    if (!/^\d{1,32}$/.test(id))
      throw new ChannelError('ERR_WAPP_INVALID_CONTACT', `No ${ctx.kind} id to send to`);
    return id;
  };

  /** The profile name of a customer whose event carried none (cached; a failed look-up is not retried for a day). */
  async function nameOf(g: MetaGraphClient, id: string): Promise<string | undefined> {
    const hit = names.get(id);
    if (hit && Date.now() - hit.at < NAME_TTL_MS) return hit.name;
    const name = await g.profileName(id).catch(() => undefined);
    if (names.size >= NAME_CACHE_MAX) names.delete(names.keys().next().value!);
    names.set(id, { name, at: Date.now() });
    return name;
  }

  /** Opens the settings and proves the token against Graph; CONNECTED, or why not. */
  async function begin(): Promise<void> {
    retries.begin();
    let cfg: MetaOpenConfig;
    try {
      if (!ctx.box) throw new CloudConfigError('No key to open the sealed settings');
      cfg = openMetaConfig(ctx.kind, ctx.config, ctx.box);
    } catch (err) {
      if (err instanceof CloudConfigError) return disconnected('config_invalid', err.reason);
      throw err;
    }
    const client = metaGraphClient({
      ...cfg,
      allowPrivate: ctx.allowPrivateUrls,
      operatorGraphUrl: ctx.operatorGraphUrl,
    });
    let account: Awaited<ReturnType<MetaGraphClient['account']>>;
    try {
      account = await client.account();
    } catch (err) {
      const failed = graphStartFailure(err, NOT_GRAPH);
      if (failed) return disconnected(failed.reason, failed.detail);
      return retries.later('graph_unreachable', err, () => channel.start());
    }
    if (String(account.id ?? '') !== cfg.accountId) return disconnected('not_graph', NOT_GRAPH);
    if (retries.stopped) return;
    retries.connected();
    graph = client;
    config = cfg;
    await ctx.sink.state({ status: 'CONNECTED' });
  }

  const channel: MetaChannel = {
    kind: ctx.kind,

    start() {
      const run = (starting = begin().finally(() => {
        if (starting === run) starting = undefined;
      }));
      return run;
    },

    async stop() {
      retries.stop();
      graph = undefined;
      config = undefined;
    },

    // No session to end on Meta's side; the caller clears the stored settings.
    async logout() {
      await disconnected('logged_out');
    },

    // Texts over Meta's 2,000 characters go as several messages; the first one stands for the reply.
    async sendText(to: string, body: string, opts?: OutboundOptions): Promise<SendResult> {
      const g = ready();
      const id = address(to);
      const tag = opts?.messageTag ? { tag: opts.messageTag } : {};
      const [first, ...rest] = splitText(body, TEXT_MAX);
      const sent = await g.sendText(id, first!, {
        ...tag,
        ...(opts?.quotedProviderId ? { replyTo: opts.quotedProviderId } : {}),
      });
      for (const piece of rest) await g.sendText(id, piece, tag);
      return sent;
    },

    async sendMedia(
      to: string,
      media: MediaPayload & { caption?: string; asVoice?: boolean },
      opts?: OutboundOptions,
    ): Promise<SendResult> {
      const g = ready();
      const id = address(to);
      const type = media.asVoice ? 'audio' : attachmentTypeFor(media.mimetype);
      const attachmentId = await g.uploadAttachment(media, type);
      const sent = await g.sendAttachment(id, type, attachmentId, opts?.messageTag);
      // Attachments take no caption on the Messenger Platform: the text follows as its own message.
      for (const piece of media.caption?.trim() ? splitText(media.caption, TEXT_MAX) : [])
        await g.sendText(id, piece, opts?.messageTag ? { tag: opts.messageTag } : {});
      return sent;
    },

    // mark_seen marks the whole conversation read.
    async markRead(to: string, providerIds: string[]) {
      if (providerIds.length) await ready().markSeen(address(to));
    },

    async deleteMessage() {
      throw new ChannelError('ERR_DELETE_WAPP_MSG', `${ctx.kind} messages cannot be deleted by the page`);
    },

    async checkNumber() {
      return { exists: false };
    },

    async profilePicture() {
      return null;
    },

    async handleWebhook(payload: unknown): Promise<ParsedMetaWebhook> {
      if (!graph && starting) await starting;
      const g = ready();
      const parsed = parseMetaWebhook(payload, {
        channel: ctx.kind,
        accountId: config!.accountId,
        download: (url) => g.downloadAttachment(url),
      });
      for (const m of parsed.messages) {
        const value = m.identity?.value;
        const name = m.name ?? (value && m.kind === 'message' ? await nameOf(g, value) : undefined);
        await ctx.sink.message(name ? { ...m, name } : m);
      }
      for (const a of parsed.acks) await ctx.sink.ack(a);
      for (const r of parsed.reads)
        for (const providerId of (await ctx.sentUpTo?.(r.customer, r.watermark)) ?? [])
          await ctx.sink.ack({ providerId, ack: 3 });
      return parsed;
    },
  };
  return channel;
}
