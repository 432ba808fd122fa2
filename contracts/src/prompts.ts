import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);

/** docs/automation.md: the models offered, the first one being the default. */
export const PROMPT_MODELS = ['gpt-3.5-turbo-1106', 'gpt-4o-mini'] as const;
export type PromptModel = (typeof PROMPT_MODELS)[number];

/**
 * The action line a prompt's model answers to hand the customer to a person (docs/automation.md): the line
 * is not sent, the ticket goes to the queue's waiting list.
 */
export const PROMPT_HANDOFF_LINE = 'Ação: Transferir para o setor de atendimento';

/** docs/automation.md: what a new prompt starts with. */
export const PROMPT_DEFAULTS = {
  model: 'gpt-3.5-turbo-1106' as PromptModel,
  maxTokens: 100,
  temperature: 1,
  maxMessages: 10,
};

/**
 * A model name as the provider knows it: at OpenAI (no base URL of its own) one of PROMPT_MODELS; with a
 * custom base URL (Ollama, OpenRouter, Azure, any compatible server) any name that server serves, checked
 * by `promptModelAllowed` (docs/automation.md).
 */
export const PromptModelName = z.string().trim().min(1).max(200).regex(/^\S+$/, 'a model name has no spaces');

/** Free text with a custom base URL; one of PROMPT_MODELS at the server's own OpenAI. */
export const promptModelAllowed = (model: string, baseUrl: string | undefined | null) =>
  Boolean(baseUrl?.trim()) || (PROMPT_MODELS as readonly string[]).includes(model);

/** docs/automation.md: every field required; name 5–100, prompt at least 50 characters, temperature 0–1. */
export const PromptInput = z.object({
  name: z.string().trim().min(5).max(100),
  prompt: z.string().trim().min(50).max(10000),
  model: PromptModelName.default(PROMPT_DEFAULTS.model),
  maxTokens: z.coerce.number().int().min(1).max(32000),
  temperature: z.coerce.number().min(0).max(1),
  apiKey: z.string().trim().min(1).max(500),
  queueId: Id,
  maxMessages: z.coerce.number().int().min(1).max(100),
  /** An OpenAI-compatible server (Azure OpenAI, OpenRouter, Ollama): '' uses the server's OPENAI_BASE_URL. */
  baseUrl: z.string().trim().max(500).optional(),
});
export type PromptInput = z.infer<typeof PromptInput>;

/**
 * PUT /prompt/{id}: only what is sent changes; an absent or masked apiKey keeps the stored one. The model
 * has no default here: an edit that does not send it keeps the stored one.
 */
export const PromptUpdate = PromptInput.extend({ model: PromptModelName }).partial();
export type PromptUpdate = z.infer<typeof PromptUpdate>;

export const Prompt = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    name: z.string(),
    prompt: z.string(),
    model: z.string(),
    maxTokens: z.number(),
    temperature: z.number(),
    /** Always the mask (SECRET_MASK) when a key is stored: the key itself never leaves the server. */
    apiKey: z.string(),
    queueId: z.number(),
    maxMessages: z.number(),
    baseUrl: z.string(),
    queue: z
      .looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      })
      .nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Prompt' });
export type Prompt = Wire<typeof Prompt>;

/** GET /prompt answers `{ prompts }` (the spec's shape). */
export const PromptList = z
  .looseObject({
    prompts: z.array(Prompt),
  })
  .meta({ id: 'PromptList' });
export type PromptList = Wire<typeof PromptList>;

/**
 * POST /prompt/test: one exchange with the provider, with the dialog's values (saved or not). `promptId`
 * names a stored prompt whose key is used when `apiKey` is absent or the mask.
 */
export const PromptTestInput = z.object({
  promptId: Id.optional(),
  prompt: z.string().trim().min(1).max(10000),
  model: PromptModelName,
  maxTokens: z.coerce.number().int().min(1).max(32000),
  temperature: z.coerce.number().min(0).max(1),
  apiKey: z.string().trim().max(500).optional(),
  baseUrl: z.string().trim().max(500).optional(),
  /** What the customer says in the test. */
  message: z.string().trim().min(1).max(2000),
});
export type PromptTestInput = z.infer<typeof PromptTestInput>;

/** The model's answer to the test: the text the customer would read and whether it asked for a person. */
export const PromptTestAnswer = z
  .looseObject({ reply: z.string(), handoff: z.boolean() })
  .meta({ id: 'PromptTestAnswer' });
export type PromptTestAnswer = Wire<typeof PromptTestAnswer>;

export type PromptEvent =
  { action: 'create' | 'update'; prompt: Prompt } | { action: 'delete'; promptId: number };
