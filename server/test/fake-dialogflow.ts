import { createPublicKey, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenDetect {
  project: string;
  session: string;
  text: string;
  languageCode: string;
  /** The service account the bearer token was issued to. */
  clientEmail: string;
}

export interface SeenToken {
  clientEmail: string;
  /** The JWT's claims, after its RS256 signature was verified against the account's public key. */
  claims: Record<string, unknown>;
  header: Record<string, unknown>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString('utf8')));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

/** A Google service account with a fresh RSA key: the JSON an admin pastes, and its public key. */
export function serviceAccount(clientEmail: string, projectId: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const json = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: `kid-${projectId}`,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '1',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  return { json, clientEmail, publicKey };
}

type DetectAnswer = {
  status?: number;
  error?: { code: number; message: string; status: string };
  queryResult?: Record<string, unknown>;
};

/**
 * Google's OAuth token endpoint for service accounts (RFC 7523: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`,
 * `assertion=<JWT RS256>`, the signature verified with the registered account's public key, `aud` = the token
 * URL, not expired) and Dialogflow ES detect intent (`POST /v2/projects/{p}/agent/sessions/{s}:detectIntent`,
 * bearer token from the first). Each project belongs to one account (others get 403 PERMISSION_DENIED).
 * Default answers: "Df: <text>"; a text with "atendente" hits the `handover` intent; "tchau" ends the
 * conversation (endInteraction).
 */
export async function fakeDialogflow() {
  const tokensSeen: SeenToken[] = [];
  const detects: SeenDetect[] = [];
  const accounts = new Map<string, KeyObject>();
  const projects = new Map<string, string>();
  const tokens = new Map<string, string>();
  let seq = 0;
  const state = {
    expiresIn: 3600,
    answer: (d: SeenDetect): DetectAnswer => {
      if (/atendente/i.test(d.text))
        return {
          queryResult: {
            queryText: d.text,
            fulfillmentText: 'Vou chamar um atendente.',
            fulfillmentMessages: [{ text: { text: ['Vou chamar um atendente.'] } }],
            intent: { name: 'projects/x/agent/intents/1', displayName: 'handover' },
          },
        };
      if (/tchau/i.test(d.text))
        return {
          queryResult: {
            queryText: d.text,
            fulfillmentMessages: [{ text: { text: ['Até logo!'] } }],
            intent: { displayName: 'despedida', endInteraction: true },
          },
        };
      return {
        queryResult: {
          queryText: d.text,
          languageCode: d.languageCode,
          fulfillmentText: `Df: ${d.text}`,
          fulfillmentMessages: [{ text: { text: [`Df: ${d.text}`] } }],
          intent: { displayName: 'Default Fallback Intent' },
        },
      };
    },
  };
  let tokenUrl = '';
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method === 'POST' && path === '/token') {
      const form = new URLSearchParams(raw);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
        return json(400, { error: 'unsupported_grant_type' });
      const [h, c, sig] = (form.get('assertion') ?? '').split('.');
      if (!h || !c || !sig) return json(400, { error: 'invalid_grant', error_description: 'malformed JWT' });
      const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
      const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>;
      const key = accounts.get(String(claims.iss));
      const now = Math.floor(Date.now() / 1000);
      const valid =
        header.alg === 'RS256' &&
        key !== undefined &&
        createVerify('RSA-SHA256').update(`${h}.${c}`).verify(key, Buffer.from(sig, 'base64url')) &&
        claims.aud === tokenUrl &&
        typeof claims.exp === 'number' &&
        claims.exp > now &&
        String(claims.scope ?? '').includes('https://www.googleapis.com/auth/');
      if (!valid) return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      tokensSeen.push({ clientEmail: String(claims.iss), claims, header });
      const token = `ya29.fake-${++seq}`;
      tokens.set(token, String(claims.iss));
      return json(200, { access_token: token, expires_in: state.expiresIn, token_type: 'Bearer' });
    }
    const m = /^\/v2\/projects\/([^/]+)\/agent\/sessions\/([^/]+):detectIntent$/.exec(path);
    if (req.method === 'POST' && m) {
      const email = tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!email)
        return json(401, {
          error: {
            code: 401,
            message: 'Request had invalid authentication credentials.',
            status: 'UNAUTHENTICATED',
          },
        });
      const project = decodeURIComponent(m[1]!);
      if (projects.get(project) !== email)
        return json(403, {
          error: {
            code: 403,
            message: `Permission denied on project ${project}`,
            status: 'PERMISSION_DENIED',
          },
        });
      const body = JSON.parse(raw) as { queryInput?: { text?: { text?: string; languageCode?: string } } };
      const d: SeenDetect = {
        project,
        session: decodeURIComponent(m[2]!),
        text: body.queryInput?.text?.text ?? '',
        languageCode: body.queryInput?.text?.languageCode ?? '',
        clientEmail: email,
      };
      detects.push(d);
      const a = state.answer(d);
      if (a.error) return json(a.status ?? a.error.code, { error: a.error });
      return json(200, { responseId: `r-${detects.length}`, queryResult: a.queryResult });
    }
    json(404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tokenUrl = `${url}/token`;
  return {
    url,
    /** GOOGLE_TOKEN_URL */
    tokenUrl,
    /** DIALOGFLOW_API_URL */
    apiUrl: url,
    tokensSeen,
    detects,
    state,
    /** Registers a service account (its public key) as the owner of a project. */
    allow(account: { clientEmail: string; publicKey: KeyObject | string }, project: string) {
      accounts.set(
        account.clientEmail,
        typeof account.publicKey === 'string' ? createPublicKey(account.publicKey) : account.publicKey,
      );
      projects.set(project, account.clientEmail);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
