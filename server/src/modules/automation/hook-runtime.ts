import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import {
  companies,
  contacts,
  messages,
  queueIntegrations,
  tickets,
  whatsapps,
} from '../../db/schema/index.js';
import { HookAnswer, type HookAction } from '@recado/contracts';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { signatureHeaders } from '../../lib/webhook-signature.js';
import { integrationHookSecret } from '../queue-integrations/hook-secret.js';
import { tenantFetch } from './outbound-fetch.js';
import type { IntegrationRuntime, RuntimeLog } from './runtime.js';

export const HOOK_TIMEOUT_MS = 15_000;
/**
 * Tries of one POST (retried after 10 s, 20 s, 40 s, ...). The ticket goes to people at the first failure
 * (the customer is waiting); the later tries only deliver the message to the flow in the background.
 */
export const HOOK_MAX_ATTEMPTS = 5;
/** The largest answer read from a hook (its actions). */
const ANSWER_MAX_BYTES = 64_000;

/** What a hook's answer asks for: its actions, or why it cannot be read (an automation failure). */
export function readHookAnswer(
  body: string,
  contentType: string,
): { actions: HookAction[] } | { error: string } {
  const text = body.trim();
  if (!text) return { actions: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // A plain-text answer ("Workflow was started") carries no actions; a broken JSON one is a failure.
    return /json/i.test(contentType) ? { error: 'resposta não é um JSON válido' } : { actions: [] };
  }
  // Only an object with `actions` asks for something (n8n's default answers have no such key).
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !('actions' in json))
    return { actions: [] };
  const parsed = HookAnswer.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'actions';
    return { error: `resposta inválida em ${where}: ${(issue?.message ?? 'invalid').slice(0, 80)}` };
  }
  return { actions: parsed.data.actions ?? [] };
}

/** One hook exchange, as the engine is told about it. */
export interface HookExchange {
  ticketId: number;
  integrationId: number;
  kind: 'n8n' | 'webhook';
  label: string;
  attempt: number;
}

/** The JSON POSTed to an n8n / webhook integration for each customer message (docs/automation.md). */
export interface HookPayload {
  event: 'message';
  integration: { id: number; type: string; name: string };
  company: { id: number; name: string };
  connection: { id: number; name: string; number: string } | null;
  ticket: { id: number; status: string; queueId: number | null; whatsappId: number | null };
  contact: { id: number; name: string; number: string } | null;
  message: {
    id: number;
    providerId: string;
    body: string;
    mediaType: string | null;
    /** Where the file can be downloaded with a user's or the API's token; null without a file. */
    mediaUrl: string | null;
    createdAt: string;
  };
}

/**
 * n8n and webhook integrations: each customer message is POSTed as JSON to the integration's `urlN8N` from a
 * durable job (`automation.hook`, retried with back-off); the flow answers through the external messaging
 * API or acts through its answer's actions (`onAnswer`). The URL is the tenant's: checked when saved and
 * reached through safeFetch only. A failed try is reported (`onFailure`: people take the ticket) and retried.
 */
export function hookRuntime(deps: {
  db: Db;
  /** Opens (or makes) the integration's signing secret. */
  box: SecretBox;
  clock: Clock;
  jobs: JobQueue;
  publicUrl: string;
  allowPrivateUrls: boolean;
  log: RuntimeLog;
  /** A try failed (the receiver's status, a timeout, a refused address). */
  onFailure: (companyId: number, exchange: HookExchange, reason: string) => Promise<void>;
  /** The receiver answered 2xx: its body may carry actions. */
  onAnswer: (
    companyId: number,
    exchange: HookExchange,
    answer: { body: string; contentType: string },
  ) => Promise<void>;
  timeoutMs?: number;
  retryDelayMs?: number;
}) {
  const { db } = deps;

  async function payloadOf(companyId: number, messageId: number, integrationId: number) {
    const [row] = await db
      .select({ message: messages, ticket: tickets, company: companies })
      .from(messages)
      .innerJoin(tickets, eq(tickets.id, messages.ticketId))
      .innerJoin(companies, eq(companies.id, tickets.companyId))
      .where(
        and(eq(messages.id, messageId), eq(messages.companyId, companyId), eq(tickets.companyId, companyId)),
      );
    const [integration] = await db
      .select()
      .from(queueIntegrations)
      .where(and(eq(queueIntegrations.id, integrationId), eq(queueIntegrations.companyId, companyId)));
    if (!row || !integration) return null;
    const [contact] = row.ticket.contactId
      ? await db
          .select({ id: contacts.id, name: contacts.name, number: contacts.number })
          .from(contacts)
          .where(and(eq(contacts.id, row.ticket.contactId), eq(contacts.companyId, companyId)))
      : [];
    const [connection] = row.ticket.whatsappId
      ? await db
          .select({ id: whatsapps.id, name: whatsapps.name, number: whatsapps.number })
          .from(whatsapps)
          .where(and(eq(whatsapps.id, row.ticket.whatsappId), eq(whatsapps.companyId, companyId)))
      : [];
    const m = row.message;
    const payload: HookPayload = {
      event: 'message',
      integration: { id: integration.id, type: integration.type, name: integration.name },
      company: { id: row.company.id, name: row.company.name },
      connection: connection ?? null,
      ticket: {
        id: row.ticket.id,
        status: row.ticket.status,
        queueId: row.ticket.queueId,
        whatsappId: row.ticket.whatsappId,
      },
      contact: contact ?? null,
      message: {
        id: m.id,
        providerId: m.providerId,
        body: m.body,
        mediaType: m.mediaType,
        mediaUrl: m.mediaUrl ? `${deps.publicUrl.replace(/\/+$/, '')}/api/messages/${m.id}/media` : null,
        createdAt: m.createdAt.toISOString(),
      },
    };
    const kind: 'n8n' | 'webhook' = integration.type === 'n8n' ? 'n8n' : 'webhook';
    return { payload, url: integration.urlN8N, kind, label: kind };
  }

  const post = defineJob({
    kind: 'automation.hook',
    payload: z.object({
      messageId: z.number().int(),
      ticketId: z.number().int(),
      integrationId: z.number().int(),
    }),
    options: { maxAttempts: HOOK_MAX_ATTEMPTS, retryDelayMs: deps.retryDelayMs ?? 10_000, leaseMs: 60_000 },
    handler: async (job) => {
      const companyId = job.companyId;
      if (companyId === null) return;
      const { messageId, ticketId, integrationId } = job.payload;
      // Read first, then call: no transaction is open while the flow answers.
      const built = await payloadOf(companyId, messageId, integrationId);
      if (!built) return; // the integration or the message is gone: nothing to deliver
      const ctx = { ticketId, integrationId, messageId, attempt: job.attempts };
      const exchange: HookExchange = {
        ticketId,
        integrationId,
        kind: built.kind,
        label: built.label,
        attempt: job.attempts,
      };
      let failure: string | null = null;
      let answer = { body: '', contentType: '' };
      const body = JSON.stringify(built.payload);
      // Signed like the outgoing webhooks: HMAC of "<timestamp>.<body>" with the integration's secret.
      const secret = await integrationHookSecret(db, deps.box, companyId, integrationId);
      if (!secret) return;
      try {
        deps.log.info(ctx, 'automation hook POST');
        const res = await tenantFetch({
          allowPrivate: deps.allowPrivateUrls,
          timeoutMs: deps.timeoutMs ?? HOOK_TIMEOUT_MS,
          maxBytes: ANSWER_MAX_BYTES,
        })(built.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Recado-Automation',
            ...signatureHeaders(secret, body, deps.clock.now()),
          },
          body,
        });
        if (!res.ok) failure = `HTTP ${res.status}`;
        else answer = { body: await res.text(), contentType: res.headers.get('content-type') ?? '' };
      } catch (err) {
        failure =
          err instanceof Error ? (err.name === 'Error' ? err.message.slice(0, 80) : err.name) : 'unknown';
      }
      if (!failure) return deps.onAnswer(companyId, exchange, answer);
      deps.log.warn({ ...ctx, reason: failure }, 'automation hook failed');
      // The customer is waiting: people take the ticket now; the message is still delivered later.
      await deps.onFailure(companyId, exchange, failure);
      if (job.attempts < HOOK_MAX_ATTEMPTS) throw new Error(`hook answered ${failure}`);
    },
  });

  const runtime = (kind: 'n8n' | 'webhook'): IntegrationRuntime => ({
    kind,
    label: kind === 'n8n' ? 'n8n' : 'webhook',
    async run({ ticket, message, integration }) {
      await deps.jobs.schedule(post, {
        key: `message:${message.id}`,
        companyId: ticket.companyId,
        payload: { messageId: message.id, ticketId: ticket.id, integrationId: integration.id },
      });
      return { replies: [] };
    },
  });

  return { jobs: { post }, n8n: runtime('n8n'), webhook: runtime('webhook') };
}
