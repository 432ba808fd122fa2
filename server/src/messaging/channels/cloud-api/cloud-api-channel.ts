import type { SecretBox } from '../../../lib/crypto.js';
import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type ChannelFactory,
  type MediaPayload,
  type OutboundOptions,
  type SendResult,
  type StateUpdate,
} from '../../channel.js';
import {
  CloudApiOpenConfig,
  CloudConfigError,
  openCloudConfig,
  type CloudApiOpenConfig as OpenConfig,
} from './cloud-api-config.js';
import { parseWebhook, waIdToNumber, type ParsedWebhook } from './cloud-api-webhook.js';
import { checkCloudNumber, graphClient, mediaKindFor, type GraphClient } from './graph-client.js';

/**
 * The WhatsApp Cloud API (Meta's official route) as a Channel. Inbound traffic is pushed to the webhook
 * (cloud-api-routes.ts), which hands each verified payload to handleWebhook; outbound goes through Graph.
 */

/**
 * `box` opens the sealed secrets of the stored config. Without it, `config` must already be the opened
 * form (accessToken and appSecret in clear), as openCloudConfig returns it.
 */
export type CloudApiContext = ChannelContext & { box?: SecretBox };

export interface CloudApiChannel extends Channel {
  readonly kind: 'cloud_api';
  /** Feeds one verified webhook payload into the sink: its messages, then its acks, in Meta's order. */
  handleWebhook(payload: unknown): Promise<ParsedWebhook>;
}

/** A state update with the reason a connection cannot run (shown to the admin). */
type StateWithReason = StateUpdate & { data?: { reason: string } };

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

/** The factory the session manager looks up by channel kind ('cloud_api'). */
export const cloudApiChannel = ((ctx: CloudApiContext): CloudApiChannel => {
  let graph: GraphClient | undefined;
  let config: OpenConfig | undefined;

  const disconnected = (reason: string) => {
    graph = undefined;
    config = undefined;
    const s: StateWithReason = { status: 'DISCONNECTED', data: { reason } };
    return ctx.sink.state(s);
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

  return {
    kind: 'cloud_api',

    async start() {
      let cfg: OpenConfig;
      try {
        cfg = resolveConfig(ctx);
      } catch (err) {
        if (err instanceof CloudConfigError) return disconnected(err.reason);
        throw err;
      }
      const client = graphClient(cfg);
      let number: string | undefined;
      try {
        const phone = await client.phoneNumber();
        if (phone.display_phone_number) number = waIdToNumber(phone.display_phone_number.replace(/\D/g, ''));
      } catch (err) {
        // Graph said no (bad token, unknown phone number id): the connection cannot work until fixed.
        // Graph unreachable: webhooks may still arrive and sends will report their own errors.
        const status = (err as { status?: number }).status;
        if (status !== undefined && status >= 400 && status < 500)
          return disconnected((err as Error).message);
      }
      graph = client;
      config = cfg;
      await ctx.sink.state({ status: 'CONNECTED', ...(number ? { number } : {}) });
    },

    async stop() {
      graph = undefined;
      config = undefined;
    },

    // Cloud API has no session to end on Meta's side; the caller clears the stored settings.
    async logout() {
      await disconnected('Logged out');
    },

    async sendText(to: string, body: string, opts?: OutboundOptions): Promise<SendResult> {
      return ready().sendText(address(to), body, opts?.quotedProviderId);
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
}) satisfies ChannelFactory;
