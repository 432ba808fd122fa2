import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiTokens, companies, contacts, queues, tickets, userQueues, users } from '../../db/schema/index.js';
import { expectError, nextEvent, testApp, unique, type Session } from '../../../test/helpers.js';

/**
 * Personal and company API tokens (docs/api.md "API tokens"): shown once, stored hashed, scoped, revocable,
 * expiring, limited per token, accepted by every /api route under the owner's permissions.
 */

const RATE = 40;
let logs = '';
const t = await testApp({
  env: { API_RATE_LIMIT: String(RATE) },
  // Every request logged, to show no token ever reaches the log.
  deps: {
    logger: {
      level: 'debug',
      stream: new Writable({
        write(chunk, _enc, done) {
          logs += String(chunk);
          done();
        },
      }),
    },
  },
});
const db = t.database.db;
const a = await t.company('TokensA');
const b = await t.company('TokensB');

type Created = { id: number; token: string; hint: string; scope: string; expiresAt: string | null };

async function newToken(s: Session, scope: string, extra: Record<string, unknown> = {}, company = false) {
  const res = await t.as(s).post(company ? '/api-tokens/company' : '/api-tokens', {
    name: unique('tok '),
    scope,
    ...extra,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
}
const call = (token: string, method: string, path: string, body?: unknown) =>
  t.request(method, path, { token, body });

describe('API tokens', () => {
  test('the token is answered once, at creation, and only its hash is stored', async () => {
    const created = await newToken(a.admin, 'read');
    expect(created.token).toMatch(/^rec_pat_[A-Za-z0-9_-]{43}$/);
    expect(created.hint).toBe(created.token.slice(0, 12));
    const listed = await (await t.as(a.admin).get('/api-tokens')).text();
    expect(listed).toContain(`"id":${created.id}`);
    expect(listed).not.toContain(created.token);
    expect(listed).not.toContain(created.token.slice(12));
    expect(listed).not.toContain('tokenHash');
    const [row] = await db.select().from(apiTokens).where(eq(apiTokens.id, created.id));
    expect(row!.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(12));
    // And the token works.
    expect((await call(created.token, 'GET', '/tags')).status).toBe(200);
  });

  test('scopes: read is GET only, write any method, admin routes need admin', async () => {
    const read = await newToken(a.admin, 'read');
    const write = await newToken(a.admin, 'write');
    const admin = await newToken(a.admin, 'admin');
    expect((await call(read.token, 'GET', '/tags')).status).toBe(200);
    const refused = await expectError(
      await call(read.token, 'POST', '/tags', { name: unique('tag') }),
      403,
      'ERR_API_TOKEN_SCOPE',
    );
    expect(refused.message).toContain('read');
    expect((await call(write.token, 'POST', '/tags', { name: unique('tag') })).status).toBe(201);
    // GET /api-tokens/company is an admin route: read and write tokens of an admin are refused on it.
    await expectError(await call(read.token, 'GET', '/api-tokens/company'), 403, 'ERR_API_TOKEN_SCOPE');
    expect((await call(write.token, 'GET', '/users/list')).status).toBe(200);
    await expectError(
      await call(write.token, 'POST', '/users', {
        name: 'x',
        email: `${unique('u')}@x.test`,
        password: 'User@123',
      }),
      403,
      'ERR_API_TOKEN_SCOPE',
    );
    expect((await call(admin.token, 'GET', '/api-tokens/company')).status).toBe(200);
    // A token never mints another one, whatever its scope.
    await expectError(
      await call(admin.token, 'POST', '/api-tokens', { name: 'again', scope: 'read' }),
      403,
      'ERR_API_TOKEN_SCOPE',
    );
  });

  test('revocation is immediate; expiry ends it; bad tokens are refused with their codes', async () => {
    const tok = await newToken(a.admin, 'read', { expiresInDays: 30 });
    const days = (Date.parse(tok.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    expect((await call(tok.token, 'GET', '/tags')).status).toBe(200);
    await db
      .update(apiTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiTokens.id, tok.id));
    await expectError(await call(tok.token, 'GET', '/tags'), 401, 'ERR_API_TOKEN_EXPIRED');

    const other = await newToken(a.admin, 'write');
    expect((await call(other.token, 'GET', '/tags')).status).toBe(200);
    expect((await t.as(a.admin).del(`/api-tokens/${other.id}`)).status).toBe(200);
    await expectError(await call(other.token, 'GET', '/tags'), 401, 'ERR_API_TOKEN_INVALID');
    // Gone from the list; revoking twice is a 404.
    const list = (await (await t.as(a.admin).get('/api-tokens')).json()) as { tokens: { id: number }[] };
    expect(list.tokens.map((x) => x.id)).not.toContain(other.id);
    await expectError(await t.as(a.admin).del(`/api-tokens/${other.id}`), 404, 'ERR_NO_API_TOKEN_FOUND');
    // A made-up token, and one with a character changed.
    await expectError(await call(`rec_pat_${'A'.repeat(43)}`, 'GET', '/tags'), 401, 'ERR_API_TOKEN_INVALID');
    const live = await newToken(a.admin, 'read');
    const changed = live.token.slice(0, -1) + (live.token.endsWith('A') ? 'B' : 'A');
    await expectError(await call(changed, 'GET', '/tags'), 401, 'ERR_API_TOKEN_INVALID');
    // Bad input is a 400, never a 500.
    await expectError(
      await t.as(a.admin).post('/api-tokens', { name: '', scope: 'root' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(a.admin).post('/api-tokens', { name: 'x', scope: 'read', expiresInDays: 0 }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('a new browser login does not end a token; deleting its user does', async () => {
    const user = await t.user(a.admin, 'user');
    const tok = await newToken(user, 'write');
    const again = await t.login(user.user.email, 'User@123');
    // The older browser session ended (one browser per user)...
    expect((await t.as(user).get('/tags')).status).toBe(401);
    // ...the token did not.
    expect((await call(tok.token, 'GET', '/tags')).status).toBe(200);
    expect((await t.as(again).get('/api-tokens')).status).toBe(200);
    expect((await t.as(a.admin).del(`/users/${user.user.id}`)).status).toBe(200);
    await expectError(await call(tok.token, 'GET', '/tags'), 401, 'ERR_API_TOKEN_INVALID');
  });

  test("a plain user's token sees only what the user sees and never reaches admin routes", async () => {
    const user = await t.user(a.admin, 'user');
    const [q1, q2] = await db
      .insert(queues)
      .values(['Mine', 'Theirs'].map((n, i) => ({ companyId: a.id, name: unique(n), color: `#0000${i}0` })))
      .returning();
    await db.insert(userQueues).values({ userId: user.user.id, queueId: q1!.id });
    await db.update(users).set({ showQueuelessTickets: false }).where(eq(users.id, user.user.id));
    const ticketIn = async (queueId: number) => {
      const [contact] = await db
        .insert(contacts)
        .values({
          companyId: a.id,
          name: unique('C '),
          number: `5511${String(Date.now()).slice(-9)}${queueId}`,
        })
        .returning();
      const [row] = await db
        .insert(tickets)
        .values({ companyId: a.id, contactId: contact!.id, queueId, status: 'pending' })
        .returning();
      return row!.id;
    };
    const mine = await ticketIn(q1!.id);
    const theirs = await ticketIn(q2!.id);
    const tok = await newToken(user, 'admin');
    expect((await call(tok.token, 'GET', `/tickets/${mine}`)).status).toBe(200);
    expect((await call(tok.token, 'GET', `/tickets/${theirs}`)).status).toBe(403);
    const list = (await (await call(tok.token, 'GET', '/tickets?status=pending&showAll=true')).json()) as {
      tickets: { id: number }[];
    };
    expect(list.tickets.map((x) => x.id)).toContain(mine);
    expect(list.tickets.map((x) => x.id)).not.toContain(theirs);
    // The admin scope gives the user's permissions, never an admin's.
    await expectError(await call(tok.token, 'DELETE', `/users/${a.admin.user.id}`), 403, 'ERR_NO_PERMISSION');
    await expectError(await call(tok.token, 'GET', '/api-tokens/company'), 403, 'ERR_NO_PERMISSION');
    // Nor may a plain user make a company token.
    await expectError(
      await t.as(user).post('/api-tokens/company', { name: 'c', scope: 'admin' }),
      403,
      'ERR_NO_PERMISSION',
    );
  });

  test("company tokens act as an admin of their company only; another company's token reads nothing of it", async () => {
    const tag = (await (await t.as(a.admin).post('/tags', { name: unique('tagA') })).json()) as {
      id: number;
    };
    const companyTok = await newToken(a.admin, 'admin', {}, true);
    const list = (await (await t.as(a.admin).get('/api-tokens/company')).json()) as {
      tokens: { id: number; kind: string }[];
    };
    expect(list.tokens.find((x) => x.id === companyTok.id)?.kind).toBe('company');
    // Not among the admin's own tokens.
    const own = (await (await t.as(a.admin).get('/api-tokens')).json()) as { tokens: { id: number }[] };
    expect(own.tokens.map((x) => x.id)).not.toContain(companyTok.id);
    // Admin routes of its company.
    expect((await call(companyTok.token, 'GET', '/api-tokens/company')).status).toBe(200);
    expect((await call(companyTok.token, 'GET', `/tags/${tag.id}`)).status).toBe(200);

    const bTok = await newToken(b.admin, 'admin', {}, true);
    const bUser = await newToken(b.admin, 'admin');
    for (const tok of [bTok, bUser]) {
      expect((await call(tok.token, 'GET', `/tags/${tag.id}`)).status).toBe(404);
      expect((await call(tok.token, 'PUT', `/tags/${tag.id}`, { name: 'stolen' })).status).toBe(404);
      expect((await call(tok.token, 'DELETE', `/tags/${tag.id}`)).status).toBe(404);
      // Nor revoke A's tokens.
      await expectError(
        await call(tok.token, 'DELETE', `/api-tokens/company/${companyTok.id}`),
        404,
        'ERR_NO_API_TOKEN_FOUND',
      );
    }
    const stillThere = await (await call(companyTok.token, 'GET', `/tags/${tag.id}`)).json();
    expect(stillThere.name).not.toBe('stolen');
    // Revoked by another admin of the company: ends at once.
    const admin2 = await t.user(a.admin, 'admin');
    expect((await t.as(admin2).del(`/api-tokens/company/${companyTok.id}`)).status).toBe(200);
    await expectError(await call(companyTok.token, 'GET', '/tags'), 401, 'ERR_API_TOKEN_INVALID');
  });

  test("an inactive company's tokens are refused, like its logins", async () => {
    const c = await t.company('TokensC');
    const tok = await newToken(c.admin, 'read');
    expect((await call(tok.token, 'GET', '/tags')).status).toBe(200);
    await db.update(companies).set({ status: false }).where(eq(companies.id, c.id));
    await expectError(await call(tok.token, 'GET', '/tags'), 403, 'ERR_COMPANY_INACTIVE');
  });

  test('a company token ends when the admin it acts through is no longer an admin', async () => {
    const admin2 = await t.user(a.admin, 'admin');
    const tok = await newToken(admin2, 'admin', {}, true);
    expect((await call(tok.token, 'GET', '/api-tokens/company')).status).toBe(200);
    await db.update(users).set({ profile: 'user' }).where(eq(users.id, admin2.user.id));
    await expectError(await call(tok.token, 'GET', '/tags'), 401, 'ERR_API_TOKEN_INVALID');
  });

  test('last use is written, at most once a minute', async () => {
    const tok = await newToken(a.admin, 'read');
    const lastUsed = async () =>
      (await db.select().from(apiTokens).where(eq(apiTokens.id, tok.id)))[0]!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await call(tok.token, 'GET', '/tags');
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await call(tok.token, 'GET', '/tags');
    expect((await lastUsed())!.getTime()).toBe(first!.getTime());
    const listed = (await (await t.as(a.admin).get('/api-tokens')).json()) as {
      tokens: { id: number; lastUsedAt: string | null }[];
    };
    expect(Date.parse(listed.tokens.find((x) => x.id === tok.id)!.lastUsedAt!)).toBe(first!.getTime());
    // A minute later the next call writes it again.
    await db
      .update(apiTokens)
      .set({ lastUsedAt: new Date(Date.now() - 61_000) })
      .where(eq(apiTokens.id, tok.id));
    await call(tok.token, 'GET', '/tags');
    expect(Date.now() - (await lastUsed())!.getTime()).toBeLessThan(5_000);
  });

  test('each token has its own rate limit (429 ERR_RATE_LIMITED)', async () => {
    const tok = await newToken(b.admin, 'read');
    const other = await newToken(b.admin, 'read');
    for (let i = 0; i < RATE; i++) expect((await call(tok.token, 'GET', '/tags')).status).toBe(200);
    const over = await call(tok.token, 'GET', '/tags');
    await expectError(over, 429, 'ERR_RATE_LIMITED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another token, and the user's browser session, are not held back.
    expect((await call(other.token, 'GET', '/tags')).status).toBe(200);
    expect((await t.as(b.admin).get('/tags')).status).toBe(200);
  });

  test('at most 20 active tokens per user', async () => {
    const user = await t.user(b.admin, 'user');
    for (let i = 0; i < 20; i++) await newToken(user, 'read');
    await expectError(
      await t.as(user).post('/api-tokens', { name: 'one more', scope: 'read' }),
      400,
      'ERR_API_TOKEN_LIMIT',
    );
  });

  test('a socket opened with a token closes when the token is revoked', async () => {
    const tok = await newToken(a.admin, 'read');
    const socket = await t.socket(tok.token);
    expect(socket.connected).toBe(true);
    const closed = nextEvent(socket, 'disconnect', 5000);
    expect((await t.as(a.admin).del(`/api-tokens/${tok.id}`)).status).toBe(200);
    await closed;
    // A revoked token cannot open another.
    await expect(t.socket(tok.token)).rejects.toThrow();
  });

  test('no token ever reaches the log', async () => {
    const tok = await newToken(a.admin, 'read');
    await call(tok.token, 'GET', '/tags');
    await call(tok.token, 'POST', '/tags', { name: 'x' });
    expect(logs).toContain('/api/tags');
    expect(logs).not.toContain(tok.token.slice(8));
  });
});
