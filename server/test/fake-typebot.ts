import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenTypebot {
  call: 'startChat' | 'continueChat';
  /** The public id (startChat) or the session id (continueChat) in the path. */
  id: string;
  body: { prefilledVariables?: Record<string, unknown>; message?: unknown };
}

type Bubble = Record<string, unknown>;
export interface TypebotReply {
  messages: Bubble[];
  input?: { type: string; items?: { id: string; content: string }[] } | null;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString('utf8')));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

/** A text bubble in Typebot's rich-text (Slate) form. */
export const richText = (...paragraphs: Record<string, unknown>[][]): Bubble => ({
  type: 'text',
  content: { type: 'richText', richText: paragraphs.map((children) => ({ type: 'p', children })) },
});

/**
 * A local server speaking Typebot's chat API (docs.typebot.io, API v1): `POST /api/v1/typebots/{publicId}/startChat`
 * answers `{ sessionId, typebot, messages, input }`; `POST /api/v1/sessions/{sessionId}/continueChat` with
 * `{ message: { type: 'text', text } }` answers the next `messages` and `input` (404 for a session it does not know). The default flow:
 * a bold greeting with the prefilled name and a choice list (Vendas / Suporte); "Vendas" answers a text, an
 * image and a text input; "Suporte" ends the flow (no input); any other text is echoed with a text input.
 */
/** A 1×1 PNG: the image bubble's file. */
export const OFFER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export async function fakeTypebot() {
  let url = '';
  const seen: SeenTypebot[] = [];
  const sessions = new Map<string, { publicId: string; name: string }>();
  let seq = 0;
  const state = {
    /** The flow's published ids; others answer 404. */
    flows: new Set<string>(['loja']),
    /** Answers 500 to everything while true. */
    broken: false,
    start: (publicId: string, vars: Record<string, unknown>): TypebotReply => ({
      messages: [
        richText([
          { text: 'Olá ' },
          { text: String(vars.name ?? ''), bold: true },
          { text: ', bem-vindo à ' },
          { text: publicId, italic: true },
        ]),
      ],
      input: {
        type: 'choice input',
        items: [
          { id: 'c1', content: 'Vendas' },
          { id: 'c2', content: 'Suporte' },
        ],
      },
    }),
    next: (message: string): TypebotReply => {
      if (message === 'Vendas')
        return {
          messages: [
            richText([{ text: 'Veja nossa ' }, { text: 'oferta', bold: true, italic: true }]),
            { type: 'image', content: { url: `${url}/media/oferta.png` } },
          ],
          input: { type: 'text input' },
        };
      if (message === 'Suporte')
        return { messages: [richText([{ text: 'Um atendente vai falar com você.' }])] };
      return { messages: [richText([{ text: `Bot: ${message}` }])], input: { type: 'text input' } };
    },
  };
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (state.broken) return json(500, { message: 'Internal error' });
    const path = (req.url ?? '').split('?')[0]!;
    let body: SeenTypebot['body'] = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return json(400, { message: 'invalid JSON' });
    }
    const start = /^\/api\/v1\/typebots\/([^/]+)\/startChat$/.exec(path);
    if (req.method === 'POST' && start) {
      const publicId = decodeURIComponent(start[1]!);
      seen.push({ call: 'startChat', id: publicId, body });
      if (!state.flows.has(publicId)) return json(404, { message: 'Typebot not found' });
      const sessionId = `sess-${++seq}-${publicId}`;
      const vars = body.prefilledVariables ?? {};
      sessions.set(sessionId, { publicId, name: String(vars.name ?? '') });
      return json(200, {
        sessionId,
        typebot: { id: publicId, theme: {}, settings: {} },
        ...state.start(publicId, vars),
      });
    }
    const next = /^\/api\/v1\/sessions\/([^/]+)\/continueChat$/.exec(path);
    if (req.method === 'POST' && next) {
      const sessionId = decodeURIComponent(next[1]!);
      seen.push({ call: 'continueChat', id: sessionId, body });
      if (!sessions.has(sessionId)) return json(404, { message: 'Session not found.' });
      // The documented `{ type: 'text', text }` (the older plain string is taken too).
      const m = body.message as { type?: string; text?: string } | string | undefined;
      const message = typeof m === 'string' ? m : m?.type === 'text' ? (m.text ?? '') : '';
      return json(200, state.next(message));
    }
    // The flow's media, as a Typebot's file storage serves it.
    if (req.method === 'GET' && path === '/media/oferta.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(OFFER_PNG);
    }
    json(404, { message: 'not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    state,
    /** Forgets every session (Typebot restarted or expired them). */
    forget: () => sessions.clear(),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
