import { and, asc, eq } from 'drizzle-orm';
import {
  SECRET_MASK,
  promptModelAllowed,
  type Prompt,
  type PromptTestAnswer,
  type PromptTestInput,
  type PromptEvent,
  type PromptInput,
  type PromptList,
  type PromptUpdate,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { prompts, queues } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { SecretBox } from '../../lib/crypto.js';
import { assertPublicUrl } from '../../lib/safe-fetch.js';
import type { Events } from '../../realtime/events.js';
import { completePrompt, describeOpenAiError, openaiClient } from '../automation/openai-prompt.js';

type Row = typeof prompts.$inferSelect;
type QueueRef = { id: number; name: string; color: string } | null;

/** An absent key or the mask sent back means "keep the stored key". */
const newKey = (apiKey: string | undefined) =>
  apiKey === undefined || apiKey === SECRET_MASK ? undefined : apiKey;

export function promptService({
  db,
  events,
  box,
  allowPrivateUrls = false,
  openaiBaseUrl = '',
  openaiTimeoutMs,
  onCreated,
}: {
  db: Db;
  events: Events;
  box: SecretBox;
  allowPrivateUrls?: boolean;
  /** The server's OPENAI_BASE_URL (a prompt without a base URL of its own is served there). */
  openaiBaseUrl?: string;
  openaiTimeoutMs?: number;
  /** A company's prompt was created (the automation engine forgets it thought the company had none). */
  onCreated?: (companyId: number) => void;
}) {
  /** A tenant's base URL is checked like every tenant-supplied URL (docs/outbound-urls.md). */
  const baseUrlOf = (raw: string | undefined) => {
    if (raw === undefined) return undefined;
    const url = raw.trim().replace(/\/+$/, '');
    if (url) assertPublicUrl(url, { allowPrivate: allowPrivateUrls, allowQuery: false, field: 'baseUrl' });
    return url;
  };

  /** A model outside PROMPT_MODELS needs a base URL of its own (docs/automation.md). */
  const checkModel = (model: string, baseUrl: string) => {
    if (!promptModelAllowed(model, baseUrl))
      throw new AppError('ERR_VALIDATION', 400, 'Invalid prompt', {
        fields: [{ path: 'model', message: 'a model outside the list needs a base URL' }],
      });
  };

  const emit = (companyId: number, payload: PromptEvent) => events.toCompany(companyId, 'prompt', payload);

  const view = (r: Row, queue: QueueRef): Prompt => ({
    id: r.id,
    companyId: r.companyId,
    name: r.name,
    prompt: r.prompt,
    model: r.model,
    maxTokens: r.maxTokens,
    temperature: r.temperature,
    // The key never leaves the server: the web shows the mask and sends it back to keep it.
    apiKey: SECRET_MASK,
    queueId: r.queueId,
    maxMessages: r.maxMessages,
    baseUrl: r.baseUrl,
    queue,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  });

  const select = () =>
    db
      .select({ p: prompts, queue: { id: queues.id, name: queues.name, color: queues.color } })
      .from(prompts)
      .leftJoin(queues, eq(queues.id, prompts.queueId));

  async function load(companyId: number, id: number): Promise<Prompt> {
    const [hit] = await select().where(and(eq(prompts.id, id), eq(prompts.companyId, companyId)));
    if (!hit) throw new AppError('ERR_NOT_FOUND', 404, 'Prompt not found');
    return view(hit.p, hit.queue?.id ? hit.queue : null);
  }

  /** The queue a prompt answers in must be one of the company's. */
  async function checkQueue(companyId: number, queueId: number) {
    const [q] = await db
      .select({ id: queues.id })
      .from(queues)
      .where(and(eq(queues.id, queueId), eq(queues.companyId, companyId)));
    if (!q) throw new AppError('ERR_NO_QUEUE_FOUND', 404, 'Queue not found');
  }

  return {
    /** GET /prompt: every prompt of the company, by name (a company has few). */
    async list(t: Tenant): Promise<PromptList> {
      const rows = await select()
        .where(eq(prompts.companyId, t.companyId))
        .orderBy(asc(prompts.name), asc(prompts.id));
      return { prompts: rows.map((r) => view(r.p, r.queue?.id ? r.queue : null)) };
    },

    get: (t: Tenant, id: number) => load(t.companyId, id),

    /** Whether a prompt of this company exists (the queue dialog's promptId check uses it). */
    async exists(companyId: number, id: number) {
      const [hit] = await db
        .select({ id: prompts.id })
        .from(prompts)
        .where(and(eq(prompts.id, id), eq(prompts.companyId, companyId)));
      return Boolean(hit);
    },

    async create(t: Tenant, input: PromptInput): Promise<Prompt> {
      const apiKey = newKey(input.apiKey);
      if (!apiKey)
        throw new AppError('ERR_VALIDATION', 400, 'Invalid prompt', {
          fields: [{ path: 'apiKey', message: 'required' }],
        });
      await checkQueue(t.companyId, input.queueId);
      const baseUrl = baseUrlOf(input.baseUrl) ?? '';
      checkModel(input.model, baseUrl);
      const [r] = await db
        .insert(prompts)
        .values({
          companyId: t.companyId,
          name: input.name,
          prompt: input.prompt,
          model: input.model,
          maxTokens: input.maxTokens,
          temperature: input.temperature,
          apiKeySealed: box.seal(apiKey),
          queueId: input.queueId,
          maxMessages: input.maxMessages,
          baseUrl,
        })
        .returning({ id: prompts.id });
      const prompt = await load(t.companyId, r!.id);
      onCreated?.(t.companyId);
      emit(t.companyId, { action: 'create', prompt });
      return prompt;
    },

    async update(t: Tenant, id: number, input: PromptUpdate): Promise<Prompt> {
      const stored = await load(t.companyId, id);
      if (input.queueId !== undefined) await checkQueue(t.companyId, input.queueId);
      const apiKey = newKey(input.apiKey);
      const baseUrl = baseUrlOf(input.baseUrl);
      if (input.model !== undefined || baseUrl !== undefined)
        checkModel(input.model ?? stored.model, baseUrl ?? stored.baseUrl);
      const [r] = await db
        .update(prompts)
        .set({
          name: input.name,
          prompt: input.prompt,
          model: input.model,
          maxTokens: input.maxTokens,
          temperature: input.temperature,
          apiKeySealed: apiKey ? box.seal(apiKey) : undefined,
          queueId: input.queueId,
          maxMessages: input.maxMessages,
          baseUrl,
          updatedAt: new Date(),
        })
        .where(and(eq(prompts.id, id), eq(prompts.companyId, t.companyId)))
        .returning({ id: prompts.id });
      // Deleted between the read and the write.
      if (!r) throw new AppError('ERR_NOT_FOUND', 404, 'Prompt not found');
      const prompt = await load(t.companyId, id);
      emit(t.companyId, { action: 'update', prompt });
      return prompt;
    },

    /** Queues that used the prompt lose it (they go on without an assistant). */
    async remove(t: Tenant, id: number) {
      const [gone] = await db.transaction(async (tx) => {
        await tx
          .update(queues)
          .set({ promptId: null, updatedAt: new Date() })
          .where(and(eq(queues.promptId, id), eq(queues.companyId, t.companyId)));
        return tx
          .delete(prompts)
          .where(and(eq(prompts.id, id), eq(prompts.companyId, t.companyId)))
          .returning({ id: prompts.id });
      });
      if (!gone) throw new AppError('ERR_NOT_FOUND', 404, 'Prompt not found');
      emit(t.companyId, { action: 'delete', promptId: id });
      return { message: 'Prompt deleted' };
    },

    /**
     * POST /prompt/test: one exchange with the provider (the dialog's values, saved or not): the prompt as
     * the system message, `message` as the customer's. A tenant base URL goes through the outbound guard.
     * Any refusal is 422 ERR_PROMPT_TEST with the provider's status and code in `reason`, never the key.
     */
    async test(t: Tenant, input: PromptTestInput): Promise<PromptTestAnswer> {
      const baseUrl = baseUrlOf(input.baseUrl) ?? '';
      checkModel(input.model, baseUrl);
      let apiKey = newKey(input.apiKey || undefined);
      if (!apiKey && input.promptId !== undefined) {
        const [r] = await db
          .select({ sealed: prompts.apiKeySealed })
          .from(prompts)
          .where(and(eq(prompts.id, input.promptId), eq(prompts.companyId, t.companyId)));
        if (!r) throw new AppError('ERR_NOT_FOUND', 404, 'Prompt not found');
        apiKey = box.open(r.sealed);
      }
      if (!apiKey)
        throw new AppError('ERR_VALIDATION', 400, 'Invalid prompt', {
          fields: [{ path: 'apiKey', message: 'required' }],
        });
      const client = openaiClient(
        { apiKey, baseUrl },
        { openaiBaseUrl, allowPrivateUrls, timeoutMs: openaiTimeoutMs },
      );
      try {
        return await completePrompt(client, { ...input, apiKey: '', baseUrl }, [
          { role: 'user', content: input.message },
        ]);
      } catch (err) {
        const reason = describeOpenAiError(err);
        throw new AppError('ERR_PROMPT_TEST', 422, `The provider answered: ${reason}`, { reason });
      }
    },

    /** The stored key in clear, for the assistant's runtime only; never for an HTTP answer. */
    async apiKeyOf(companyId: number, id: number): Promise<string | undefined> {
      const [r] = await db
        .select({ sealed: prompts.apiKeySealed })
        .from(prompts)
        .where(and(eq(prompts.id, id), eq(prompts.companyId, companyId)));
      return r ? box.open(r.sealed) : undefined;
    },
  };
}
export type PromptService = ReturnType<typeof promptService>;
