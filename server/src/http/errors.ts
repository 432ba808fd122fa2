import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { ErrorBody, ErrorCode } from '@recado/contracts';
import { ERROR_MESSAGES } from './error-messages.js';

export class AppError extends Error {
  constructor(
    public readonly code: ErrorCode,
    public readonly statusCode = 400,
    message?: string,
    public readonly extra?: Record<string, unknown>,
  ) {
    // Without a message of its own, the code's sentence (never the code itself).
    super(message ?? ERROR_MESSAGES[code] ?? code);
  }
}

/** Maps every failure to { error, message }; never leaks a stack trace. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      const body: ErrorBody & Record<string, unknown> = {
        error: err.code,
        // A message that only repeats the code (a channel's error passed on) gets the code's sentence.
        message: err.message && err.message !== err.code ? err.message : ERROR_MESSAGES[err.code],
        ...err.extra,
      };
      return reply.status(err.statusCode).send(body);
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const fields = err.validation.map((v) => ({
        path: String(v.instancePath || '')
          .replace(/^\//, '')
          .replace(/\//g, '.'),
        message: v.message ?? 'invalid',
      }));
      return reply
        .status(400)
        .send({ error: 'ERR_VALIDATION', message: 'Invalid request', fields } satisfies ErrorBody);
    }
    if (isResponseSerializationError(err)) {
      req.log.error({ err }, 'response serialization failed');
      return reply.status(500).send({ error: 'ERR_INTERNAL_SERVER_ERROR', message: 'Internal error' });
    }
    if (isDataException(err)) {
      // Bad input that got past the schemas (an id beyond integer, an impossible date): never a 500.
      req.log.warn({ err }, 'data exception answered as 400');
      return reply.status(400).send({ error: 'ERR_VALIDATION', message: 'Invalid value' });
    }
    const status = err.statusCode ?? 500;
    if (status === 429)
      return reply.status(429).send({ error: 'ERR_RATE_LIMITED', message: 'Too many requests' });
    if (status >= 400 && status < 500) {
      // Fastify's own 4xx (bad JSON, body too large, unsupported media type...).
      return reply.status(status).send({ error: 'ERR_VALIDATION', message: err.message });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: 'ERR_INTERNAL_SERVER_ERROR', message: 'Internal error' });
  });
}

/** PostgreSQL data exception (SQLSTATE class 22: out of range, invalid text representation, bad date...). */
export function isDataException(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** PostgreSQL unique violation (23505), as drizzle surfaces it on either driver. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (code !== '23505') return false;
  if (!constraint) return true;
  const name = e?.constraint ?? e?.cause?.constraint ?? '';
  return name === constraint || String((e as Error).message ?? '').includes(constraint);
}
