import { eq } from 'drizzle-orm';
import { SEALED_SETTINGS, SECRET_MASK } from '@recado/contracts';
import type { FastifyRequest } from 'fastify';
import type { Db, Tx } from '../../db/client.js';
import { auditLog } from '../../db/schema/audit.js';
import { users } from '../../db/schema/users.js';
import { truncate } from '../../lib/text.js';

/** One entry of the audit log (docs/audit.md). */
export interface AuditInput {
  /** null = the platform's own log (the super user's changes to companies, plans, helps). */
  companyId: number | null;
  actorId?: number | null;
  /** Looked up from actorId when absent (undefined); null = no e-mail (a failed login's unknown address is given here). */
  actorEmail?: string | null;
  /** Dotted: 'user.created', 'settings.updated', 'contact.merged', 'export.contacts', 'auth.login_failed'. */
  action: string;
  targetType?: string | null;
  targetId?: string | number | null;
  /** Secrets are masked here (keys that name a secret, sealed settings) before anything is stored. */
  before?: unknown;
  after?: unknown;
  ip?: string | null;
  userAgent?: string | null;
  /** The action's outbox intent (docs/audit.md "Durable"): the entry is written once, by the hook or the sweep. */
  outboxId?: string;
}

/** Keys whose values are secrets wherever they appear in before/after (tokens, passwords, API keys, sealed config). */
const SECRET_KEY =
  /sealed|secret|password|passwd|token|api_?key|credential|private_?key|jsoncontent|authorization|^asaas$/i;
const SEALED = new Set<string>(SEALED_SETTINGS);
const MAX_STRING = 2000;
const MAX_DEPTH = 6;

/**
 * The value as stored in before/after: secrets replaced by SECRET_MASK (the project's mask, as the API
 * answers them), long strings cut, deep structures flattened. `{key, value}` pairs of a sealed setting are
 * masked too.
 */
export function maskAudit(value: unknown, depth = 0): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return truncate(value, MAX_STRING);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return String(value);
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.slice(0, 200).map((v) => maskAudit(v, depth + 1));
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const sealedPair = typeof o.key === 'string' && SEALED.has(o.key) && 'value' in o;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (v === undefined || typeof v === 'function') continue;
      const secret = SECRET_KEY.test(k) || SEALED.has(k) || (sealedPair && k === 'value');
      out[k] = secret ? (v === '' || v === null ? v : SECRET_MASK) : maskAudit(v, depth + 1);
    }
    return out;
  }
  return String(value);
}

/**
 * Appends one entry to the audit log. Pass the transaction (tx) when the audited change runs in one, so the
 * entry commits or rolls back with it. Never updates or deletes: the table refuses both (migration 0046).
 */
export async function recordAudit(db: Db | Tx, e: AuditInput): Promise<void> {
  let actorEmail = e.actorEmail;
  if (actorEmail === undefined && e.actorId != null) {
    const [u] = await db.select({ email: users.email }).from(users).where(eq(users.id, e.actorId));
    actorEmail = u?.email ?? null;
  }
  await db
    .insert(auditLog)
    .values({
      companyId: e.companyId,
      actorId: e.actorId ?? null,
      actorEmail: actorEmail ? truncate(actorEmail, 320) : null,
      action: truncate(e.action, 100),
      targetType: e.targetType ? truncate(e.targetType, 100) : null,
      targetId: e.targetId == null ? null : truncate(String(e.targetId), 200),
      before: e.before === undefined ? null : maskAudit(e.before),
      after: e.after === undefined ? null : maskAudit(e.after),
      ip: e.ip ? truncate(e.ip, 100) : null,
      userAgent: e.userAgent ? truncate(e.userAgent, 400) : null,
      ...(e.outboxId ? { outboxId: e.outboxId } : {}),
    })
    .onConflictDoNothing();
}

/** Who and from where, of an authenticated request: spread it into an AuditInput. */
export function auditActor(
  req: FastifyRequest,
): Pick<AuditInput, 'companyId' | 'actorId' | 'ip' | 'userAgent'> {
  return {
    companyId: req.tenant.companyId,
    actorId: req.tenant.userId,
    ip: req.ip ?? null,
    userAgent: (req.headers['user-agent'] as string | undefined) ?? null,
  };
}
