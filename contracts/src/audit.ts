import { z } from 'zod';
import { Timestamp, hasMoreOf, type Wire } from './responses.js';

/** GET /audit-log answers this many entries a page, the newest first (hasMore from one extra row). */
export const AUDIT_PAGE_SIZE = 50;
/** GET /audit-log.csv answers at most this many entries (the newest of the filter). */
export const AUDIT_EXPORT_LIMIT = 50_000;

/** An instant (ISO 8601) or a day (YYYY-MM-DD, UTC: from its start, to its end). */
const Instant = z
  .string()
  .trim()
  .max(40)
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)),
    {
      message: 'a date (YYYY-MM-DD) or an ISO 8601 instant',
    },
  );

/**
 * GET /audit-log and /audit-log.csv (docs/audit.md): the period (from, to), the actor (a user id, or part of
 * the e-mail), the action (exact, or a prefix: `user` or `user.` matches every `user.*`), the page; `scope=platform`
 * (super users only) reads the platform's own log instead of the company's.
 */
export const AuditLogQuery = z
  .object({
    from: Instant.optional(),
    to: Instant.optional(),
    actor: z.string().trim().max(320).optional(),
    action: z
      .string()
      .trim()
      .max(100)
      .regex(/^[\w.-]*$/, 'letters, digits, dots, dashes and underscores')
      .optional(),
    pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
    scope: z.enum(['company', 'platform']).optional().default('company'),
  })
  .refine(
    (q) =>
      !q.from ||
      !q.to ||
      Date.parse(q.from) <= Date.parse(q.to.length === 10 ? `${q.to}T23:59:59.999Z` : q.to),
    {
      message: 'from after to',
      path: ['from'],
    },
  );
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

export const AuditEntry = z
  .looseObject({
    id: z.number(),
    companyId: z.number().nullable(),
    actorId: z.number().nullable(),
    actorEmail: z.string().nullable(),
    /** The actor's current name (null once the user is gone). */
    actorName: z.string().nullable(),
    action: z.string(),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    /** The changed keys before and after (secrets as the mask); null when there is nothing to show. */
    before: z.unknown().nullable(),
    after: z.unknown().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = Wire<typeof AuditEntry>;

export const AuditLogPage = hasMoreOf('entries', AuditEntry).meta({ id: 'AuditLogPage' });
export type AuditLogPage = Wire<typeof AuditLogPage>;
