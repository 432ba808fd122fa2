import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route delivers what a customer wrote (a channel's entry, like the simulator's inbound): its text is
     * cleaned where it is stored (lib/text.ts cleanText) instead of refused, so no customer message is lost.
     * Neither hook below refuses its text.
     */
    customerText?: boolean;
  }
}

/** A UTF-16 surrogate without its other half: no character, and PostgreSQL would store it as U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_DEPTH = 64;

/** The path of the first string (key or value) inside a parsed JSON value that is not well-formed UTF-16. */
export function malformedTextPath(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (!value || typeof value !== 'object' || depth > MAX_DEPTH || Buffer.isBuffer(value)) return undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = malformedTextPath(v, [...path, String(i)], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    if (LONE_SURROGATE.test(k)) return [...path, k];
    const found = malformedTextPath(v, [...path, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The one answer to malformed text, wherever it comes from (JSON body, query, path, form field). */
export const malformedText = (path: string) =>
  new AppError('ERR_VALIDATION', 400, `${path}: malformed text (a lone UTF-16 surrogate)`, {
    fields: [{ path, message: 'malformed text (a lone UTF-16 surrogate)' }],
  });

/**
 * preValidation hook on every /api route (docs/security.md "Text input"): a request whose body, query or path
 * holds a string with a lone UTF-16 surrogate (JSON's "\ud800") answers 400 ERR_VALIDATION instead of
 * being stored as U+FFFD — or, for keys, colliding with another key that became the same U+FFFD.
 * Form fields are decoded from UTF-8 and cannot hold one. Customers' text (config.customerText) is cleaned
 * where it is stored instead.
 */
export async function refuseMalformedText(req: FastifyRequest): Promise<void> {
  if (req.routeOptions.config?.customerText) return;
  for (const [where, value] of [
    ['', req.body],
    ['query.', req.query],
    ['params.', req.params],
  ] as const) {
    const path = malformedTextPath(value);
    if (path) throw malformedText(`${where}${path.join('.')}` || where.slice(0, -1) || 'body');
  }
}

/** A JSON or plain-text body whose bytes are not UTF-8. */
export const malformedBody = () =>
  new AppError('ERR_VALIDATION', 400, 'body: malformed text (not UTF-8)', {
    fields: [{ path: 'body', message: 'malformed text (not UTF-8)' }],
  });

/** The bodies Fastify decodes as text, where every byte that is not UTF-8 would become U+FFFD. */
const DECODED_AS_TEXT = /^\s*(application\/json|text\/plain)\s*(;|$)/i;

/**
 * preParsing hook on every /api route (docs/security.md "Text input"): the same rule for the bytes of a JSON or
 * plain-text body. Decoded, every byte sequence that is not UTF-8 (a surrogate written as bytes, a stray 0xff)
 * would become U+FFFD, so two different values would again be stored as the same text; the body is checked as
 * it streams in (a character split between two chunks is fine) and answers 400 ERR_VALIDATION instead.
 */
export async function refuseMalformedBody(
  req: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
): Promise<RequestPayload> {
  if (req.routeOptions.config?.customerText) return payload;
  if (!DECODED_AS_TEXT.test(req.headers['content-type'] ?? '')) return payload;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const check = (chunk?: Buffer) => {
    try {
      if (chunk) decoder.decode(chunk, { stream: true });
      else decoder.decode();
      return undefined;
    } catch {
      return malformedBody();
    }
  };
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const err = check(chunk);
      if (err) done(err);
      else done(null, chunk);
    },
    flush(done) {
      done(check());
    },
  });
  payload.on('error', (err) => checked.destroy(err));
  return payload.pipe(checked);
}
