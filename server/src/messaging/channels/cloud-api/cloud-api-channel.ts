import type { SecretBox } from '../../../lib/crypto.js';
import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type ChannelFactory,
  type MediaPayload,
  type OutboundOptions,
  type SendResult,
} from '../../channel.js';
import {
  CloudApiOpenConfig,
  CloudConfigError,
  openCloudConfig,
  type CloudApiOpenConfig as OpenConfig,
} from './cloud-api-config.js';
import { parseWebhook, waIdToNumber, type ParsedWebhook } from './cloud-api-webhook.js';
import {
  checkCloudNumber,
  graphClient,
  graphStartFailure,
  mediaKindFor,
  type GraphClient,
  type GraphTemplateSend,
} from './graph-client.js';
import { startRetries } from '../start-retries.js';

/**
 * The WhatsApp Cloud API (Meta's official route) as a Channel. Inbound traffic is pushed to the webhook
 * (cloud-api-routes.ts), which hands each verified payload to handleWebhook; outbound goes through Graph.
 */

/**
 * `box` opens the sealed secrets of the stored config. Without it, `config` must already be the opened
 * form (accessToken and appSecret in clear), as openCloudConfig returns it.
 */
export type CloudApiContext = ChannelContext & {
  box?: SecretBox;
  /** ALLOW_PRIVATE_URLS: the Graph base URL may be a private or loopback address (tests, self-hosted). */
  allowPrivateUrls?: boolean;
  /** CLOUD_API_GRAPH_URL (graph-client.ts). */
  operatorGraphUrl?: string;
  /** First wait before asking an unreachable Graph again (doubles up to 5 minutes). */
  retryMs?: number;
};

export interface CloudApiChannel extends Channel {
  readonly kind: 'cloud_api';
  /** Feeds one verified webhook payload into the sink: its messages, then its acks, in Meta's order. */
  handleWebhook(payload: unknown): Promise<ParsedWebhook>;
}

/** Why a connection is not running (web: connections.reason.*); the detail says it in Graph's words. */
type Reason =
  'config_invalid' | 'url_refused' | 'graph_rejected' | 'not_graph' | 'graph_unreachable' | 'logged_out';

function resolveConfig(ctx: CloudApiContext): OpenConfig {
  if (ctx.box) return openCloudConfig(ctx.config, ctx.box);
  const parsed = CloudApiOpenConfig.safeParse(ctx.config ?? {});
  if (parsed.success) return parsed.data;
  throw new CloudConfigError(
    'accessTokenSealed' in (ctx.config ?? {})
      ? 'Cloud API secrets are sealed and no key was given to open them'
      : `Cloud API settings incomplete: ${parsed.error.issues.map((i) => i.path.join('.') || 'config').join(', ')}`,
  );
}

const NOT_GRAPH =
  "The Graph base URL did not answer like Meta's Graph API (no matching phone number id): check the URL";

/** The factory the session manager looks up by channel kind ('cloud_api'). */
export const cloudApiChannel = ((ctx: CloudApiContext): CloudApiChannel => {
  let graph: GraphClient | undefined;
  let config: OpenConfig | undefined;
  const retries = startRetries(ctx.sink, ctx.retryMs);

  const disconnected = (reason: Reason, detail?: string) => {
    graph = undefined;
    config = undefined;
    return retries.disconnected(reason, detail);
  };

  const ready = (): GraphClient => {
    if (!graph) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED', 'Cloud API connection not started');
    return graph;
  };

  const address = (to: string): string => {
    const digits = to.replace(/\D/g, '');
    if (!digits) throw new ChannelError('ERR_WAPP_INVALID_CONTACT', 'No number to send to');
    return digits;
  };

  const channel: CloudApiChannel = {
    kind: 'cloud_api',

    async start() {
      retries.begin();
      let cfg: OpenConfig;
      try {
        cfg = resolveConfig(ctx);
      } catch (err) {
        if (err instanceof CloudConfigError) return disconnected('config_invalid', err.reason);
        throw err;
      }
      const client = graphClient({
        ...cfg,
        allowPrivate: ctx.allowPrivateUrls,
        operatorGraphUrl: ctx.operatorGraphUrl,
      });
      let phone: Awaited<ReturnType<GraphClient['phoneNumber']>>;
      try {
        phone = await client.phoneNumber();
      } catch (err) {
        // The guard refused the address, or Graph said no (bad token, unknown phone number id): the
        // connection cannot work until its settings change.
        const failed = graphStartFailure(err, NOT_GRAPH);
        if (failed) return disconnected(failed.reason, failed.detail);
        // Unreachable or failing (5xx): not proven yet. Shown as TIMEOUT with the reason; asked again later.
        return retries.later('graph_unreachable', err, () => channel.start());
      }
      // Graph always names the object it answers for; anything else is not Graph.
      if (String(phone.id ?? '') !== cfg.phoneNumberId) return disconnected('not_graph', NOT_GRAPH);
      const number = phone.display_phone_number
        ? waIdToNumber(phone.display_phone_number.replace(/\D/g, ''))
        : undefined;
      if (retries.stopped) return;
      retries.connected();
      graph = client;
      config = cfg;
      await ctx.sink.state({ status: 'CONNECTED', ...(number ? { number } : {}) });
    },

    async stop() {
      retries.stop();
      graph = undefined;
      config = undefined;
    },

    // Cloud API has no session to end on Meta's side; the caller clears the stored settings.
    async logout() {
      await disconnected('logged_out');
    },

    async sendText(to: string, body: string, opts?: OutboundOptions): Promise<SendResult> {
      return ready().sendText(address(to), body, opts?.quotedProviderId);
    },

    async sendReaction(to, target, emoji) {
      await ready().sendReaction(address(to), target.providerId, emoji);
    },

    async sendTemplate(to, template) {
      return ready().sendTemplate(address(to), template as GraphTemplateSend);
    },

    async sendInteractive(to, interactive, opts) {
      return ready().sendInteractive(address(to), interactive, opts?.quotedProviderId);
    },

    async sendMedia(
      to: string,
      media: MediaPayload & { caption?: string; asVoice?: boolean },
      opts?: OutboundOptions,
    ): Promise<SendResult> {
      const g = ready();
      const addr = address(to);
      const kind = media.asVoice ? 'audio' : mediaKindFor(media.mimetype);
      const mediaId = await g.uploadMedia(media);
      const sent = await g.sendMediaById(addr, kind, mediaId, {
        ...(media.caption ? { caption: media.caption } : {}),
        ...(media.filename ? { filename: media.filename } : {}),
        ...(media.asVoice ? { voice: true } : {}),
        ...(opts?.quotedProviderId ? { quotedId: opts.quotedProviderId } : {}),
      });
      // Audio takes no caption on WhatsApp: the text follows as its own message rather than being lost.
      if (kind === 'audio' && media.caption?.trim()) await g.sendText(addr, media.caption);
      return sent;
    },

    // Meta marks every earlier message of the chat read with the one given: the newest is enough.
    async markRead(_to: string, providerIds: string[]) {
      const g = ready();
      const last = providerIds.at(-1);
      if (last) await g.markRead(last);
    },

    async deleteMessage() {
      throw new ChannelError('ERR_DELETE_WAPP_MSG', 'WhatsApp Cloud API cannot delete sent messages');
    },

    async checkNumber(number: string) {
      return checkCloudNumber(number);
    },

    async profilePicture() {
      return null;
    },

    async handleWebhook(payload: unknown): Promise<ParsedWebhook> {
      const g = ready();
      const parsed = parseWebhook(payload, {
        phoneNumberId: config!.phoneNumberId,
        downloadMedia: (id) => g.downloadMedia(id),
      });
      for (const m of parsed.messages) await ctx.sink.message(m);
      for (const a of parsed.acks) await ctx.sink.ack(a);
      return parsed;
    },
  };
  return channel;
}) satisfies ChannelFactory;
