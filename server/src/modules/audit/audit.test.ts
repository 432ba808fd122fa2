import { describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@recado/contracts';
import { expectError, testApp, unique, type Session } from '../../../test/helpers.js';
import { routeTable } from '../../http/access.js';
import { AUDIT_RULES, auditRuleFor } from './audit-hook.js';

const t = await testApp();
const UA = 'Mozilla/5.0 (AuditTest) Chrome/120';

type Entry = {
  id: number;
  action: string;
  actorId: number | null;
  actorEmail: string | null;
  targetType: string | null;
  targetId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  ip: string | null;
  userAgent: string | null;
};

const log = async (s: Session, query = ''): Promise<Entry[]> => {
  const res = await t.request('GET', `/audit-log${query}`, { token: s.token });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).entries;
};
/** The newest entry of `action` in the admin's company log. */
const last = async (s: Session, action: string) => {
  const entries = await log(s, `?action=${action}`);
  const e = entries.find((x) => x.action === action);
  expect(e, `no ${action} in ${JSON.stringify(entries.map((x) => x.action))}`).toBeDefined();
  return e!;
};
const send = (s: Session, method: string, path: string, body?: unknown) =>
  t.request(method, path, { token: s.token, body, headers: { 'user-agent': UA } });

const a = await t.company('AudA');
const b = await t.company('AudB');

describe('each category is recorded by doing the real action', () => {
  it('users and permissions: create, profile change (before/after), delete', async () => {
    const email = `${unique('u')}@aud.test`;
    const res = await send(a.admin, 'POST', '/users', {
      name: 'Ana',
      email,
      password: 'User@123',
      profile: 'user',
    });
    expect(res.status).toBe(201);
    const user = await res.json();
    const created = await last(a.admin, 'user.created');
    expect(created).toMatchObject({
      actorId: a.admin.user.id,
      actorEmail: a.adminEmail,
      targetType: 'user',
      targetId: String(user.id),
      userAgent: UA,
    });
    expect(created.ip).toBeTruthy();
    expect(created.after).toMatchObject({ email, profile: 'user' });
    expect(JSON.stringify(created)).not.toContain('User@123');

    expect((await send(a.admin, 'PUT', `/users/${user.id}`, { profile: 'supervisor' })).status).toBe(200);
    const updated = await last(a.admin, 'user.updated');
    expect(updated.before).toEqual({ profile: 'user' });
    expect(updated.after).toEqual({ profile: 'supervisor' });

    expect((await send(a.admin, 'DELETE', `/users/${user.id}`)).status).toBe(200);
    const deleted = await last(a.admin, 'user.deleted');
    expect(deleted).toMatchObject({ targetId: String(user.id), before: { email } });
  });

  it('settings: before/after of the key; a sealed one only as the mask', async () => {
    expect((await send(a.admin, 'PUT', '/settings/userRating', { value: 'enabled' })).status).toBe(200);
    const e = await last(a.admin, 'settings.updated');
    expect(e).toMatchObject({
      targetType: 'setting',
      targetId: 'userRating',
      before: { userRating: 'disabled' },
      after: { userRating: 'enabled' },
    });
    expect(
      (await send(a.admin, 'PUT', '/settings/transcriptionApiKey', { value: 'sk-very-secret' })).status,
    ).toBe(200);
    const secret = (await log(a.admin, '?action=settings.updated')).find(
      (x) => x.targetId === 'transcriptionApiKey',
    )!;
    expect(secret.after).toEqual({ transcriptionApiKey: SECRET_MASK });
    expect(JSON.stringify(secret)).not.toContain('sk-very-secret');
  });

  it('connections: create, update, restart, delete', async () => {
    const w = await (
      await send(a.admin, 'POST', '/whatsapp', { name: 'Vendas', channel: 'simulator' })
    ).json();
    expect((await last(a.admin, 'whatsapp.created')).targetId).toBe(String(w.id));
    expect((await send(a.admin, 'PUT', `/whatsapp/${w.id}`, { name: 'Vendas 2' })).status).toBe(200);
    const upd = await last(a.admin, 'whatsapp.updated');
    expect(upd).toMatchObject({ before: { name: 'Vendas' }, after: { name: 'Vendas 2' } });
    expect((await send(a.admin, 'PUT', `/whatsappsession/${w.id}`)).status).toBeLessThan(300);
    expect((await last(a.admin, 'whatsapp.restarted')).targetId).toBe(String(w.id));
    expect((await send(a.admin, 'DELETE', `/whatsapp/${w.id}`)).status).toBe(200);
    expect((await last(a.admin, 'whatsapp.deleted')).before).toMatchObject({ name: 'Vendas 2' });
  });

  it('queues, queue integrations, prompts, webhooks and API tokens', async () => {
    const q = await (
      await send(a.admin, 'POST', '/queue', { name: unique('Fila '), color: '#112233' })
    ).json();
    expect((await last(a.admin, 'queue.created')).targetId).toBe(String(q.id));

    const integ = await send(a.admin, 'POST', '/queueIntegration', {
      type: 'typebot',
      name: unique('Typebot '),
      urlN8N: 'https://typebot.example.com',
      typebotSlug: 'my-flow',
    });
    expect(integ.status, await integ.clone().text()).toBe(201);
    expect((await last(a.admin, 'queue-integration.created')).targetId).toBe(String((await integ.json()).id));

    const prompt = await send(a.admin, 'POST', '/prompt', {
      name: unique('Assistente '),
      prompt: 'Você é um assistente de atendimento: responda com educação, em poucas frases.',
      model: 'gpt-4o-mini',
      maxTokens: 50,
      temperature: 0.2,
      apiKey: 'sk-prompt-secret',
      queueId: q.id,
      maxMessages: 5,
    });
    expect(prompt.status, await prompt.clone().text()).toBe(201);
    const pe = await last(a.admin, 'prompt.created');
    expect(JSON.stringify(pe)).not.toContain('sk-prompt-secret');

    const hook = await send(a.admin, 'POST', '/webhooks', {
      name: 'Todos',
      url: 'https://hooks.example.com/x',
      events: ['ticket.created'],
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    expect((await last(a.admin, 'webhook.created')).targetId).toBe(String((await hook.json()).id));

    const token = await send(a.admin, 'POST', '/api-tokens/company', { name: 'ERP', scope: 'read' });
    expect(token.status, await token.clone().text()).toBe(201);
    const tok = await token.json();
    const te = await last(a.admin, 'api-token.created');
    expect(te.targetId).toBe(String(tok.id));
    if (tok.token) expect(JSON.stringify(te)).not.toContain(tok.token);
  });

  it('exports and imports', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const exp = await send(a.admin, 'GET', `/dashboard/export?initialDate=${day}&finalDate=${day}`);
    expect(exp.status).toBe(200);
    expect((await last(a.admin, 'export.dashboard')).after).toMatchObject({ initialDate: day });

    const up = await send(a.admin, 'POST', '/contacts/upload', [
      { nome: 'Alice', numero: '(11) 98555-0001' },
      { nome: 'Bruno', numero: '(11) 98555-0002' },
    ]);
    expect(up.status, await up.clone().text()).toBe(200);
    const imp = await last(a.admin, 'import.contacts');
    expect(imp.after).toMatchObject({ rows: 2 });
    expect(JSON.stringify(imp)).not.toContain('Alice');

    expect((await send(a.admin, 'GET', '/audit-log.csv')).status).toBe(200);
    expect((await last(a.admin, 'export.audit_log')).actorId).toBe(a.admin.user.id);
  });

  it('logins and failed logins with address and browser; logout', async () => {
    // Another admin signs in (a sign-in replaces the user's session: A's admin keeps reading the log).
    const x = await t.user(a.admin, 'admin');
    const ok = await t.request('POST', '/auth/login', {
      body: { email: x.user.email, password: 'User@123' },
      headers: { 'user-agent': UA },
    });
    expect(ok.status).toBe(200);
    const session = { ...x, token: (await ok.json()).token };
    const login = (await log(a.admin, '?action=auth.login')).find((e) => e.userAgent === UA)!;
    expect(login).toMatchObject({
      actorId: x.user.id,
      actorEmail: x.user.email,
      targetId: String(x.user.id),
    });
    expect(login.ip).toMatch(/127\.0\.0\.1/);

    const bad = await t.request('POST', '/auth/login', {
      body: { email: x.user.email, password: 'wrong-password' },
      headers: { 'user-agent': UA },
    });
    expect(bad.status).toBe(401);
    const failed = await last(a.admin, 'auth.login_failed');
    expect(failed).toMatchObject({ actorEmail: x.user.email, userAgent: UA, after: { status: 401 } });
    expect(JSON.stringify(failed)).not.toContain('wrong-password');
    // Company B never sees A's sign-ins.
    expect((await log(b.admin, '?action=auth')).some((e) => e.actorEmail === x.user.email)).toBe(false);
    // An address no account has goes to the platform's log.
    const ghost = `${unique('ghost')}@nowhere.test`;
    expect((await t.request('POST', '/auth/login', { body: { email: ghost, password: 'x' } })).status).toBe(
      401,
    );
    expect(
      (await log(await t.superuser(), '?scope=platform&action=auth.login_failed')).some(
        (e) => e.actorEmail === ghost,
      ),
    ).toBe(true);

    expect((await send(session, 'DELETE', '/auth/logout')).status).toBe(200);
    expect((await last(a.admin, 'auth.logout')).actorId).toBe(x.user.id);
  });

  it("the super user's platform log: companies and plans, never in a company's log", async () => {
    const s = await t.superuser();
    const c = await t.company('AudPlat');
    const plat = await log(s, '?scope=platform&action=company.created');
    expect(plat.some((e) => e.targetId === String(c.id))).toBe(true);
    const plans = await (await t.as(s).get('/plans/all')).json();
    const plan = plans[0];
    expect((await send(s, 'PUT', `/plans/${plan.id}`, { name: `${plan.name} X` })).status).toBe(200);
    const pe = (await log(s, '?scope=platform&action=plan.updated'))[0]!;
    expect(pe).toMatchObject({
      targetId: String(plan.id),
      before: { name: plan.name },
      after: { name: `${plan.name} X` },
    });
    expect(
      (await log(c.admin)).some((e) => e.action.startsWith('company.') || e.action.startsWith('plan.')),
    ).toBe(false);
    // Admins may not read the platform's log.
    await expectError(await t.as(a.admin).get('/audit-log?scope=platform'), 403, 'ERR_NO_PERMISSION');
  });
});

describe('reading the log', () => {
  it('filters by period, actor and action; pages', async () => {
    const all = await log(a.admin);
    expect(all.length).toBeGreaterThan(5);
    const byActor = await log(a.admin, `?actor=${encodeURIComponent(a.adminEmail)}`);
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e) => e.actorEmail === a.adminEmail)).toBe(true);
    expect((await log(a.admin, '?actor=nobody-at-all@x.test')).length).toBe(0);
    const users = await log(a.admin, '?action=user');
    expect(users.length).toBeGreaterThan(0);
    expect(users.every((e) => e.action.startsWith('user.'))).toBe(true);
    expect(await log(a.admin, '?from=2000-01-01&to=2000-01-02')).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await log(a.admin, `?from=${today}`)).length).toBe(all.length);
    await expectError(await t.as(a.admin).get('/audit-log?from=yesterday'), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(a.admin).get('/audit-log?from=2020-02-01&to=2020-01-01'),
      400,
      'ERR_VALIDATION',
    );
  });

  it('CSV: the same entries, one line each, formulas neutralised', async () => {
    const res = await t.as(a.admin).get('/audit-log.csv?action=settings');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(
      /attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'id;createdAt;actorId;actorEmail;actorName;action;targetType;targetId;before;after;ip;userAgent',
    );
    const entries = await log(a.admin, '?action=settings');
    expect(lines.length - 1).toBe(entries.length);
    expect(lines.slice(1).every((l) => l.includes(';settings.updated;'))).toBe(true);
  });

  it('company-scoped: a second company reads none of the first one; attendants get 403', async () => {
    const mine = await log(a.admin);
    const theirs = await log(b.admin);
    const ids = new Set(mine.map((e) => e.id));
    expect(theirs.some((e) => ids.has(e.id))).toBe(false);
    const csv = await (await t.as(b.admin).get('/audit-log.csv')).text();
    expect(csv).not.toContain(a.adminEmail);
    const attendant = await t.user(a.admin, 'user');
    await expectError(await t.as(attendant).get('/audit-log'), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(attendant).get('/audit-log.csv'), 403, 'ERR_NO_PERMISSION');
    const supervisor = await t.user(a.admin, 'supervisor');
    await expectError(await t.as(supervisor).get('/audit-log'), 403, 'ERR_NO_PERMISSION');
    expect((await t.request('GET', '/audit-log')).status).toBe(401);
  });
});

describe('append-only', () => {
  it('no route changes or deletes an entry: every write route, called with entry ids, leaves the log as it was', async () => {
    const c = await t.company('AudSweep');
    await send(c.admin, 'PUT', '/settings/userRating', { value: 'enabled' });
    const before = await t.database.raw('select * from audit_log order by id');
    const ids = before.rows.map((r) => Number(r.id));
    // The newest entry's id: higher than any user's, so the sweep does not sign C's admin out by deleting it.
    const id = String(ids[ids.length - 1]);
    const writes = routeTable(t.app.app).filter((r) => r.method !== 'GET' && r.url !== '/api/auth/logout');
    expect(writes.length).toBeGreaterThan(50);
    // The routes of the log itself are reads only.
    expect(
      routeTable(t.app.app)
        .filter((r) => r.url.includes('audit'))
        .every((r) => r.method === 'GET'),
    ).toBe(true);
    for (const r of writes) {
      const path = r.url
        .replace(/^\/api/, '')
        .replace(/:(\w+)/g, (_m, name: string) =>
          name === 'lang' ? 'en' : name === 'key' ? 'userRating' : id,
        );
      await t
        .request(r.method, path, {
          token: c.admin.token,
          body: { id: Number(id), action: 'x', before: null },
        })
        .catch(() => undefined);
    }
    const after = await t.database.raw(`select * from audit_log where id <= $1 order by id`, [
      ids[ids.length - 1],
    ]);
    // Every entry is still there, unchanged (a company the sweep deleted takes its own log with it, by design).
    const kept = new Map(after.rows.map((r) => [Number(r.id), JSON.stringify(r)]));
    const companies = new Set(
      (await t.database.raw('select id from companies')).rows.map((r) => Number(r.id)),
    );
    for (const row of before.rows) {
      if (row.company_id !== null && !companies.has(Number(row.company_id))) continue;
      expect(kept.get(Number(row.id)), `entry ${String(row.id)}`).toBe(JSON.stringify(row));
    }
    expect(kept.size).toBeGreaterThan(0);
  }, 120_000);

  it('every admin- or super-only write route is audited or exempt with a reason; no rule names a missing route', () => {
    const table = routeTable(t.app.app);
    const keys = new Set(table.map((r) => `${r.method} ${r.url}`));
    for (const key of Object.keys(AUDIT_RULES)) expect(keys.has(key), `AUDIT_RULES names ${key}`).toBe(true);
    const missed = table.filter((r) => {
      const role = typeof r.access === 'object' ? r.access.role : undefined;
      if (r.method === 'GET' || (role !== 'admin' && role !== 'super')) return false;
      const rule = AUDIT_RULES[`${r.method} ${r.url}`];
      return !auditRuleFor(r.method, r.url, r.access) && !rule?.skip;
    });
    expect(missed.map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });
});
