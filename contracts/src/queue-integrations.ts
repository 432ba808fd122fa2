import { SECRET_MASK } from './secrets.js';
import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);

/** docs/automation.md: the kinds of integration a queue can hand its conversations to. */
export const QUEUE_INTEGRATION_TYPES = ['dialogflow', 'n8n', 'webhook', 'typebot'] as const;
export type QueueIntegrationType = (typeof QUEUE_INTEGRATION_TYPES)[number];
/** docs/automation.md: the languages a Dialogflow agent is asked in. */
export const DIALOGFLOW_LANGUAGES = ['pt-BR', 'en', 'es'] as const;
/** docs/automation.md: Typebot defaults. */
export const TYPEBOT_DEFAULTS = { typebotExpires: 1, typebotDelayMessage: 1000 };
/** GET /queueIntegration/ answers this many a page (hasMore from one extra row). */
export const QUEUE_INTEGRATION_PAGE_SIZE = 20;

/** docs/automation.md: name required, 2 to 50 characters. */
const Name = z.string().trim().min(2).max(50);
const Url = z
  .string()
  .trim()
  .max(2000)
  .pipe(z.url({ protocol: /^https?$/ }));
const Text = (max: number) => z.string().trim().max(max).optional().default('');

/** A Google service account: the JSON file downloaded from the Cloud console. */
export const ServiceAccountJson = z
  .string()
  .trim()
  .min(1)
  .max(20000)
  .superRefine((text, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'jsonContent is not valid JSON' });
      return;
    }
    const o = (parsed ?? {}) as Record<string, unknown>;
    for (const key of ['project_id', 'client_email', 'private_key'])
      if (typeof o[key] !== 'string' || !(o[key] as string).trim())
        ctx.addIssue({ code: 'custom', message: `jsonContent needs a service account ${key}` });
  });

/** Parses a JSON that ServiceAccountJson accepted. */
export const readServiceAccount = (text: string) =>
  JSON.parse(text) as { project_id: string; client_email: string; private_key: string };

const Dialogflow = z.object({
  type: z.literal('dialogflow'),
  name: Name,
  projectName: z.string().trim().min(1).max(200),
  /** Required when creating; omitted (or the mask) on an edit keeps the stored one. */
  jsonContent: z.union([z.literal(SECRET_MASK), ServiceAccountJson]).optional(),
  language: z.enum(DIALOGFLOW_LANGUAGES),
});
const Hook = <T extends 'n8n' | 'webhook'>(type: T) =>
  z.object({ type: z.literal(type), name: Name, urlN8N: Url });
const Typebot = z.object({
  type: z.literal('typebot'),
  name: Name,
  urlN8N: Url,
  typebotSlug: z.string().trim().min(1).max(200),
  typebotExpires: z.coerce.number().int().min(0).max(100000).default(TYPEBOT_DEFAULTS.typebotExpires),
  typebotDelayMessage: z.coerce
    .number()
    .int()
    .min(0)
    .max(60000)
    .default(TYPEBOT_DEFAULTS.typebotDelayMessage),
  typebotKeywordFinish: Text(100),
  typebotKeywordRestart: Text(100),
  typebotUnknownMessage: Text(1000),
  typebotRestartMessage: Text(1000),
});

/** POST /queueIntegration and PUT /queueIntegration/{id}: the whole form, its fields chosen by type. */
export const QueueIntegrationInput = z.discriminatedUnion('type', [
  Dialogflow,
  Hook('n8n'),
  Hook('webhook'),
  Typebot,
]);
export type QueueIntegrationInput = z.infer<typeof QueueIntegrationInput>;

/** GET /queueIntegration/: search by name (lower-cased) and 1-based page; companyId is accepted and ignored. */
export const QueueIntegrationListQuery = z.object({
  searchParam: z.string().trim().toLowerCase().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
  companyId: Id.optional(),
});
export type QueueIntegrationListQuery = z.infer<typeof QueueIntegrationListQuery>;

/** POST /queueIntegration/testSession: a Dialogflow agent to try. */
export const QueueIntegrationTestSession = z.object({
  projectName: z.string().trim().min(1).max(200),
  jsonContent: ServiceAccountJson,
  language: z.enum(DIALOGFLOW_LANGUAGES),
});
export type QueueIntegrationTestSession = z.infer<typeof QueueIntegrationTestSession>;

export const QueueIntegration = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    type: oneOf(QUEUE_INTEGRATION_TYPES),
    name: z.string(),
    projectName: z.string(),
    /** SECRET_MASK when a service account is stored, '' when not: never the key itself. */
    jsonContent: z.string(),
    /** The stored service account's e-mail (not a secret), or null. */
    clientEmail: z.string().nullable(),
    language: z.string(),
    urlN8N: z.string(),
    typebotSlug: z.string(),
    typebotExpires: z.number(),
    typebotDelayMessage: z.number(),
    typebotKeywordFinish: z.string(),
    typebotKeywordRestart: z.string(),
    typebotUnknownMessage: z.string(),
    typebotRestartMessage: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'QueueIntegration' });
export type QueueIntegration = Wire<typeof QueueIntegration>;

export type QueueIntegrationEvent =
  | { action: 'create' | 'update'; queueIntegration: QueueIntegration }
  | { action: 'delete'; integrationId: number };
