import { normalizeNumber } from '@recado/contracts';
import { ChannelError, type InteractiveSend, type MediaPayload, type SendResult } from '../../channel.js';
import { OutboundLimitError, OutboundUrlError, safeFetch } from '../../../lib/safe-fetch.js';
import { DEFAULT_GRAPH_BASE_URL } from './cloud-api-config.js';

/**
 * A small client of Meta's Graph API for one WhatsApp Cloud API phone number.
 * The access token only travels in the Authorization header; it never appears in an error or a log line.
 */

export interface GraphClientOptions {
  graphBaseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  /** Per request; Graph normally answers well under a second. */
  timeoutMs?: number;
  /** Largest media download accepted (Cloud API's own limit is 100 MB for documents). */
  maxMediaBytes?: number;
  /** ALLOW_PRIVATE_URLS: the base URL (and media on its host) may be a private or loopback address. */
  allowPrivate?: boolean;
  /**
   * CLOUD_API_GRAPH_URL: the operator's own Graph endpoint (a relay in front of graph.facebook.com, or a local
   * Graph double for browser tests). A connection left on Meta's default URL is sent there; it is the
   * server's setting, not a tenant's, so it is trusted like OPENAI_BASE_URL (private addresses allowed).
   */
  operatorGraphUrl?: string;
}

/** Hosts Meta serves WhatsApp media from; a media URL anywhere else is refused. */
const META_MEDIA_HOSTS = [
  /^lookaside\.fbsbx\.com$/,
  /\.fbsbx\.com$/,
  /\.fbcdn\.net$/,
  /\.whatsapp\.net$/,
  /\.facebook\.com$/,
];

/**
 * Why a media URL named by Graph must not be downloaded, or null. Meta's media live on Meta's hosts (https);
 * only a customised base URL with ALLOW_PRIVATE_URLS on (a local Graph double) may also serve them itself.
 */
export function mediaUrlProblem(
  url: URL,
  opts: Pick<GraphClientOptions, 'graphBaseUrl' | 'allowPrivate'>,
): string | null {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (url.protocol === 'https:' && !url.port && META_MEDIA_HOSTS.some((h) => h.test(host))) return null;
  const base = new URL(opts.graphBaseUrl);
  const customised = base.origin !== new URL(DEFAULT_GRAPH_BASE_URL).origin;
  if (customised && opts.allowPrivate && url.origin === base.origin) return null;
  return `media URL host ${host} is not one of Meta's`;
}

/** A guard refusal or limit as the channel's own error (reasons never contain the token). */
function outboundFailure(code: ErrCode, what: string, err: unknown): ChannelError {
  if (err instanceof OutboundUrlError) return new ChannelError(code, `${what} refused: ${err.reason}`);
  if (err instanceof OutboundLimitError) return new ChannelError(code, `${what} failed: ${err.message}`);
  return new ChannelError(code, `${what} unreachable: ${(err as Error).name}`);
}

/** A template as GET /{WABA-ID}/message_templates lists it. */
export interface GraphTemplate {
  id?: string;
  name?: string;
  language?: string;
  category?: string;
  status?: string;
  components?: { type: string; format?: string; text?: string; buttons?: unknown[]; example?: unknown }[];
}

/** The `template` object of a type "template" message. */
export interface GraphTemplateSend {
  name: string;
  language: { code: string };
  components?: {
    type: 'header' | 'body';
    parameters: (
      | { type: 'text'; text: string }
      | {
          type: 'image' | 'video' | 'document';
          image?: { link: string };
          video?: { link: string };
          document?: { link: string; filename?: string };
        }
    )[];
  }[];
}

export type GraphMediaKind = 'image' | 'audio' | 'video' | 'document' | 'sticker';

export interface GraphMediaInfo {
  url: string;
  mime_type?: string;
  file_size?: number;
  sha256?: string;
}

type ErrCode = ChannelError['code'];

interface GraphErrorBody {
  error?: { message?: string; code?: number; error_subcode?: number; error_data?: { details?: string } };
}

/** Meta's media kinds for a MIME type; what Meta will not show inline goes as a document. */
export function mediaKindFor(mimetype: string): Exclude<GraphMediaKind, 'sticker'> {
  const m = mimetype.toLowerCase().split(';')[0]!.trim();
  if (m === 'image/jpeg' || m === 'image/png') return 'image';
  if (m === 'video/mp4' || m === 'video/3gpp') return 'video';
  if (m.startsWith('audio/')) return 'audio';
  return 'document';
}

const extensionOf: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'application/pdf': 'pdf',
};
export const extensionFor = (mimetype: string): string =>
  extensionOf[mimetype.toLowerCase().split(';')[0]!.trim()] ?? 'bin';

/**
 * Cloud API has no contact check (the old /contacts endpoint is gone): any plausible number is taken as
 * existing, and a wrong one fails when a message is sent to it.
 */
export function checkCloudNumber(number: string): { exists: boolean; replyTo?: string; number?: string } {
  const normalized = normalizeNumber(number);
  if (normalized.length < 8 || normalized.length > 15) return { exists: false };
  return { exists: true, replyTo: normalized, number: normalized };
}

/**
 * Why a channel's start-up call to Graph failed for good — the guard refused the address, Graph said no (bad
 * token, unknown id), or what answered is not Graph — so the settings must change; null when Graph was only
 * unreachable or failing (5xx), to be asked again later. `notGraph` is the channel's words for the last case.
 */
export function graphStartFailure(
  err: unknown,
  notGraph: string,
): { reason: 'url_refused' | 'graph_rejected' | 'not_graph'; detail: string } | null {
  const e = err as Error & { status?: number; refused?: boolean };
  if (e.refused) return { reason: 'url_refused', detail: e.message };
  if (e.status !== undefined && e.status >= 400 && e.status < 500)
    return { reason: 'graph_rejected', detail: e.message };
  if (e.status !== undefined && e.status < 400) return { reason: 'not_graph', detail: notGraph };
  return null;
}

/** Graph's JSON answers are small; anything bigger is not Graph. */
const GRAPH_ANSWER_BYTES = 2 * 1024 * 1024;

/** The options a client really uses: the operator's endpoint for connections on Meta's default URL. */
function effectiveOptions(opts: GraphClientOptions): GraphClientOptions {
  const operator = opts.operatorGraphUrl?.replace(/\/+$/, '');
  if (!operator || opts.graphBaseUrl.replace(/\/+$/, '') !== DEFAULT_GRAPH_BASE_URL) return opts;
  return { ...opts, graphBaseUrl: operator, allowPrivate: true };
}

/**
 * Graph's JSON calls for one set of options (base URL through the operator's endpoint, version, bearer token),
 * with Graph's errors as ChannelErrors (`status`, `graphCode` and `refused` attached). Shared by the Cloud API
 * client below and the Messenger Platform client (channels/meta).
 */
export function graphCaller(given: Omit<GraphClientOptions, 'phoneNumberId'> & { phoneNumberId?: string }) {
  const opts = effectiveOptions(given as GraphClientOptions);
  const base = `${opts.graphBaseUrl.replace(/\/+$/, '')}/${opts.apiVersion}`;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const auth = { authorization: `Bearer ${opts.accessToken}` };

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    code: ErrCode,
    body?: Record<string, unknown> | FormData,
    timeout = timeoutMs,
  ): Promise<T> {
    let res: Response;
    try {
      res = await safeFetch(
        `${base}/${path}`,
        {
          method,
          headers:
            body && !(body instanceof FormData) ? { ...auth, 'content-type': 'application/json' } : auth,
          body: body instanceof FormData ? body : body ? JSON.stringify(body) : undefined,
        },
        { allowPrivate: opts.allowPrivate, timeoutMs: timeout, maxBytes: GRAPH_ANSWER_BYTES },
      );
    } catch (err) {
      throw Object.assign(outboundFailure(code, 'Graph API', err), {
        refused: err instanceof OutboundUrlError,
      });
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = undefined;
    }
    if (!res.ok || json === undefined || (json as GraphErrorBody).error) {
      const e = (json as GraphErrorBody | undefined)?.error;
      const detail = e?.error_data?.details ? ` (${e.error_data.details})` : '';
      const err = new ChannelError(
        code,
        e?.message
          ? `Graph API error ${e.code ?? res.status}: ${e.message}${detail}`
          : `Graph API answered HTTP ${res.status}`,
      );
      throw Object.assign(err, { status: res.status, graphCode: e?.code });
    }
    return json as T;
  }

  /**
   * Downloads a media URL Graph named (only from Meta's hosts, mediaUrlProblem; checked on every redirect
   * hop), with the bearer token when `withToken` (Cloud API media need it; Messenger CDN URLs are signed).
   */
  async function download(
    url: string,
    maxBytes: number,
    withToken: boolean,
  ): Promise<{ data: Buffer; contentType: string | undefined }> {
    let res: Response;
    try {
      res = await safeFetch(url, withToken ? { headers: auth } : {}, {
        allowPrivate: opts.allowPrivate,
        timeoutMs: timeoutMs * 4,
        maxBytes,
        checkUrl: (u) => mediaUrlProblem(u, opts),
      });
    } catch (err) {
      throw outboundFailure('ERR_WAPP_DOWNLOAD_MEDIA', 'Media download', err);
    }
    if (!res.ok)
      throw new ChannelError('ERR_WAPP_DOWNLOAD_MEDIA', `Media download answered HTTP ${res.status}`);
    return {
      data: Buffer.from(await res.arrayBuffer()),
      contentType: res.headers.get('content-type')?.split(';')[0] || undefined,
    };
  }

  return { call, download, opts };
}

export function graphClient(given: GraphClientOptions) {
  const { call, download, opts } = graphCaller(given);
  const maxMediaBytes = opts.maxMediaBytes ?? 100 * 1024 * 1024;

  interface SendAnswer {
    messages?: { id?: string }[];
  }

  async function send(
    to: string,
    type: string,
    content: Record<string, unknown>,
    quotedId?: string,
  ): Promise<SendResult> {
    const answer = await call<SendAnswer>('POST', `${opts.phoneNumberId}/messages`, 'ERR_SENDING_WAPP_MSG', {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type,
      [type]: content,
      ...(quotedId ? { context: { message_id: quotedId } } : {}),
    });
    const providerId = answer.messages?.[0]?.id;
    if (!providerId)
      throw new ChannelError('ERR_SENDING_WAPP_MSG', 'Graph API answered without a message id');
    return { providerId, timestamp: new Date() };
  }

  function mediaInfo(mediaId: string): Promise<GraphMediaInfo> {
    return call<GraphMediaInfo>('GET', encodeURIComponent(mediaId), 'ERR_WAPP_DOWNLOAD_MEDIA');
  }

  return {
    sendText(to: string, body: string, quotedId?: string): Promise<SendResult> {
      return send(to, 'text', { preview_url: /https?:\/\//i.test(body), body }, quotedId);
    },

    /** #33.7 Graph's reaction message: `emoji` '' removes the business's reaction to `messageId`. */
    sendReaction(to: string, messageId: string, emoji: string): Promise<SendResult> {
      return send(to, 'reaction', { message_id: messageId, emoji });
    },

    /** Uploads to Meta's media store; the id is valid for 30 days. */
    async uploadMedia(media: MediaPayload): Promise<string> {
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('type', media.mimetype);
      form.append(
        'file',
        new Blob([new Uint8Array(media.data)], { type: media.mimetype }),
        media.filename || `file.${extensionFor(media.mimetype)}`,
      );
      const answer = await call<{ id?: string }>(
        'POST',
        `${opts.phoneNumberId}/media`,
        'ERR_SENDING_WAPP_MSG',
        form,
      );
      if (!answer.id) throw new ChannelError('ERR_SENDING_WAPP_MSG', 'Graph API answered without a media id');
      return answer.id;
    },

    sendMediaById(
      to: string,
      kind: GraphMediaKind,
      mediaId: string,
      extra: { caption?: string; filename?: string; voice?: boolean; quotedId?: string } = {},
    ): Promise<SendResult> {
      const content: Record<string, unknown> = { id: mediaId };
      // Meta rejects captions on audio and stickers, and filenames on anything but documents.
      if (extra.caption && (kind === 'image' || kind === 'video' || kind === 'document'))
        content.caption = extra.caption;
      if (kind === 'document' && extra.filename) content.filename = extra.filename;
      if (kind === 'audio' && extra.voice) content.voice = true;
      return send(to, kind, content, extra.quotedId);
    },

    /**
     * A template message (outside the 24-hour window): `template` is Graph's own object
     * ({ name, language: { code }, components: [{ type: 'body', parameters: [{ type: 'text', text }] }] }).
     */
    sendTemplate(to: string, template: GraphTemplateSend): Promise<SendResult> {
      return send(to, 'template', template as unknown as Record<string, unknown>);
    },

    /** Reply buttons or a list: Graph's `interactive` object (channel.ts InteractiveSend). */
    sendInteractive(to: string, interactive: InteractiveSend, quotedId?: string): Promise<SendResult> {
      return send(to, 'interactive', interactive as unknown as Record<string, unknown>, quotedId);
    },

    /**
     * One page of the WhatsApp Business Account's templates (GET /{WABA-ID}/message_templates); `after` is
     * the previous page's paging.cursors.after. The next page exists when Graph names `paging.next`.
     */
    async templatesPage(
      businessAccountId: string,
      after?: string,
    ): Promise<{ data: GraphTemplate[]; after?: string }> {
      const q = new URLSearchParams({
        fields: 'id,name,language,category,status,components',
        limit: '100',
        ...(after ? { after } : {}),
      });
      const answer = await call<{
        data?: GraphTemplate[];
        paging?: { cursors?: { after?: string }; next?: string };
      }>(
        'GET',
        `${encodeURIComponent(businessAccountId)}/message_templates?${q}`,
        'ERR_WAPP_NOT_INITIALIZED',
      );
      const next = answer.paging?.next ? answer.paging.cursors?.after : undefined;
      return { data: Array.isArray(answer.data) ? answer.data : [], ...(next ? { after: next } : {}) };
    },

    async markRead(messageId: string): Promise<void> {
      await call('POST', `${opts.phoneNumberId}/messages`, 'ERR_SENDING_WAPP_MSG', {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: messageId,
      });
    },

    mediaInfo,

    /** Looks the media up, then downloads it with the bearer token (Meta's media URLs require it). */
    async downloadMedia(mediaId: string): Promise<{ data: Buffer; mimetype: string }> {
      const info = await mediaInfo(mediaId);
      if (!info.url)
        throw new ChannelError('ERR_WAPP_DOWNLOAD_MEDIA', 'Graph API answered without a media URL');
      if (info.file_size && info.file_size > maxMediaBytes)
        throw new ChannelError('ERR_WAPP_DOWNLOAD_MEDIA', `Media too large (${info.file_size} bytes)`);
      // The bearer token goes only to Meta's media hosts (checked on every redirect hop as well).
      const { data, contentType } = await download(info.url, maxMediaBytes, true);
      const mimetype = info.mime_type || contentType || 'application/octet-stream';
      return { data, mimetype };
    },

    /**
     * The number this connection sends from; a cheap call that also proves the token works. Graph always
     * answers with the object's `id`: the channel checks it to know the base URL really is Graph.
     */
    phoneNumber(
      timeout = 5_000,
    ): Promise<{ id?: unknown; display_phone_number?: string; verified_name?: string }> {
      return call(
        'GET',
        `${opts.phoneNumberId}?fields=display_phone_number,verified_name`,
        'ERR_WAPP_NOT_INITIALIZED',
        undefined,
        timeout,
      );
    },

    checkNumber: checkCloudNumber,

    profilePicture(): null {
      return null;
    },
  };
}

export type GraphClient = ReturnType<typeof graphClient>;
