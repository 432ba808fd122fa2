import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { SECRET_MASK } from '@recado/contracts';
import { expectError, testApp, waitFor } from '../../../test/helpers.js';
import { manualClock } from '../../lib/clock.js';
import { auditService } from './audit-service.js';
import { recordAudit } from './record.js';

const t = await testApp();
const db = t.database.db;

const rowsOf = async (companyId: number) =>
  (
    await t.database.raw(
      `select * from audit_log where company_id = $1 and action like 'test.%' order by id`,
      [companyId],
    )
  ).rows;

describe('recordAudit', () => {
  it('appends an entry with the actor e-mail looked up and secrets masked', async () => {
    const a = await t.company('RecA');
    await recordAudit(db, {
      companyId: a.id,
      actorId: a.admin.user.id,
      action: 'test.recorded',
      targetType: 'thing',
      targetId: 7,
      before: { name: 'x', accessToken: 'abc', nested: { password: 'p', keep: 1 } },
      after: [{ key: 'transcriptionApiKey', value: 'sk-1' }],
      ip: '10.0.0.1',
      userAgent: 'UA',
    });
    const [row] = await rowsOf(a.id);
    expect(row).toMatchObject({
      actor_email: a.adminEmail,
      action: 'test.recorded',
      target_type: 'thing',
      target_id: '7',
      ip: '10.0.0.1',
      user_agent: 'UA',
      before: { name: 'x', accessToken: SECRET_MASK, nested: { password: SECRET_MASK, keep: 1 } },
      after: [{ key: 'transcriptionApiKey', value: SECRET_MASK }],
    });
  });

  it('refuses UPDATE and DELETE at the database; the purge setting and a company deletion may delete', async () => {
    const a = await t.company('RecB');
    await recordAudit(db, { companyId: a.id, actorId: a.admin.user.id, action: 'test.one' });
    await expect(
      t.database.raw(`update audit_log set action = 'x' where company_id = $1`, [a.id]),
    ).rejects.toThrow(/append-only/);
    await expect(t.database.raw('delete from audit_log where company_id = $1', [a.id])).rejects.toThrow(
      /append-only/,
    );
    expect(await rowsOf(a.id)).toHaveLength(1);
    await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('recado.audit_purge', 'on', true)`);
      await tx.execute(sql`delete from audit_log where company_id = ${a.id}`);
    });
    expect(await rowsOf(a.id)).toHaveLength(0);
    // Outside that transaction the setting is gone again.
    await recordAudit(db, { companyId: a.id, actorId: null, action: 'test.two' });
    await expect(t.database.raw('delete from audit_log where company_id = $1', [a.id])).rejects.toThrow();
    // A company's deletion takes its log with it (the cascade is allowed).
    const del = await t.as(await t.superuser()).del(`/companies/${a.id}`);
    expect(del.status).toBeLessThan(300);
    expect(await rowsOf(a.id)).toHaveLength(0);
  });
});

describe('retention purge (auditRetentionDays)', () => {
  it("deletes entries past each company's retention and the platform's, nothing else; the daily job is queued", async () => {
    const a = await t.company('RetA');
    const b = await t.company('RetB');
    expect((await t.as(a.admin).put('/settings/auditRetentionDays', { value: '30' })).status).toBe(200);
    await expectError(
      await t.as(a.admin).put('/settings/auditRetentionDays', { value: '5' }),
      400,
      'ERR_VALIDATION',
    );
    const now = new Date('2030-06-01T12:00:00Z');
    const ago = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
    const put = (companyId: number | null, action: string, days: number) =>
      t.database.raw('insert into audit_log (company_id, action, created_at) values ($1, $2, $3)', [
        companyId,
        action,
        ago(days),
      ]);
    await put(a.id, 'test.a40', 40);
    await put(a.id, 'test.a10', 10);
    await put(b.id, 'test.b40', 40);
    await put(b.id, 'test.b400', 400);
    await put(null, 'test.p400', 400);
    await put(null, 'test.p10', 10);
    const clock = manualClock(now);
    const service = auditService({ db, clock });
    expect(await service.purge()).toBeGreaterThanOrEqual(3);
    const left = (
      await t.database.raw(
        `select action from audit_log where action like 'test.%' and action ~ '^test\\.[abp][0-9]+$'`,
      )
    ).rows.map((r) => r.action);
    expect(left.sort()).toEqual(['test.a10', 'test.b40', 'test.p10']);
    // Again: nothing more to delete (idempotent).
    expect(await service.purge()).toBe(0);
    // The recurring job is registered and queued (by the poller's first pass, a moment after start).
    const queued = async () =>
      (await t.database.raw(`select kind from jobs where kind = 'audit.purge'`)).rows;
    await waitFor(async () => (await queued()).length > 0);
    expect(await queued()).toHaveLength(1);
  });
});
