import { and, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SettingKey } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import {
  apiTokens,
  companies,
  helps,
  plans,
  prompts,
  queueIntegrations,
  queueOptions,
  queues,
  users,
  webhooks,
  whatsapps,
} from '../../db/schema/index.js';
import { userQueues } from '../../db/schema/users.js';
import type { Access } from '../../http/access.js';
import { readSetting } from '../settings/setting-service.js';
import type { OutboxBus } from '../../events/outbox.js';
import { maskAudit, recordAudit, type AuditInput } from './record.js';

/**
 * What the audit hook records of a route (docs/audit.md). Every write (POST/PUT/PATCH/DELETE) a route declares
 * admin- or super-only is recorded by default, with the action derived from its path; this table names the
 * others it records (user-level routes that change admin matters, exports that are GETs, sign-in and out),
 * better names, the before/after snapshots, and the few exemptions, each with its reason.
 */
export interface AuditRule {
  action?: string;
  targetType?: string;
  /** Not recorded, and why (a dry run, a test call): the route-table test lists these. */
  skip?: string;
  /** The platform's own log (companyId null): the super user's changes to companies, plans, helps. */
  platform?: boolean;
  /** Reads the target's state before and after the call: the entry keeps the keys that changed. */
  load?: Loader;
  /** Sign-in: public route, the actor comes from the answer (or the e-mail tried, on a failure). */
  login?: boolean;
}

type Loader = (db: Db, companyId: number, req: FastifyRequest, id: string | null) => Promise<unknown>;

/** A row of `table` by id, within the company (`companyId` given) or platform-wide (companies, plans, helps). */
const rowOf =
  (table: PgTable & { id: AnyPgColumn }, companyId?: AnyPgColumn): Loader =>
  async (db, cid, _req, id) => {
    const n = Number(id);
    if (id === null || !Number.isSafeInteger(n)) return null;
    const where = companyId ? and(eq(table.id, n), eq(companyId, cid)) : eq(table.id, n);
    const [row] = await db
      .select()
      .from(table as PgTable)
      .where(where);
    return row ?? null;
  };

/** A user with its queues (its permissions: profile, queues, flags). */
const userOf: Loader = async (db, companyId, req, id) => {
  const row = (await rowOf(users, users.companyId)(db, companyId, req, id)) as Record<string, unknown> | null;
  if (!row) return null;
  const qs = await db
    .select({ queueId: userQueues.queueId })
    .from(userQueues)
    .where(eq(userQueues.userId, Number(id)));
  return { ...row, queueIds: qs.map((q) => q.queueId).sort((a, b) => a - b) };
};

const settingOf: Loader = async (db, companyId, req) => {
  const key = (req.params as { key?: string }).key as SettingKey | undefined;
  return key ? { [key]: await readSetting(db, companyId, key) } : null;
};

/** The resource (first path segment) a derived entry loads snapshots from. */
const TABLES: Record<string, { load: Loader; type?: string }> = {
  users: { load: userOf, type: 'user' },
  queue: { load: rowOf(queues, queues.companyId), type: 'queue' },
  'queue-options': { load: rowOf(queueOptions, queueOptions.companyId), type: 'queue-option' },
  whatsapp: { load: rowOf(whatsapps, whatsapps.companyId), type: 'whatsapp' },
  whatsappsession: { load: rowOf(whatsapps, whatsapps.companyId), type: 'whatsapp' },
  queueIntegration: {
    load: rowOf(queueIntegrations, queueIntegrations.companyId),
    type: 'queue-integration',
  },
  prompt: { load: rowOf(prompts, prompts.companyId), type: 'prompt' },
  webhooks: { load: rowOf(webhooks, webhooks.companyId), type: 'webhook' },
  'api-tokens': { load: rowOf(apiTokens, apiTokens.companyId), type: 'api-token' },
  companies: { load: rowOf(companies), type: 'company' },
  plans: { load: rowOf(plans), type: 'plan' },
  helps: { load: rowOf(helps), type: 'help' },
};

/** Routes whose entry differs from the derived one (keyed `METHOD /api/path`). */
export const AUDIT_RULES: Record<string, AuditRule> = {
  // Sign-in and out.
  'POST /api/auth/login': { login: true, action: 'auth.login', targetType: 'user' },
  'DELETE /api/auth/logout': { action: 'auth.logout', targetType: 'user' },
  // Users and permissions: a user edits their own profile too (same route), and that is recorded as well.
  'PUT /api/users/:id': { action: 'user.updated' },
  // Settings: before/after of the key.
  'PUT /api/settings/:key': { action: 'settings.updated', targetType: 'setting', load: settingOf },
  // Connections' sessions.
  'POST /api/whatsappsession/:id': { action: 'whatsapp.session_started' },
  'PUT /api/whatsappsession/:id': { action: 'whatsapp.restarted' },
  'DELETE /api/whatsappsession/:id': { action: 'whatsapp.disconnected' },
  // Queue options (the queue's menu) and integrations are user-level routes for admin matters.
  'POST /api/queue-options': {},
  'PUT /api/queue-options/:id': {},
  'DELETE /api/queue-options/:id': {},
  'POST /api/queueIntegration': {},
  'PUT /api/queueIntegration/:id': {},
  'DELETE /api/queueIntegration/:id': {},
  // Personal API tokens (company tokens are admin routes, recorded by default).
  'POST /api/api-tokens': {},
  'DELETE /api/api-tokens/:id': {},
  'POST /api/api-tokens/company': { action: 'api-token.created' },
  'DELETE /api/api-tokens/company/:id': { action: 'api-token.deleted' },
  // Imports and exports.
  'POST /api/contacts/import': { action: 'import.contacts', targetType: 'contact' },
  'POST /api/contacts/upload': { action: 'import.contacts', targetType: 'contact' },
  'POST /api/flows/import': { action: 'import.flow', targetType: 'flow' },
  'POST /api/contact-lists/:id/upload': { action: 'import.contact_list', targetType: 'contact-list' },
  'GET /api/dashboard/export': { action: 'export.dashboard', targetType: 'dashboard' },
  'GET /api/flows/:id/export': { action: 'export.flow', targetType: 'flow' },
  'GET /api/audit-log.csv': { action: 'export.audit_log', targetType: 'audit-log' },
  'GET /api/contacts/export.csv': { action: 'export.contacts', targetType: 'contact' },
  // #35 Data subject requests: who, when and which contact; never the data (the body is only the confirmation).
  'GET /api/contacts/:id/export': { action: 'export.contact_data', targetType: 'contact' },
  'POST /api/contacts/:id/erase': { action: 'contact.erased', targetType: 'contact' },
  // #35.4 A company's whole data out (start and download) and in (a new company, on the platform's log).
  'POST /api/company-exports': { action: 'export.company', targetType: 'company-export' },
  'GET /api/company-exports/:id/archive': { action: 'export.company_download', targetType: 'company-export' },
  'POST /api/company-imports': { action: 'import.company', targetType: 'company', platform: true },
  // Exempt admin writes: nothing changes.
  'POST /api/prompt/test': { skip: 'a test call to the model with the form being edited; nothing is stored' },
  'POST /api/flows/:id/try': { skip: 'a dry run of a draft flow in the simulator; nothing is stored' },
};

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const PLATFORM = new Set(['companies', 'plans', 'helps', 'announcements']);

/** `users` → `user`, `companies` → `company`, `queueIntegration` → `queue-integration`. */
const singular = (s: string) => {
  const kebab = s.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
  return kebab.endsWith('ies') ? `${kebab.slice(0, -3)}y` : kebab.endsWith('s') ? kebab.slice(0, -1) : kebab;
};

/**
 * The rule for a route: null when it is not recorded. Admin- and super-only writes always are, unless
 * AUDIT_RULES exempts them with a reason.
 */
export type ResolvedRule = AuditRule & { action: string; targetType: string };

export function auditRuleFor(method: string, url: string, access: Access | undefined): ResolvedRule | null {
  const explicit = AUDIT_RULES[`${method} ${url}`];
  const role = typeof access === 'object' ? access.role : undefined;
  if (!explicit && !(WRITE.has(method) && (role === 'admin' || role === 'super'))) return null;
  if (explicit?.skip) return null;
  const segments = url.replace(/^\/api\//, '').split('/');
  const base = segments[0] ?? '';
  const rest = segments.slice(1).filter((s) => !s.startsWith(':'));
  const resource = TABLES[base];
  const targetType = explicit?.targetType ?? resource?.type ?? singular(base);
  const verb = method === 'POST' ? 'created' : method === 'DELETE' ? 'deleted' : 'updated';
  const derived = rest.length
    ? `${targetType}.${rest.join('_')}${method === 'POST' ? '' : `_${verb}`}`
    : `${targetType}.${verb}`;
  return {
    ...explicit,
    action: explicit?.action ?? derived,
    targetType,
    platform: explicit?.platform ?? (role === 'super' && PLATFORM.has(base)),
    load: explicit?.load ?? (WRITE.has(method) ? resource?.load : undefined),
  };
}

/** Keys that change on their own or are noise in a diff. */
const IGNORED = new Set([
  'updatedAt',
  'createdAt',
  'lastUsedAt',
  'qrcode',
  'retries',
  'status',
  'leaseOwner',
  'leaseExpiresAt',
  'online',
  'presence',
  'tokenVersion',
]);

/** The keys that differ between two snapshots, each side with those keys only. */
export function changedKeys(before: unknown, after: unknown): { before: unknown; after: unknown } {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(before) || !isObj(after)) return { before, after };
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (IGNORED.has(k)) continue;
    if (JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null)) {
      b[k] = before[k] ?? null;
      a[k] = after[k] ?? null;
    }
  }
  return { before: b, after: a };
}

const without = (v: unknown): unknown => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !IGNORED.has(k)));
};

interface Pending {
  rule: ResolvedRule;
  before: unknown;
  /** Its outbox intent (docs/audit.md "Durable"). */
  intent?: string;
}
const pending = new WeakMap<FastifyRequest, Pending>();

const idFromPayload = (payload: unknown): string | null => {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const o = JSON.parse(payload) as { id?: unknown };
    return typeof o.id === 'number' || typeof o.id === 'string' ? String(o.id) : null;
  } catch {
    return null;
  }
};

/** An answer's figures: numbers as they are, lists as their length (an import's report). */
const summary = (payload: unknown): Record<string, number> => {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return {};
  try {
    const o = JSON.parse(payload) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(o).flatMap(([k, v]) =>
        typeof v === 'number' ? [[k, v]] : Array.isArray(v) ? [[k, v.length]] : [],
      ),
    );
  } catch {
    return {};
  }
};

const userAgentOf = (req: FastifyRequest) => (req.headers['user-agent'] as string | undefined) ?? null;

/** A sign-in: the user the answer names, or (failed) the account of the e-mail tried when there is one. */
async function loginEntry(
  db: Db,
  req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<AuditInput | null> {
  const where = { ip: req.ip ?? null, userAgent: userAgentOf(req) };
  if (reply.statusCode < 300) {
    try {
      const user = (
        JSON.parse(String(payload)) as { user?: { id: number; companyId: number; email: string } }
      ).user;
      if (!user) return null;
      return {
        ...where,
        companyId: user.companyId,
        actorId: user.id,
        actorEmail: user.email,
        action: 'auth.login',
        targetType: 'user',
        targetId: user.id,
      };
    } catch {
      return null;
    }
  }
  // 400: a malformed body (no e-mail to speak of); 429: the throttle answered, already recorded before it.
  if (reply.statusCode !== 401 && reply.statusCode !== 403) return null;
  const email = String((req.body as { email?: unknown } | undefined)?.email ?? '')
    .trim()
    .slice(0, 320);
  if (!email) return null;
  const [u] = await db
    .select({ id: users.id, companyId: users.companyId })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  let code: string | null = null;
  try {
    code = (JSON.parse(String(payload)) as { error?: string }).error ?? null;
  } catch {
    /* not JSON */
  }
  // An unknown address goes to the platform's log: the super user sees attempts on accounts that do not exist.
  return {
    ...where,
    companyId: u?.companyId ?? null,
    actorId: null,
    actorEmail: email,
    action: 'auth.login_failed',
    targetType: 'user',
    targetId: u?.id ?? null,
    after: { status: reply.statusCode, error: code },
  };
}

/** An admin write the hook is about to record, kept in the outbox until its entry is written (docs/audit.md). */
interface AuditIntent {
  method: string;
  url: string;
  role: string | null;
  companyId: number;
  actorId: number;
  targetId: string | null;
  params: Record<string, unknown>;
  /** Masked (maskAudit): no secret reaches the outbox. */
  before: unknown;
  body: unknown;
  ip: string | null;
  userAgent: string | null;
}

export const AUDIT_INTENT = 'audit.intent';
/**
 * An intent is recovered only this long after its request began (plus the sweep's 10 s): a slow admin call (an
 * import) must finish and write its own entry first.
 */
const INTENT_GRACE_MS = 5 * 60_000;

/**
 * The recovery of an admin write whose process died between the action and its entry (the outbox sweep): the
 * target read again says whether it happened — an entry with the keys that changed, none when nothing did (it
 * failed, or changed nothing). A write without a snapshot (a creation, a body-only action) cannot be checked:
 * its entry is written with what was asked and `recovered: true` in `after`.
 */
export function recoverAuditIntent(db: Db) {
  return async (raw: unknown, meta: { outboxId: string }) => {
    const p = raw as AuditIntent;
    const access = p.role ? ({ role: p.role } as unknown as Access) : undefined;
    const rule = auditRuleFor(p.method, p.url, access);
    if (!rule || rule.login) return;
    const req = { params: p.params, body: p.body, query: {} } as unknown as FastifyRequest;
    let before: unknown = p.before;
    let after: unknown = null;
    if (rule.load && p.targetId !== null && (p.method !== 'POST' || p.params.id !== undefined)) {
      const now = await rule.load(db, p.companyId, req, p.targetId);
      if (p.method === 'DELETE') {
        if (now) return; // still there: the delete did not happen
        before = without(before);
      } else {
        if (!now) return;
        const masked = maskAudit(now);
        if (before) {
          ({ before, after } = changedKeys(before, masked));
          if (after && typeof after === 'object' && !Object.keys(after).length) return;
        } else after = without(masked);
      }
    } else {
      after = { ...(p.body && typeof p.body === 'object' ? (p.body as object) : {}), recovered: true };
    }
    await recordAudit(db, {
      companyId: rule.platform ? null : p.companyId,
      actorId: p.actorId,
      action: rule.action,
      targetType: rule.targetType,
      targetId: p.targetId,
      before: before ?? undefined,
      after: after ?? undefined,
      ip: p.ip,
      userAgent: p.userAgent,
      outboxId: meta.outboxId,
    });
  };
}

/**
 * Installs the audit hook: after the access check (preHandler) it reads the target's state; before the
 * answer leaves (onSend), on a 2xx, it reads it again and appends the entry, so a client that got its answer
 * finds the entry there. A failure to record is logged and does not change the answer (the change is made).
 * With the outbox, an admin write first leaves an intent there (one INSERT), deleted once its entry is written
 * or the call failed: a crash in between is recovered by the sweep (recoverIntent, docs/audit.md "Durable").
 */
export function installAudit(
  app: FastifyInstance,
  db: Db,
  log: FastifyBaseLogger,
  /** The outbox (made after the hooks; services.ts registers recoverAuditIntent with it). */
  outboxOf?: () => Pick<OutboxBus, 'put' | 'forget'>,
): void {
  // One decision per route (its access is fixed once the app is ready).
  const decided = new Map<string, ResolvedRule | null>();
  app.addHook('preHandler', async (req) => {
    const url = req.routeOptions.url;
    if (!url?.startsWith('/api')) return;
    const key = `${req.method} ${url}`;
    let rule = decided.get(key);
    if (rule === undefined) {
      rule = auditRuleFor(req.method, url, req.routeOptions.config?.access);
      decided.set(key, rule);
    }
    if (!rule) return;
    let before: unknown = null;
    const id = (req.params as { id?: unknown } | undefined)?.id;
    if (rule.load && req.tenant && (req.method !== 'POST' || id !== undefined || rule.load === settingOf))
      before = await rule.load(db, req.tenant.companyId, req, id === undefined ? null : String(id));
    let intent: string | undefined;
    const outbox = outboxOf?.();
    if (outbox && req.tenant && !rule.login && WRITE.has(req.method)) {
      const params = (req.params ?? {}) as Record<string, unknown>;
      const idParam = params.id ?? params.key ?? Object.values(params)[0];
      const access = req.routeOptions.config?.access;
      const payload: AuditIntent = {
        method: req.method,
        url,
        role: typeof access === 'object' && access.role ? access.role : null,
        companyId: req.tenant.companyId,
        actorId: req.tenant.userId,
        targetId: idParam !== undefined ? String(idParam) : null,
        params,
        before: before === null ? null : maskAudit(before),
        // An import's rows are customers' data: never in the outbox (its entry keeps counts only).
        body:
          req.body && typeof req.body === 'object' && !rule.action.startsWith('import.')
            ? maskAudit(req.body)
            : null,
        ip: req.ip ?? null,
        userAgent: userAgentOf(req),
      };
      intent = await outbox.put(AUDIT_INTENT, req.tenant.companyId, payload, { graceMs: INTENT_GRACE_MS });
    }
    pending.set(req, { rule, before, intent });
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const p = pending.get(req);
    if (!p) return payload;
    pending.delete(req);
    // Written below, or nothing to write (the call failed): the intent goes. Kept when recording fails.
    const done = () => p.intent && outboxOf?.().forget(p.intent);
    try {
      if (p.rule.login) {
        const entry = await loginEntry(db, req, reply, payload);
        if (entry) await recordAudit(db, entry);
        return payload;
      }
      if (reply.statusCode >= 300 || !req.tenant) {
        done();
        return payload;
      }
      const t = req.tenant;
      const params = (req.params ?? {}) as Record<string, unknown>;
      const idParam = params.id ?? params.key ?? Object.values(params)[0];
      const targetId =
        idParam !== undefined ? String(idParam) : req.method === 'POST' ? idFromPayload(payload) : null;
      let before: unknown = p.before;
      let after: unknown = null;
      if (p.rule.load && req.method !== 'DELETE') {
        after = await p.rule.load(db, t.companyId, req, targetId);
        if (before && after) ({ before, after } = changedKeys(before, after));
        else after = without(after);
      } else if (p.rule.action.startsWith('import.')) {
        // What was imported, as counts: never the rows (customers' data) themselves.
        after = { ...(Array.isArray(req.body) ? { rows: req.body.length } : {}), ...summary(payload) };
      } else if (
        req.method !== 'DELETE' &&
        req.method !== 'GET' &&
        req.body &&
        typeof req.body === 'object'
      ) {
        after = req.body;
      }
      if (req.method === 'DELETE') before = without(before);
      const query =
        req.method === 'GET' && req.query && Object.keys(req.query).length ? req.query : undefined;
      await recordAudit(db, {
        companyId: p.rule.platform ? null : t.companyId,
        actorId: t.userId,
        action: p.rule.action,
        targetType: p.rule.targetType,
        targetId,
        before: before ?? undefined,
        after: after ?? query ?? undefined,
        ip: req.ip ?? null,
        userAgent: userAgentOf(req),
        outboxId: p.intent,
      });
      done();
    } catch (err) {
      log.error({ err, action: p.rule.action }, 'audit entry not recorded');
    }
    return payload;
  });
}
