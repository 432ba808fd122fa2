import { and, desc, eq, gte, ilike, isNull, like, lte, or, sql, type SQL } from 'drizzle-orm';
import { AUDIT_EXPORT_LIMIT, AUDIT_PAGE_SIZE, SETTING_DEFAULTS, type AuditLogQuery } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { auditLog } from '../../db/schema/audit.js';
import { users } from '../../db/schema/users.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, noPayload } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';

const DAY = 24 * 60 * 60 * 1000;
/** The platform's own log keeps its entries this long (a company's follows its auditRetentionDays setting). */
export const PLATFORM_RETENTION_DAYS = 365;
/** Entries one purge statement deletes at most (several statements when more are due). */
const PURGE_BATCH = 5000;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
/** A bare day: `from` its first moment, `to` its last (UTC). */
const instant = (s: string, end: boolean) =>
  new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : s);

export function auditService({ db, clock }: { db: Db; clock: Clock }) {
  const where = (t: Tenant, q: AuditLogQuery): SQL | undefined => {
    if (q.scope === 'platform' && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
    const parts: (SQL | undefined)[] = [
      q.scope === 'platform' ? isNull(auditLog.companyId) : eq(auditLog.companyId, t.companyId),
    ];
    if (q.from) parts.push(gte(auditLog.createdAt, instant(q.from, false)));
    if (q.to) parts.push(lte(auditLog.createdAt, instant(q.to, true)));
    if (q.actor) {
      const byEmail = ilike(auditLog.actorEmail, `%${escapeLike(q.actor)}%`);
      parts.push(/^\d{1,9}$/.test(q.actor) ? or(eq(auditLog.actorId, Number(q.actor)), byEmail) : byEmail);
    }
    if (q.action) {
      const prefix = q.action.replace(/\.$/, '');
      parts.push(or(eq(auditLog.action, prefix), like(auditLog.action, `${escapeLike(prefix)}.%`)));
    }
    return and(...parts);
  };

  const select = (t: Tenant, q: AuditLogQuery) =>
    db
      .select({
        id: auditLog.id,
        companyId: auditLog.companyId,
        actorId: auditLog.actorId,
        actorEmail: auditLog.actorEmail,
        actorName: users.name,
        action: auditLog.action,
        targetType: auditLog.targetType,
        targetId: auditLog.targetId,
        before: auditLog.before,
        after: auditLog.after,
        ip: auditLog.ip,
        userAgent: auditLog.userAgent,
        createdAt: auditLog.createdAt,
      })
      .from(auditLog)
      .leftJoin(users, eq(users.id, auditLog.actorId))
      .where(where(t, q))
      .orderBy(desc(auditLog.createdAt), desc(auditLog.id));

  const purgeJob = defineJob({
    kind: 'audit.purge',
    payload: noPayload,
    options: { every: DAY },
    handler: async () => {
      await purge();
    },
  });

  /**
   * Deletes the entries past their company's retention (auditRetentionDays) and the platform's past
   * PLATFORM_RETENTION_DAYS. The only delete the table accepts: recado.audit_purge is set for its transaction.
   * Idempotent: a repeated run finds nothing older than the cut.
   */
  async function purge(): Promise<number> {
    const now = clock.now();
    const fallback = Number(SETTING_DEFAULTS.auditRetentionDays);
    let total = 0;
    for (;;) {
      const deleted = await db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('recado.audit_purge', 'on', true)`);
        const res = await tx.execute(sql`
          delete from audit_log where id in (
            select a.id from audit_log a
              left join settings s on s.company_id = a.company_id and s.key = 'auditRetentionDays'
            where a.created_at < ${now}::timestamptz - make_interval(days => case
                when a.company_id is null then ${PLATFORM_RETENTION_DAYS}::int
                when s.value ~ '^[0-9]{1,5}$' then s.value::int
                else ${fallback}::int end)
            limit ${PURGE_BATCH})`);
        return (
          (res as unknown as { rowCount?: number; affectedRows?: number }).rowCount ??
          (res as unknown as { affectedRows?: number }).affectedRows ??
          0
        );
      });
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }

  return {
    jobs: { purge: purgeJob },
    purge,
    async list(t: Tenant, q: AuditLogQuery) {
      const rows = await select(t, q)
        .limit(AUDIT_PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * AUDIT_PAGE_SIZE);
      return { entries: rows.slice(0, AUDIT_PAGE_SIZE), hasMore: rows.length > AUDIT_PAGE_SIZE };
    },
    async csv(t: Tenant, q: AuditLogQuery): Promise<{ filename: string; csv: string }> {
      const rows = await select(t, q).limit(AUDIT_EXPORT_LIMIT);
      const cell = (v: unknown) => {
        let text = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
        if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
        return /[";\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
      };
      const header = [
        'id',
        'createdAt',
        'actorId',
        'actorEmail',
        'actorName',
        'action',
        'targetType',
        'targetId',
        'before',
        'after',
        'ip',
        'userAgent',
      ];
      const lines = rows.map((r) =>
        [
          r.id,
          r.createdAt.toISOString(),
          r.actorId,
          r.actorEmail,
          r.actorName,
          r.action,
          r.targetType,
          r.targetId,
          r.before,
          r.after,
          r.ip,
          r.userAgent,
        ]
          .map(cell)
          .join(';'),
      );
      const day = clock.now().toISOString().slice(0, 10);
      return {
        filename: `${q.scope === 'platform' ? 'platform-audit' : 'audit'}-${day}.csv`,
        csv: [header.join(';'), ...lines].join('\r\n') + '\r\n',
      };
    },
  };
}
export type AuditService = ReturnType<typeof auditService>;
