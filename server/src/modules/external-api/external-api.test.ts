import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { apiSendKeys, whatsapps } from '../../db/schema/index.js';
import { expectError, testApp, waitFor, type Session } from '../../../test/helpers.js';
import { hashApiToken } from './api-token.js';

const t = await testApp({ env: { API_RATE_LIMIT: '40' } });
const db = t.database.db;

let seq = 0;
const newNumber = () =>
  `55119${String(60000000 + ++seq * 7919 + Math.floor(Math.random() * 1e5)).slice(0, 8)}`;

/** A company with a running simulator connection and its API token (revealed by the admin). */
async function setup(name: string, planId?: number) {
  const c = await t.company(name, planId ? { planId } : {});
  const res = await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' });
  expect(res.status, await res.clone().text()).toBe(201);
  const w = (await res.json()) as { id: number; token: string };
  await waitFor(async () => t.app.sessions.get(w.id));
  const revealed = await (await t.as(c.admin).get(`/whatsapp/${w.id}/token`)).json();
  return { ...c, whatsappId: w.id, listed: w.token, token: revealed.token as string };
}

const api = (token: string | undefined, method: string, path: string, body?: unknown) =>
  t.request(method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });

const phone = async (s: { admin: Session; whatsappId: number }, number: string) =>
  (await (await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${number}`)).json()) as {
    id: string;
    fromMe: boolean;
    body: string;
    mediaType: string | null;
    ack: number;
  }[];

const a = await setup('ApiA');
const b = await setup('ApiB');

describe('connection tokens', () => {
  test('made at creation, at least 32 characters, masked in lists, stored hashed and sealed', async () => {
    expect(a.token.length).toBeGreaterThanOrEqual(32);
    expect(a.listed).toBe('********');
    const [row] = await db.select().from(whatsapps).where(eq(whatsapps.id, a.whatsappId));
    expect(row!.apiTokenHash).toBe(hashApiToken(a.token));
    expect(row!.apiTokenSealed).not.toContain(a.token);
    expect(row!.token).toBe('');
    const list = await (await t.as(a.admin).get('/whatsapp')).json();
    expect(JSON.stringify(list)).not.toContain(a.token);
  });

  test('only admins reveal or regenerate; other companies get 404', async () => {
    const user = await t.user(a.admin, 'user');
    await expectError(await t.as(user).get(`/whatsapp/${a.whatsappId}/token`), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(user).post(`/whatsapp/${a.whatsappId}/token`), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(b.admin).get(`/whatsapp/${a.whatsappId}/token`), 404, 'ERR_NO_WAPP_FOUND');
    await expectError(await t.as(b.admin).post(`/whatsapp/${a.whatsappId}/token`), 404, 'ERR_NO_WAPP_FOUND');
  });

  test('a wrong, missing or replaced token is 401; the new one works', async () => {
    const s = await setup('ApiRegen');
    const number = newNumber();
    await expectError(
      await api(undefined, 'POST', '/messages/send', { number, body: 'x' }),
      401,
      'ERR_INVALID_API_TOKEN',
    );
    await expectError(
      await api('x'.repeat(43), 'POST', '/messages/send', { number, body: 'x' }),
      401,
      'ERR_INVALID_API_TOKEN',
    );
    // A user's session token is not a connection token.
    await expectError(
      await api(s.admin.token, 'POST', '/messages/send', { number, body: 'x' }),
      401,
      'ERR_INVALID_API_TOKEN',
    );
    const old = s.token;
    const fresh = await (await t.as(s.admin).post(`/whatsapp/${s.whatsappId}/token`)).json();
    expect(fresh.token).not.toBe(old);
    await expectError(
      await api(old, 'POST', '/messages/send', { number, body: 'x' }),
      401,
      'ERR_INVALID_API_TOKEN',
    );
    const ok = await api(fresh.token, 'POST', '/messages/send', { number, body: 'after regenerate' });
    expect(ok.status, await ok.clone().text()).toBe(201);
  });

  test('a token from before sealing (the migration hashed it) still works and shows as hidden', async () => {
    const s = await setup('ApiLegacy');
    const legacy = 'legacy-plain-token-of-an-old-connection-123';
    await db
      .update(whatsapps)
      .set({ apiTokenHash: hashApiToken(legacy), apiTokenSealed: null })
      .where(eq(whatsapps.id, s.whatsappId));
    const shown = await (await t.as(s.admin).get(`/whatsapp/${s.whatsappId}/token`)).json();
    expect(shown).toEqual({ token: null, hasToken: true });
    const res = await api(legacy, 'POST', '/messages/send', { number: newNumber(), body: 'legacy' });
    expect(res.status, await res.clone().text()).toBe(201);
  });
});

describe('POST /api/messages/send', () => {
  test('a text reaches the customer phone, on a new pending ticket, then the same ticket', async () => {
    const number = newNumber();
    const res = await api(a.token, 'POST', '/messages/send', {
      number,
      body: 'Seu pedido saiu para entrega',
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const sent = await res.json();
    expect(sent).toMatchObject({ duplicate: false, messageIds: [sent.messageId] });
    const seen = await waitFor(async () => (await phone(a, number)).find((m) => m.fromMe));
    expect(seen.body).toBe('Seu pedido saiu para entrega');
    const ticket = await (await t.as(a.admin).get(`/tickets/${sent.ticketId}`)).json();
    expect(ticket.status).toBe('pending');
    expect(ticket.contact.number).toBe(number);
    // Written differently, the same person: the same contact and the same active ticket.
    const formatted = `+${number.slice(0, 2)} (${number.slice(2, 4)}) ${number.slice(4, 9)}-${number.slice(9)}`;
    const again = await (
      await api(a.token, 'POST', '/messages/send', { number: formatted, body: 'segunda' })
    ).json();
    expect(again.ticketId).toBe(sent.ticketId);
    expect(again.contactId).toBe(sent.contactId);
  });

  test('multipart with several medias: each file arrives, the caption with the first', async () => {
    const number = newNumber();
    const form = new FormData();
    form.set('number', number);
    form.set('body', 'Segue o boleto');
    form.append(
      'medias',
      new Blob([Buffer.from('%PDF-1.4 test')], { type: 'application/pdf' }),
      'boleto.pdf',
    );
    form.append(
      'medias',
      new Blob([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])], { type: 'image/jpeg' }),
      'foto.jpg',
    );
    const res = await fetch(`${t.url}/api/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.token}` },
      body: form,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const sent = await res.json();
    expect(sent.messageIds).toHaveLength(2);
    const got = await waitFor(async () => {
      const c = (await phone(a, number)).filter((m) => m.fromMe);
      return c.length === 2 ? c : undefined;
    });
    expect(got.map((m) => m.mediaType)).toEqual(['application', 'image']);
    expect(got[0]!.body).toBe('Segue o boleto');
  });

  test('the same externalKey twice sends once and answers the first result', async () => {
    const number = newNumber();
    const body = { number, body: 'Pedido 123 confirmado', externalKey: 'order-123' };
    const first = await (await api(a.token, 'POST', '/messages/send', body)).json();
    const second = await api(a.token, 'POST', '/messages/send', body);
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual({ ...first, duplicate: true });
    await waitFor(async () => (await phone(a, number)).some((m) => m.fromMe));
    expect((await phone(a, number)).filter((m) => m.fromMe)).toHaveLength(1);
    // Keys are per connection: company B's same key is its own first call.
    const other = await (await api(b.token, 'POST', '/messages/send', body)).json();
    expect(other.duplicate).toBe(false);
    expect(other.messageId).not.toBe(first.messageId);
  });

  test('the same externalKey from several calls at once: one message, every call answered with it', async () => {
    const s = await setup('ApiRace');
    const number = newNumber();
    const body = { number, body: 'Pedido 77', externalKey: 'order-77' };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => api(s.token, 'POST', '/messages/send', body)),
    );
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const results = await Promise.all(answers.map((r) => r.json()));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => r.messageId)).size).toBe(1);
    await waitFor(async () => (await phone(s, number)).some((m) => m.fromMe));
    expect((await phone(s, number)).filter((m) => m.fromMe)).toHaveLength(1);
  });

  test('a claim a crash left incomplete: 409 while recent, then the next call sends only what is missing', async () => {
    const s = await setup('ApiResume');
    const number = newNumber();
    const files = ['a.pdf', 'b.pdf', 'c.pdf'];
    const sendFiles = (names: string[], externalKey: string) => {
      const form = new FormData();
      form.set('number', number);
      form.set('body', 'Documentos');
      form.set('externalKey', externalKey);
      for (const n of names)
        form.append('medias', new Blob([Buffer.from(`%PDF-1.4 ${n}`)], { type: 'application/pdf' }), n);
      return fetch(`${t.url}/api/messages/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}` },
        body: form,
      });
    };
    // What a crash after the second of three files leaves: the claim with two messages of three.
    const partial = await (await sendFiles(files.slice(0, 2), 'docs-1')).json();
    expect(partial.messageIds).toHaveLength(2);
    const claim = and(eq(apiSendKeys.whatsappId, s.whatsappId), eq(apiSendKeys.externalKey, 'docs-1'));
    await db.update(apiSendKeys).set({ parts: 3 }).where(claim);
    await expectError(await sendFiles(files, 'docs-1'), 409, 'ERR_EXTERNAL_KEY_IN_PROGRESS');
    // A minute without progress: the claim is taken over and only the third file goes.
    await db
      .update(apiSendKeys)
      .set({ updatedAt: sql`now() - interval '2 minutes'` })
      .where(claim);
    const resumed = await sendFiles(files, 'docs-1');
    expect(resumed.status, await resumed.clone().text()).toBe(201);
    const done = await resumed.json();
    expect(done).toMatchObject({ duplicate: false, ticketId: partial.ticketId });
    expect(done.messageIds.slice(0, 2)).toEqual(partial.messageIds);
    expect(done.messageIds).toHaveLength(3);
    const got = await waitFor(async () => {
      const c = (await phone(s, number)).filter((m) => m.fromMe);
      return c.length === 3 ? c : undefined;
    });
    expect(got.map((m) => m.body)).toEqual(['Documentos', '', '']);
    expect((await (await sendFiles(files, 'docs-1')).json()).messageIds).toEqual(done.messageIds);

    // A claim without any answer (left by the code before this one): taken over once stale, sent once.
    await db.insert(apiSendKeys).values({
      companyId: s.id,
      whatsappId: s.whatsappId,
      externalKey: 'old-1',
      updatedAt: new Date(Date.now() - 120_000),
    });
    const old = await api(s.token, 'POST', '/messages/send', {
      number,
      body: 'Antigo',
      externalKey: 'old-1',
    });
    expect(old.status, await old.clone().text()).toBe(201);
    expect((await old.json()).duplicate).toBe(false);
  });

  test('status of a sent message (ack), only within the company', async () => {
    const number = newNumber();
    const sent = await (await api(a.token, 'POST', '/messages/send', { number, body: 'ack?' })).json();
    await t.as(a.admin).post(`/simulator/${a.whatsappId}/read/${number}`);
    const status = await waitFor(async () => {
      const s = await (await api(a.token, 'GET', `/messages/status/${sent.messageId}`)).json();
      return s.ack === 3 ? s : undefined;
    });
    expect(status).toMatchObject({ id: sent.messageId, ticketId: sent.ticketId, fromMe: true, error: null });
    await expectError(await api(b.token, 'GET', `/messages/status/${sent.messageId}`), 404, 'ERR_NOT_FOUND');
  });

  test('company A token never sends through B nor reads B data', async () => {
    const number = newNumber();
    const bSent = await (await api(b.token, 'POST', '/messages/send', { number, body: 'from B' })).json();
    const aSent = await (await api(a.token, 'POST', '/messages/send', { number, body: 'from A' })).json();
    // Same number, two companies: two contacts, two tickets, each on its own connection.
    expect(aSent.contactId).not.toBe(bSent.contactId);
    expect(aSent.ticketId).not.toBe(bSent.ticketId);
    await expectError(await t.as(a.admin).get(`/tickets/${bSent.ticketId}`), 404, 'ERR_NO_TICKET_FOUND');
    expect((await phone(b, number)).map((m) => m.body)).toEqual(['from B']);
    await expectError(await api(a.token, 'GET', `/messages/status/${bSent.messageId}`), 404, 'ERR_NOT_FOUND');
    // A quoted message of B's ticket cannot be named from A.
    await expectError(
      await api(a.token, 'POST', '/messages/send', { number, body: 'q', quotedMsgId: bSent.messageId }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('without the plan flag useExternalApi: 403', async () => {
    const s = await setup('ApiBronze', 1);
    await expectError(
      await api(s.token, 'POST', '/messages/send', { number: newNumber(), body: 'x' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(
      await api(s.token, 'POST', '/contacts/check', { number: newNumber() }),
      403,
      'ERR_NO_PERMISSION',
    );
  });

  test('invalid number, disconnected connection, unsupported and oversized files: clear 4xx', async () => {
    await expectError(
      await api(a.token, 'POST', '/messages/send', { number: '12', body: 'x' }),
      400,
      'ERR_WAPP_INVALID_CONTACT',
    );
    await expectError(
      await api(a.token, 'POST', '/messages/send', { number: newNumber(), body: '  ' }),
      400,
      'ERR_VALIDATION',
    );
    const form = new FormData();
    form.set('number', newNumber());
    form.append('medias', new Blob([Buffer.from('MZ')], { type: 'x-weird/evil' }), 'a.exe');
    const bad = await fetch(`${t.url}/api/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.token}` },
      body: form,
    });
    await expectError(bad, 400, 'ERR_FILE_TYPE_NOT_ALLOWED');
    const big = new FormData();
    big.set('number', newNumber());
    big.append('medias', new Blob([Buffer.alloc(16 * 1024 * 1024 + 10)], { type: 'video/mp4' }), 'big.mp4');
    const tooBig = await fetch(`${t.url}/api/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.token}` },
      body: big,
    });
    await expectError(tooBig, 413, 'ERR_FILE_TOO_LARGE');
    const s = await setup('ApiDown');
    await t.as(s.admin).del(`/whatsappsession/${s.whatsappId}`);
    await waitFor(async () => {
      const [w] = await db.select().from(whatsapps).where(eq(whatsapps.id, s.whatsappId));
      return w?.status === 'DISCONNECTED';
    });
    await expectError(
      await api(s.token, 'POST', '/messages/send', { number: newNumber(), body: 'x' }),
      409,
      'ERR_WAPP_NOT_INITIALIZED',
    );
  });

  test('fuzzed bodies are 4xx, never 500', async () => {
    const bodies: unknown[] = [
      'not json',
      '[]',
      'null',
      { number: 5511999999999, body: 'x' },
      { number: ['x'], body: 'x' },
      { number: 'abc', body: 'x' },
      { number: '5511999999999', body: { $ne: 1 } },
      { number: '5511999999999', body: 'x', quotedMsgId: 'DROP TABLE' },
      { number: '5511999999999', body: 'x', quotedMsgId: 99999999999 },
      { number: '5511999999999', body: 'x', externalKey: '' },
      { number: '5511999999999', body: 'x', externalKey: 'k'.repeat(500) },
      { number: '5511999999999', body: 'x'.repeat(30000) },
      { number: '5511999999999', body: 'x', extra: true },
      { number: '\u0000\u0001', body: '\u0000' },
      { number: '+'.repeat(29), body: 'x' },
    ];
    for (const body of bodies) {
      const res = await t.request('POST', '/messages/send', {
        token: a.token,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, `${JSON.stringify(body)} → ${await res.clone().text()}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    for (const path of ['/messages/status/abc', '/messages/status/-1', '/messages/status/99999999999'])
      expect((await api(a.token, 'GET', path)).status).toBeLessThan(500);
    expect((await api(a.token, 'POST', '/contacts/check', { number: { a: 1 } })).status).toBe(400);
    expect((await api(a.token, 'POST', '/messages/schedule', { number: 'x', sendAt: 'never' })).status).toBe(
      400,
    );
  });
});

describe('schedule and check through the API', () => {
  test('POST /api/messages/schedule makes a pending schedule on this connection', async () => {
    const number = newNumber();
    const sendAt = new Date(Date.now() + 3600_000).toISOString();
    const res = await api(a.token, 'POST', '/messages/schedule', { number, body: 'Lembrete', sendAt });
    expect(res.status, await res.clone().text()).toBe(201);
    const s = await res.json();
    expect(s).toMatchObject({ status: 'PENDENTE', sendAt });
    const list = await (await t.as(a.admin).get(`/schedules?contactId=${s.contactId}`)).json();
    expect(list.schedules[0]).toMatchObject({ id: s.scheduleId, whatsappId: a.whatsappId, body: 'Lembrete' });
    const bList = await (await t.as(b.admin).get(`/schedules?contactId=${s.contactId}`)).json();
    expect(bList.schedules ?? []).toHaveLength(0);
  });

  test('POST /api/contacts/check asks the connection', async () => {
    const res = await api(a.token, 'POST', '/contacts/check', { number: newNumber() });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await res.json();
    expect(typeof body.exists).toBe('boolean');
  });
});

test('rate-limited per token (API_RATE_LIMIT a minute)', async () => {
  const s = await setup('ApiLimit');
  let limited: Response | undefined;
  for (let i = 0; i < 45 && !limited; i++) {
    const res = await api(s.token, 'GET', '/messages/status/1');
    if (res.status === 429) limited = res;
  }
  expect(limited, 'no 429 within 45 calls').toBeDefined();
  await expectError(limited!, 429, 'ERR_RATE_LIMITED');
  // Another token has its own budget.
  expect((await api(b.token, 'GET', '/messages/status/1')).status).toBe(404);
});
