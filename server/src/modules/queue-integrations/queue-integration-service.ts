import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import {
  SECRET_MASK,
  QUEUE_INTEGRATION_PAGE_SIZE,
  readServiceAccount,
  type QueueEvent,
  type QueueIntegration,
  type QueueIntegrationEvent,
  type QueueIntegrationInput,
  type QueueIntegrationListQuery,
  type QueueIntegrationTestSession,
  type QueueIntegrationType,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { queueIntegrations, queues } from '../../db/schema/index.js';
import { assertPublicUrl } from '../../lib/safe-fetch.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { SecretBox } from '../../lib/crypto.js';
import { containsText } from '../../lib/sql.js';
import type { Events } from '../../realtime/events.js';
import { queueView, requireQueueManager } from '../queues/queue-service.js';
import { integrationHookSecret } from './hook-secret.js';

type Row = typeof queueIntegrations.$inferSelect;
type DialogflowDetect = (o: {
  account: { client_email: string; private_key: string };
  project: string;
  session: string;
  text: string;
  languageCode: string;
}) => Promise<{ replies: string[]; handoff: boolean }>;

/** What testSession asks the agent. */
export const DIALOGFLOW_TEST_PHRASE = 'Olá';
type Values = Omit<typeof queueIntegrations.$inferInsert, 'id' | 'companyId' | 'createdAt'>;

/** The public form: the sealed service account never leaves the server, only the mask and its e-mail. */
export const queueIntegrationView = (r: Row): QueueIntegration => ({
  id: r.id,
  companyId: r.companyId,
  type: r.type as QueueIntegrationType,
  name: r.name,
  projectName: r.projectName,
  jsonContent: r.jsonContentSealed ? SECRET_MASK : '',
  clientEmail: r.clientEmail,
  language: r.language,
  urlN8N: r.urlN8N,
  typebotSlug: r.typebotSlug,
  typebotExpires: r.typebotExpires,
  typebotDelayMessage: r.typebotDelayMessage,
  typebotKeywordFinish: r.typebotKeywordFinish,
  typebotKeywordRestart: r.typebotKeywordRestart,
  typebotUnknownMessage: r.typebotUnknownMessage,
  typebotRestartMessage: r.typebotRestartMessage,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/**
 * The columns an input sets. Fields of other types are reset, so a row never keeps a webhook URL after it
 * became a Dialogflow agent. `previous` is the stored row on an edit (its service account may be kept).
 */
function columns(
  input: QueueIntegrationInput,
  box: SecretBox,
  previous?: Row,
  allowPrivateUrls = false,
): Values {
  // The URL the server will call (docs/outbound-urls.md): no private, loopback or metadata host.
  if ('urlN8N' in input && input.urlN8N)
    assertPublicUrl(input.urlN8N, { allowPrivate: allowPrivateUrls, allowQuery: true, field: 'urlN8N' });
  const blank: Values = {
    type: input.type,
    name: input.name,
    projectName: '',
    jsonContentSealed: null,
    clientEmail: null,
    language: '',
    urlN8N: '',
    typebotSlug: '',
    typebotExpires: 1,
    typebotDelayMessage: 1000,
    typebotKeywordFinish: '',
    typebotKeywordRestart: '',
    typebotUnknownMessage: '',
    typebotRestartMessage: '',
    updatedAt: new Date(),
  };
  switch (input.type) {
    case 'dialogflow': {
      const keep = !input.jsonContent || input.jsonContent === SECRET_MASK;
      if (keep && !previous?.jsonContentSealed)
        throw new AppError(
          'ERR_INTEGRATION_SECRET_REQUIRED',
          400,
          'A Dialogflow integration needs its service account JSON (jsonContent)',
        );
      const account = keep ? null : readServiceAccount(input.jsonContent!);
      return {
        ...blank,
        projectName: input.projectName,
        language: input.language,
        jsonContentSealed: account ? box.seal(input.jsonContent!) : previous!.jsonContentSealed,
        clientEmail: account ? account.client_email : previous!.clientEmail,
      };
    }
    case 'n8n':
    case 'webhook':
      // docs/automation.md: for n8n, webhook and typebot the name is copied into projectName.
      return { ...blank, projectName: input.name, urlN8N: input.urlN8N };
    case 'typebot':
      return {
        ...blank,
        projectName: input.name,
        urlN8N: input.urlN8N,
        typebotSlug: input.typebotSlug,
        typebotExpires: input.typebotExpires,
        typebotDelayMessage: input.typebotDelayMessage,
        typebotKeywordFinish: input.typebotKeywordFinish,
        typebotKeywordRestart: input.typebotKeywordRestart,
        typebotUnknownMessage: input.typebotUnknownMessage,
        typebotRestartMessage: input.typebotRestartMessage,
      };
  }
}

export function queueIntegrationService({
  db,
  events,
  box,
  allowPrivateUrls = false,
  testDialogflow,
  onCreated,
}: {
  db: Db;
  events: Events;
  box: SecretBox;
  /** ALLOW_PRIVATE_URLS: integration URLs may name private and loopback hosts. */
  allowPrivateUrls?: boolean;
  /** Dialogflow detect intent (the automation engine's client), for testSession. */
  testDialogflow?: DialogflowDetect;
  /** A company's integration was created (the automation engine forgets it thought the company had none). */
  onCreated?: (companyId: number) => void;
}) {
  const emit = (companyId: number, payload: QueueIntegrationEvent) =>
    events.toCompany(companyId, 'queueIntegration', payload);

  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(queueIntegrations)
      .where(and(eq(queueIntegrations.id, id), eq(queueIntegrations.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_INTEGRATION_FOUND', 404, 'Integration not found');
    return r;
  }

  return {
    /** GET /queueIntegration/: by name, searched by name, 20 a page, hasMore from one extra row. */
    async list(t: Tenant, q: QueueIntegrationListQuery) {
      const search = q.searchParam.trim();
      const rows = await db
        .select()
        .from(queueIntegrations)
        .where(
          and(
            eq(queueIntegrations.companyId, t.companyId),
            search ? containsText(queueIntegrations.name, search) : undefined,
          ),
        )
        .orderBy(asc(sql`lower(${queueIntegrations.name})`), asc(queueIntegrations.id))
        .limit(QUEUE_INTEGRATION_PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * QUEUE_INTEGRATION_PAGE_SIZE);
      return {
        queueIntegrations: rows.slice(0, QUEUE_INTEGRATION_PAGE_SIZE).map(queueIntegrationView),
        hasMore: rows.length > QUEUE_INTEGRATION_PAGE_SIZE,
      };
    },

    async get(t: Tenant, id: number): Promise<QueueIntegration> {
      return queueIntegrationView(await row(t.companyId, id));
    },

    /** The n8n / webhook signing secret, for admins (made on first look; `regenerate` replaces it). */
    async hookSecret(t: Tenant, id: number, regenerate = false): Promise<{ secret: string }> {
      requireQueueManager(t);
      const r = await row(t.companyId, id);
      if (r.type !== 'n8n' && r.type !== 'webhook')
        throw new AppError('ERR_VALIDATION', 400, 'Only n8n and webhook integrations sign their requests');
      const secret = await integrationHookSecret(db, box, t.companyId, id, { regenerate });
      if (!secret) throw new AppError('ERR_NO_INTEGRATION_FOUND', 404, 'Integration not found');
      return { secret };
    },

    async create(t: Tenant, input: QueueIntegrationInput): Promise<QueueIntegration> {
      requireQueueManager(t);
      const [r] = await db
        .insert(queueIntegrations)
        .values({ companyId: t.companyId, ...columns(input, box, undefined, allowPrivateUrls) })
        .returning();
      const queueIntegration = queueIntegrationView(r!);
      onCreated?.(t.companyId);
      emit(t.companyId, { action: 'create', queueIntegration });
      return queueIntegration;
    },

    async update(t: Tenant, id: number, input: QueueIntegrationInput): Promise<QueueIntegration> {
      requireQueueManager(t);
      const previous = await row(t.companyId, id);
      const [r] = await db
        .update(queueIntegrations)
        .set(columns(input, box, previous, allowPrivateUrls))
        .where(and(eq(queueIntegrations.id, id), eq(queueIntegrations.companyId, t.companyId)))
        .returning();
      if (!r) throw new AppError('ERR_NO_INTEGRATION_FOUND', 404, 'Integration not found');
      const queueIntegration = queueIntegrationView(r);
      emit(t.companyId, { action: 'update', queueIntegration });
      return queueIntegration;
    },

    /** The queues that used it lose it (in the same transaction) and go out updated. */
    async remove(t: Tenant, id: number) {
      requireQueueManager(t);
      // The queues first: the foreign key would clear them silently, and their update must go out.
      const changed = await db.transaction(async (tx) => {
        const cleared = await tx
          .update(queues)
          .set({ integrationId: null, updatedAt: new Date() })
          .where(and(eq(queues.companyId, t.companyId), eq(queues.integrationId, id)))
          .returning();
        const [gone] = await tx
          .delete(queueIntegrations)
          .where(and(eq(queueIntegrations.id, id), eq(queueIntegrations.companyId, t.companyId)))
          .returning({ id: queueIntegrations.id });
        if (!gone) throw new AppError('ERR_NO_INTEGRATION_FOUND', 404, 'Integration not found');
        return cleared;
      });
      emit(t.companyId, { action: 'delete', integrationId: id });
      for (const q of changed)
        events.toCompany(t.companyId, 'queue', {
          action: 'update',
          queue: queueView(q),
        } satisfies QueueEvent);
      return { message: 'Integration deleted' };
    },

    /**
     * POST /queueIntegration/testSession: detect intent with a test phrase on a throw-away session of the
     * agent, with the credentials given (not stored). Answers the agent's reply, or the provider's error as
     * 422 ERR_DIALOGFLOW_SESSION (its HTTP status and Google's error status; never the key).
     */
    async testSession(t: Tenant, input: QueueIntegrationTestSession) {
      requireQueueManager(t);
      const account = readServiceAccount(input.jsonContent);
      if (!testDialogflow)
        throw new AppError('ERR_DIALOGFLOW_SESSION', 422, 'Dialogflow is not available on this server');
      try {
        const answer = await testDialogflow({
          account,
          project: input.projectName,
          session: `recado-test-${t.companyId}-${randomUUID()}`,
          text: DIALOGFLOW_TEST_PHRASE,
          languageCode: input.language,
        });
        return { message: 'success', reply: answer.replies.join('\n') };
      } catch (err) {
        throw new AppError(
          'ERR_DIALOGFLOW_SESSION',
          422,
          err instanceof Error && err.name === 'Error' ? err.message : 'Dialogflow session failed',
        );
      }
    },
  };
}
export type QueueIntegrationService = ReturnType<typeof queueIntegrationService>;
