import type { MediaPayload } from '../../channel.js';

/**
 * The few Telegram Bot API calls a connection needs (https://core.telegram.org/bots/api), against
 * `<apiUrl>/bot<token>/<method>`; files from `<apiUrl>/file/bot<token>/<file_path>`. The token is part of
 * the URL by the Bot API's design: no error, log line or thrown message here ever carries the URL.
 */

export interface TelegramUser {
  id: number;
  is_bot?: boolean;
  first_name?: string;
  last_name?: string;
  username?: string;
}

export interface TelegramSentMessage {
  message_id: number;
  date: number;
  chat: { id: number };
}

/** A Bot API refusal (`ok: false`): the HTTP status and Telegram's own description. */
export class TelegramApiError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The Bot API's file download limit (getFile answers files up to 20 MB). */
export const TELEGRAM_MAX_DOWNLOAD = 20 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export function telegramClient(opts: { apiUrl: string; token: string }) {
  const base = `${opts.apiUrl.replace(/\/+$/, '')}/bot${opts.token}`;
  /** The network's own words without the URL (which holds the token). */
  const hide = (text: string) => text.split(opts.token).join('***');

  async function call<T>(method: string, body?: Record<string, unknown> | FormData): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}/${method}`, {
        method: 'POST',
        ...(body instanceof FormData
          ? { body }
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(
        hide(`Telegram unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`),
      );
    }
    const answer = (await res.json().catch(() => null)) as {
      ok?: boolean;
      result?: T;
      description?: string;
      parameters?: { retry_after?: number };
    } | null;
    if (!answer || typeof answer.ok !== 'boolean')
      throw new TelegramApiError(res.status, `Not a Bot API answer (HTTP ${res.status})`);
    if (!answer.ok)
      throw new TelegramApiError(
        res.status,
        hide(String(answer.description ?? `HTTP ${res.status}`)).slice(0, 300),
        answer.parameters?.retry_after,
      );
    return answer.result as T;
  }

  return {
    getMe: () => call<TelegramUser>('getMe'),
    setWebhook: (url: string, secretToken: string) =>
      call<boolean>('setWebhook', {
        url,
        secret_token: secretToken,
        allowed_updates: ['message', 'edited_message'],
      }),
    deleteWebhook: () => call<boolean>('deleteWebhook', {}),
    sendMessage: (chatId: string, text: string, replyTo?: number) =>
      call<TelegramSentMessage>('sendMessage', {
        chat_id: chatId,
        text,
        ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
      }),
    /** sendPhoto / sendDocument / sendVoice / sendVideo / sendAudio, the file as multipart form data. */
    sendFile: (
      method: 'sendPhoto' | 'sendDocument' | 'sendVoice' | 'sendVideo' | 'sendAudio',
      field: 'photo' | 'document' | 'voice' | 'video' | 'audio',
      chatId: string,
      file: MediaPayload,
      caption?: string,
      replyTo?: number,
    ) => {
      const form = new FormData();
      form.set('chat_id', chatId);
      if (caption) form.set('caption', caption);
      if (replyTo)
        form.set(
          'reply_parameters',
          JSON.stringify({ message_id: replyTo, allow_sending_without_reply: true }),
        );
      form.set(
        field,
        new Blob([new Uint8Array(file.data)], { type: file.mimetype }),
        file.filename || 'file',
      );
      return call<TelegramSentMessage>(method, form);
    },
    editMessageText: (chatId: string, messageId: number, text: string) =>
      call<unknown>('editMessageText', { chat_id: chatId, message_id: messageId, text }),
    deleteMessage: (chatId: string, messageId: number) =>
      call<boolean>('deleteMessage', { chat_id: chatId, message_id: messageId }),
    /** getFile, then the file itself (at most TELEGRAM_MAX_DOWNLOAD bytes). */
    async download(fileId: string): Promise<{ data: Buffer; path: string }> {
      const file = await call<{ file_id: string; file_path?: string; file_size?: number }>('getFile', {
        file_id: fileId,
      });
      if (!file.file_path) throw new Error('Telegram gave no file path (a file over 20 MB?)');
      let res: Response;
      try {
        res = await fetch(`${opts.apiUrl.replace(/\/+$/, '')}/file/bot${opts.token}/${file.file_path}`, {
          signal: AbortSignal.timeout(TIMEOUT_MS),
          redirect: 'error',
        });
      } catch (err) {
        throw new Error(hide(`Telegram file unreachable: ${(err as Error).message}`));
      }
      if (!res.ok) throw new TelegramApiError(res.status, `File download failed (HTTP ${res.status})`);
      const length = Number(res.headers.get('content-length') ?? 0);
      if (length > TELEGRAM_MAX_DOWNLOAD) throw new Error('File over 20 MB');
      const data = Buffer.from(await res.arrayBuffer());
      if (data.length > TELEGRAM_MAX_DOWNLOAD) throw new Error('File over 20 MB');
      return { data, path: file.file_path };
    },
  };
}
export type TelegramClient = ReturnType<typeof telegramClient>;
