import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route delivers what a customer wrote (a channel's entry, like the simulator's inbound): its text is
     * cleaned where it is stored (lib/text.ts cleanText) instead of refused, so no customer message is lost.
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
