import { createHash, createSign } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { AutomationError, type IntegrationRuntime, type RuntimeLog } from './runtime.js';

export const DIALOGFLOW_TIMEOUT_MS = 15_000;
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/dialogflow';

interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
  private_key_id?: string;
}

interface DetectIntentAnswer {
  queryResult?: {
    fulfillmentText?: string;
    fulfillmentMessages?: {
      text?: { text?: string[] };
      payload?: Record<string, unknown>;
      platform?: string;
    }[];
    intent?: { displayName?: string; endInteraction?: boolean };
    diagnosticInfo?: Record<string, unknown>;
  };
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A JWT (RS256) asserting the service account, for Google's OAuth token endpoint (RFC 7523). */
export function serviceAccountAssertion(sa: ServiceAccount, audience: string, nowMs: number) {
  const iat = Math.floor(nowMs / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(sa.private_key_id ? { kid: sa.private_key_id } : {}) };
  const claims = {
    iss: sa.client_email,
    sub: sa.client_email,
    scope: SCOPE,
    aud: audience,
    iat,
    exp: iat + 3600,
  };
  const unsigned = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(sa.private_key);
  return `${unsigned}.${b64url(signature)}`;
}

/** Intents that hand the conversation to people (besides "end of conversation"). */
const HANDOVER_INTENT = /^(handover|handoff|human|humano|atendente|transferir|falar[ _-]com[ _-]atendente)/i;

/** What a detect-intent answer means: the texts to send and whether people take the ticket. */
export function readDetectIntent(a: DetectIntentAnswer): { replies: string[]; handoff: boolean } {
  const r = a.queryResult ?? {};
  const replies: string[] = [];
  let payloadHandover = false;
  for (const m of r.fulfillmentMessages ?? []) {
    if (m.platform && m.platform !== 'PLATFORM_UNSPECIFIED') continue;
    for (const t of m.text?.text ?? []) if (t.trim()) replies.push(t.trim());
    if (m.payload && (m.payload.handover === true || m.payload.humanHandoff === true)) payloadHandover = true;
  }
  if (!replies.length && r.fulfillmentText?.trim()) replies.push(r.fulfillmentText.trim());
  const handoff =
    r.intent?.endInteraction === true ||
    r.diagnosticInfo?.end_conversation === true ||
    payloadHandover ||
    HANDOVER_INTENT.test(r.intent?.displayName ?? '');
  return { replies, handoff };
}

/** A provider error safe to show: status and Google's error status, never the key or the text sent. */
async function providerError(what: string, res: Response) {
  let status = '';
  try {
    const body = (await res.json()) as { error?: { status?: string } | string };
    status = typeof body.error === 'string' ? body.error : (body.error?.status ?? '');
  } catch {
    /* not JSON */
  }
  return new AutomationError(`${what} respondeu ${res.status}${status ? ` ${status.slice(0, 60)}` : ''}`);
}

/**
 * Dialogflow ES. The OAuth token comes from the integration's sealed service account (JWT RS256 signed with
 * node:crypto, exchanged at GOOGLE_TOKEN_URL, cached until a minute before it expires); detect intent is
 * `POST {DIALOGFLOW_API_URL}/v2/projects/{project}/agent/sessions/{session}:detectIntent`. Both URLs are
 * the operator's (configuration), so the platform's fetch is used, with a timeout.
 */
export function dialogflowClient(deps: {
  box: SecretBox;
  clock: Clock;
  config: { dialogflowApiUrl: string; googleTokenUrl: string };
  log: RuntimeLog;
  timeoutMs?: number;
}) {
  const tokens = new Map<string, { token: string; until: number }>();
  const timeout = () => AbortSignal.timeout(deps.timeoutMs ?? DIALOGFLOW_TIMEOUT_MS);

  async function request(url: string, init: RequestInit, what: string) {
    try {
      return await fetch(url, { ...init, signal: timeout() });
    } catch (err) {
      const name = err instanceof Error ? err.name : 'unknown';
      throw new AutomationError(`${what} inacessível (${name})`);
    }
  }

  async function token(sa: ServiceAccount): Promise<string> {
    // Cached per account and key (a changed key gets a new token); the key itself is never a map key.
    const id = createHash('sha256').update(`${sa.client_email}\n${sa.private_key}`).digest('hex');
    const now = deps.clock.now().getTime();
    const cached = tokens.get(id);
    if (cached && cached.until > now) return cached.token;
    let assertion: string;
    try {
      assertion = serviceAccountAssertion(sa, deps.config.googleTokenUrl, now);
    } catch {
      throw new AutomationError('a chave privada da conta de serviço é inválida');
    }
    deps.log.info({ clientEmail: sa.client_email }, 'google oauth token request');
    const res = await request(
      deps.config.googleTokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion,
        }).toString(),
      },
      'Google OAuth',
    );
    if (!res.ok) throw await providerError('Google OAuth', res);
    const body = (await res.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new AutomationError('Google OAuth não devolveu access_token');
    const until = now + Math.max(0, (body.expires_in ?? 3600) - 60) * 1000;
    if (tokens.size > 1000) tokens.clear();
    tokens.set(id, { token: body.access_token, until });
    return body.access_token;
  }

  /** One detect-intent call for a text in a session of the agent. */
  async function detectIntent(o: {
    account: ServiceAccount;
    project: string;
    session: string;
    text: string;
    languageCode: string;
  }) {
    const access = await token(o.account);
    const url =
      `${deps.config.dialogflowApiUrl}/v2/projects/${encodeURIComponent(o.project)}` +
      `/agent/sessions/${encodeURIComponent(o.session)}:detectIntent`;
    deps.log.info({ project: o.project, session: o.session }, 'dialogflow detectIntent');
    const res = await request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${access}` },
        body: JSON.stringify({
          queryInput: { text: { text: o.text.slice(0, 256), languageCode: o.languageCode } },
        }),
      },
      'Dialogflow',
    );
    if (!res.ok) throw await providerError('Dialogflow', res);
    return readDetectIntent((await res.json()) as DetectIntentAnswer);
  }

  const runtime: IntegrationRuntime = {
    kind: 'dialogflow',
    label: 'Dialogflow',
    async run({ ticket, integration, state, text }) {
      if (!integration.jsonContentSealed) throw new AutomationError('conta de serviço ausente');
      let account: ServiceAccount;
      try {
        account = JSON.parse(deps.box.open(integration.jsonContentSealed)) as ServiceAccount;
      } catch {
        throw new AutomationError('conta de serviço ilegível (APP_SECRET mudou?)');
      }
      // A session per ticket: two customers' contexts never mix.
      const session = state.sessionId ?? `recado-${ticket.companyId}-${ticket.id}`;
      if (!text.trim()) return { replies: [], session: { id: session } };
      const answer = await detectIntent({
        account,
        project: integration.projectName,
        session,
        text,
        languageCode: integration.language || 'pt-BR',
      });
      return { ...answer, session: { id: session } };
    },
  };

  return { runtime, detectIntent };
}
export type DialogflowClient = ReturnType<typeof dialogflowClient>;
