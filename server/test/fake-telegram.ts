import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Telegram Bot API (https://core.telegram.org/bots/api), on a real port: `POST
 * /bot<token>/<method>` with JSON or multipart bodies answering `{ ok: true, result }` or `{ ok: false,
 * error_code, description }` as Telegram does, and `GET /file/bot<token>/<file_path>` for files. It records
 * every call so tests can assert what went over the wire. Point TELEGRAM_API_URL at `url`.
 */

export interface TelegramCall {
  token: string;
  method: string;
  /** JSON body, or the multipart fields (files as { type, name, data }). */
  body: Record<string, unknown>;
}

export interface FakeTelegram {
  url: string;
  /** A token the stand-in accepts (bot @recado_test_bot). */
  token: string;
  username: string;
  calls: TelegramCall[];
  /** The webhook each token registered, with its secret token. */
  webhooks: Map<string, { url: string; secretToken: string }>;
  /** Files customers sent: file_id → bytes and path (getFile answers the path). */
  addFile(data: Buffer, path: string): string;
  /** Messages the bot sent, as Telegram keeps them: chat id → texts/files. */
  sent: {
    chatId: string;
    messageId: number;
    method: string;
    text?: string;
    file?: { name: string; type: string; data: Buffer };
  }[];
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** `port`: a fixed one (the browser tests' server is told it beforehand), else any free one. */
export async function startFakeTelegram(opts: { port?: number } = {}): Promise<FakeTelegram> {
  const token = '123456789:AAFakeTokenForRecadoTests_0123456789';
  const files = new Map<string, { data: Buffer; path: string }>();
  let nextMessage = 1000;
  let nextFile = 1;
  const state = {
    calls: [] as TelegramCall[],
    webhooks: new Map<string, { url: string; secretToken: string }>(),
    sent: [] as FakeTelegram['sent'],
  };

  const answer = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: import('node:http').ServerResponse, code: number, description: string) =>
    answer(res, code, { ok: false, error_code: code, description });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (req.method === 'GET' && file) {
        if (file[1] !== token) return fail(res, 401, 'Unauthorized');
        const hit = [...files.values()].find((f) => f.path === file[2]);
        if (!hit) return fail(res, 404, 'Not Found');
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': hit.data.length });
        return res.end(hit.data);
      }
      const call = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!call) return fail(res, 404, 'Not Found');
      const [, tok, method] = call as unknown as [string, string, string];
      const raw = await readBody(req);
      const type = req.headers['content-type'] ?? '';
      let body: Record<string, unknown> = {};
      if (type.startsWith('multipart/form-data')) {
        const form = await new Response(new Uint8Array(raw), {
          headers: { 'content-type': type },
        }).formData();
        for (const [k, v] of form.entries())
          body[k] =
            typeof v === 'string'
              ? v
              : { type: v.type, name: v.name, data: Buffer.from(await v.arrayBuffer()) };
      } else if (raw.length) body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      state.calls.push({ token: tok, method: method!, body });
      // Telegram answers an unknown token with 401 on every method (404 for a malformed one).
      if (tok !== token) return fail(res, 401, 'Unauthorized');
      const chatId = String(body.chat_id ?? '');
      const sendOk = (text?: string, f?: { name: string; type: string; data: Buffer }) => {
        const messageId = nextMessage++;
        state.sent.push({
          chatId,
          messageId,
          method: method!,
          ...(text !== undefined ? { text } : {}),
          ...(f ? { file: f } : {}),
        });
        return answer(res, 200, {
          ok: true,
          result: {
            message_id: messageId,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(chatId), type: 'private' },
            ...(text !== undefined ? { text } : {}),
          },
        });
      };
      switch (method) {
        case 'getMe':
          return answer(res, 200, {
            ok: true,
            result: { id: 123456789, is_bot: true, first_name: 'Recado Test', username: 'recado_test_bot' },
          });
        case 'setWebhook': {
          const u = String(body.url ?? '');
          if (!/^https?:\/\//.test(u))
            return fail(res, 400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
          state.webhooks.set(tok, { url: u, secretToken: String(body.secret_token ?? '') });
          return answer(res, 200, { ok: true, result: true, description: 'Webhook was set' });
        }
        case 'deleteWebhook':
          state.webhooks.delete(tok);
          return answer(res, 200, { ok: true, result: true });
        case 'sendMessage': {
          const text = String(body.text ?? '');
          if (!chatId) return fail(res, 400, 'Bad Request: chat_id is empty');
          if (!text) return fail(res, 400, 'Bad Request: message text is empty');
          if (text.length > 4096) return fail(res, 400, 'Bad Request: message is too long');
          return sendOk(text);
        }
        case 'sendPhoto':
        case 'sendDocument':
        case 'sendVoice':
        case 'sendVideo':
        case 'sendAudio': {
          const field = method.slice(4).toLowerCase();
          const f = body[field] as { name: string; type: string; data: Buffer } | undefined;
          if (!chatId || !f || typeof f !== 'object')
            return fail(res, 400, `Bad Request: there is no ${field} in the request`);
          return sendOk(typeof body.caption === 'string' ? body.caption : undefined, f);
        }
        case 'editMessageText':
          return answer(res, 200, { ok: true, result: true });
        case 'deleteMessage':
          return answer(res, 200, { ok: true, result: true });
        case 'getFile': {
          const hit = files.get(String(body.file_id ?? ''));
          if (!hit) return fail(res, 400, 'Bad Request: invalid file_id');
          return answer(res, 200, {
            ok: true,
            result: {
              file_id: body.file_id,
              file_unique_id: `u${body.file_id}`,
              file_size: hit.data.length,
              file_path: hit.path,
            },
          });
        }
        default:
          return fail(res, 404, 'Not Found: method not found');
      }
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    username: 'recado_test_bot',
    ...state,
    addFile(data, path) {
      const id = `F${nextFile++}`;
      files.set(id, { data, path });
      return id;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
