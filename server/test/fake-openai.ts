import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions request as the fake OpenAI server received it. */
export interface SeenCompletion {
  authorization: string;
  path: string;
  body: {
    model: string;
    max_tokens?: number;
    temperature?: number;
    messages: { role: string; content: string }[];
  };
}

export interface SeenTranscription {
  authorization: string;
  /** The raw multipart body (latin1), to look for the model name and the file's bytes. */
  raw: string;
}

type Answer = { status?: number; content?: string; error?: { message: string; type: string; code: string } };

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

/**
 * A local server speaking OpenAI's documented REST protocol for what Recado uses: `POST /v1/chat/completions`
 * (the answer chosen by `answer`, by default an echo of the last user turn) and
 * `POST /v1/audio/transcriptions` (multipart; answers `{ text }`). Keys listed in `invalidKeys` get
 * OpenAI's 401 `invalid_api_key`, keys in `quotaKeys` its 429 `insufficient_quota`.
 */
export async function fakeOpenAi(port = 0) {
  const completions: SeenCompletion[] = [];
  const transcriptions: SeenTranscription[] = [];
  const state = {
    answer: (req: SeenCompletion): Answer => {
      const last = [...req.body.messages].reverse().find((m) => m.role === 'user');
      return { content: `Eco: ${last?.content ?? ''}` };
    },
    transcript: 'texto do áudio',
    invalidKeys: new Set<string>(),
    quotaKeys: new Set<string>(),
  };
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const authorization = String(req.headers.authorization ?? '');
    const key = authorization.replace(/^Bearer /, '');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (state.invalidKeys.has(key))
      return json(401, {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    if (state.quotaKeys.has(key))
      return json(429, {
        error: {
          message: 'You exceeded your current quota',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        },
      });
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method === 'POST' && path.endsWith('/chat/completions')) {
      const seen: SeenCompletion = { authorization, path, body: JSON.parse(raw.toString('utf8')) };
      completions.push(seen);
      const a = state.answer(seen);
      if (a.error) return json(a.status ?? 400, { error: a.error });
      return json(200, {
        id: `chatcmpl-${completions.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: seen.body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: a.content ?? '' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    if (req.method === 'POST' && path.endsWith('/audio/transcriptions')) {
      transcriptions.push({ authorization, raw: raw.toString('latin1') });
      return json(200, { text: state.transcript });
    }
    json(404, { error: { message: 'not found', type: 'invalid_request_error', code: null } });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** What OPENAI_BASE_URL (or a prompt's base URL) should be. */
    baseUrl: `${url}/v1`,
    completions,
    transcriptions,
    state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
