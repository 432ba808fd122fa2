import OpenAI, { APIError, toFile } from 'openai';
import { PROMPT_HANDOFF_LINE } from '@recado/contracts';
import { tenantFetch } from './outbound-fetch.js';

/** A model's answer line that hands the customer to a person (accents, case and spacing ignored). */
const HANDOFF = /^\s*[*_]*\s*a[çc][ãa]o\s*:\s*transferir\s+para\s+o\s+setor\s+de\s+atendimento\b.*$/im;

export const OPENAI_TIMEOUT_MS = 30_000;

export interface PromptSettings {
  prompt: string;
  model: string;
  maxTokens: number;
  temperature: number;
  apiKey: string;
  /** The prompt's own base URL ('' = the server's OPENAI_BASE_URL). */
  baseUrl: string;
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** The OpenAI client of one prompt: the official package, pointed at OPENAI_BASE_URL or the prompt's URL. */
export function openaiClient(
  p: Pick<PromptSettings, 'apiKey' | 'baseUrl'>,
  env: { openaiBaseUrl: string; allowPrivateUrls: boolean; timeoutMs?: number },
) {
  const timeout = env.timeoutMs ?? OPENAI_TIMEOUT_MS;
  return new OpenAI({
    apiKey: p.apiKey,
    baseURL: p.baseUrl || env.openaiBaseUrl,
    timeout,
    maxRetries: 1,
    // A tenant's own server is reached only through the outbound guard.
    ...(p.baseUrl
      ? {
          fetch: tenantFetch({ allowPrivate: env.allowPrivateUrls, timeoutMs: timeout, maxBytes: 2_000_000 }),
        }
      : {}),
  });
}

/** Splits the model's answer into what the customer reads and whether it asked for a person. */
export function readModelAnswer(text: string): { reply: string; handoff: boolean } {
  const handoff = HANDOFF.test(text);
  const reply = handoff ? text.replace(new RegExp(HANDOFF.source, 'gim'), '').trim() : text.trim();
  return { reply, handoff };
}

/** One chat completion: the prompt's text as the system message, the conversation after it. */
export async function completePrompt(client: OpenAI, p: PromptSettings, conversation: ChatTurn[]) {
  const res = await client.chat.completions.create({
    model: p.model,
    max_tokens: p.maxTokens,
    temperature: p.temperature,
    messages: [{ role: 'system', content: p.prompt }, ...conversation],
  });
  return readModelAnswer(res.choices[0]?.message?.content ?? '');
}

/** A voice note's text (OpenAI audio transcription through the same client). */
export async function transcribe(client: OpenAI, audio: Buffer, filename: string) {
  const res = await client.audio.transcriptions.create({
    model: 'whisper-1',
    file: await toFile(audio, filename),
  });
  return res.text.trim();
}

/** What an admin reads about a failed call: the provider's status and code, never a key or a message. */
export function describeOpenAiError(err: unknown): string {
  if (err instanceof APIError) {
    const code = err.code ?? (err.error as { type?: string } | undefined)?.type ?? '';
    if (err.status) return `${err.status}${code ? ` ${code}` : ''}`;
    return err.constructor.name.replace(/Error$/, '') || 'connection';
  }
  if (err instanceof Error) return err.name === 'Error' ? err.message.slice(0, 120) : err.name;
  return 'unknown';
}

export { PROMPT_HANDOFF_LINE };
