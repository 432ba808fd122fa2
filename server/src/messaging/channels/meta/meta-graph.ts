import { ChannelError, type MediaPayload, type SendResult } from '../../channel.js';
import { extensionFor, graphCaller, type GraphClientOptions } from '../cloud-api/graph-client.js';
import type { MetaChannelKind } from './meta-config.js';

/**
 * A small client of the Messenger Platform's Graph calls for one page (Messenger) or Instagram professional
 * account: the Send API, attachment upload, the user profile, and attachment downloads. It rides on the Cloud
 * API's graphCaller (same base URL handling, CLOUD_API_GRAPH_URL, outbound-URL guard, error shape); the page
 * access token only travels in the Authorization header.
 */

export type MetaAttachmentType = 'image' | 'audio' | 'video' | 'file';

/** Meta's attachment types for a MIME type (anything not shown inline goes as a file). */
export function attachmentTypeFor(mimetype: string): MetaAttachmentType {
  const m = mimetype.toLowerCase().split(';')[0]!.trim();
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  return 'file';
}

/**
 * `RESPONSE` within 24 hours of the customer's last message; `HUMAN_AGENT` (a person answering, up to 7 days
 * after it) outside (docs/channels.md "Instagram and Messenger").
 */
export type MetaMessagingTag = 'HUMAN_AGENT';

export function metaGraphClient(
  opts: Omit<GraphClientOptions, 'phoneNumberId' | 'accessToken'> & {
    channel: MetaChannelKind;
    accountId: string;
    pageAccessToken: string;
  },
) {
  const { call, download } = graphCaller({ ...opts, accessToken: opts.pageAccessToken });
  const maxMediaBytes = opts.maxMediaBytes ?? 25 * 1024 * 1024;

  async function send(
    recipientId: string,
    message: Record<string, unknown>,
    tag?: MetaMessagingTag,
  ): Promise<SendResult> {
    const answer = await call<{ recipient_id?: string; message_id?: string }>(
      'POST',
      'me/messages',
      'ERR_SENDING_WAPP_MSG',
      {
        recipient: { id: recipientId },
        ...(tag ? { messaging_type: 'MESSAGE_TAG', tag } : { messaging_type: 'RESPONSE' }),
        message,
      },
    );
    if (!answer.message_id)
      throw new ChannelError('ERR_SENDING_WAPP_MSG', 'Graph API answered without a message id');
    return { providerId: answer.message_id, timestamp: new Date() };
  }

  return {
    /** The page or Instagram account this connection speaks for; proves the token and that this is Graph. */
    account(timeout = 5_000): Promise<{ id?: unknown; name?: string; username?: string }> {
      const fields = opts.channel === 'messenger' ? 'id,name' : 'id,username,name';
      return call(
        'GET',
        `${encodeURIComponent(opts.accountId)}?fields=${fields}`,
        'ERR_WAPP_NOT_INITIALIZED',
        undefined,
        timeout,
      );
    },

    sendText(recipientId: string, text: string, extra: { tag?: MetaMessagingTag; replyTo?: string } = {}) {
      return send(
        recipientId,
        { text, ...(extra.replyTo ? { reply_to: { mid: extra.replyTo } } : {}) },
        extra.tag,
      );
    },

    /** Uploads a file to Meta (POST /me/message_attachments); the attachment id is reusable. */
    async uploadAttachment(media: MediaPayload, type: MetaAttachmentType): Promise<string> {
      const form = new FormData();
      form.append('message', JSON.stringify({ attachment: { type, payload: { is_reusable: true } } }));
      form.append(
        'filedata',
        new Blob([new Uint8Array(media.data)], { type: media.mimetype }),
        media.filename || `file.${extensionFor(media.mimetype)}`,
      );
      const answer = await call<{ attachment_id?: string }>(
        'POST',
        'me/message_attachments',
        'ERR_SENDING_WAPP_MSG',
        form,
      );
      if (!answer.attachment_id)
        throw new ChannelError('ERR_SENDING_WAPP_MSG', 'Graph API answered without an attachment id');
      return answer.attachment_id;
    },

    sendAttachment(
      recipientId: string,
      type: MetaAttachmentType,
      attachmentId: string,
      tag?: MetaMessagingTag,
    ) {
      return send(recipientId, { attachment: { type, payload: { attachment_id: attachmentId } } }, tag);
    },

    async markSeen(recipientId: string): Promise<void> {
      await call('POST', 'me/messages', 'ERR_SENDING_WAPP_MSG', {
        recipient: { id: recipientId },
        sender_action: 'mark_seen',
      });
    },

    /** The customer's name (Messenger: first and last name; Instagram: name, else username), or undefined. */
    async profileName(userId: string): Promise<string | undefined> {
      const fields = opts.channel === 'messenger' ? 'first_name,last_name' : 'name,username';
      const p = await call<{ first_name?: string; last_name?: string; name?: string; username?: string }>(
        'GET',
        `${encodeURIComponent(userId)}?fields=${fields}`,
        'ERR_WAPP_CHECK_CONTACT',
      );
      const full = [p.first_name, p.last_name].filter(Boolean).join(' ').trim();
      return full || p.name?.trim() || p.username?.trim() || undefined;
    },

    /** An attachment's bytes from the URL the webhook named (Meta's CDN only; signed URLs, no token). */
    async downloadAttachment(url: string): Promise<{ data: Buffer; mimetype: string | undefined }> {
      const { data, contentType } = await download(url, maxMediaBytes, false);
      return { data, mimetype: contentType };
    },
  };
}

export type MetaGraphClient = ReturnType<typeof metaGraphClient>;
