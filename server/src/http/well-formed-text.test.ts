import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiSendKeys, chatMessages, schedules, tags } from '../db/schema/index.js';
import { expectError, testApp, waitFor } from '../../test/helpers.js';
import { malformedTextPath } from './well-formed-text.js';

// docs/security.md "Text input": one rule for every route — a lone UTF-16 surrogate in a body, query or
// path is a 400 ERR_VALIDATION naming the field, never stored as U+FFFD (where two different keys collide).
const t = await testApp();
const db = t.database.db;

const c = await t.company('Surrogates');
const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
await waitFor(async () => t.app.sessions.get(w.id));
const { token } = await (await t.as(c.admin).get(`/whatsapp/${w.id}/token`)).json();
const number = '5511977776666';
const contact = await (await t.as(c.admin).post('/contacts', { name: 'Cliente', number })).json();
const colleague = await t.user(c.admin, 'user');

const expectMalformed = async (res: Response, field: string) => {
  const body = await expectError(res, 400, 'ERR_VALIDATION');
  expect(body.fields).toEqual([{ path: field, message: expect.stringContaining('surrogate') }]);
};

describe('lone surrogates', () => {
  test('externalKeys "\\ud800" and "\\ud83d" are refused, so they never collide; a whole emoji is a key', async () => {
    for (const externalKey of ['\ud800', '\ud83d', 'pedido-\udc00'])
      await expectMalformed(
        await t.request('POST', '/messages/send', { token, body: { number, body: 'Oi', externalKey } }),
        'externalKey',
      );
    expect(await db.select().from(apiSendKeys).where(eq(apiSendKeys.whatsappId, w.id))).toEqual([]);
    const a = await t.request('POST', '/messages/send', {
      token,
      body: { number, body: 'A', externalKey: '😀' },
    });
    const b = await t.request('POST', '/messages/send', {
      token,
      body: { number, body: 'B', externalKey: '😃' },
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect([(await a.json()).duplicate, (await b.json()).duplicate]).toEqual([false, false]);
  });

  test('chat messages, schedules, tags and contacts refuse them; nothing is stored', async () => {
    const chat = await (
      await t.as(c.admin).post('/chats', { title: 'Equipe', users: [{ id: colleague.user.id }] })
    ).json();
    await expectMalformed(
      await t.as(c.admin).post(`/chats/${chat.id}/messages`, { message: 'meia \ud83d carinha' }),
      'message',
    );
    expect(await db.select().from(chatMessages).where(eq(chatMessages.chatId, chat.id))).toEqual([]);
    await expectMalformed(
      await t.as(c.admin).post('/schedules', {
        body: 'lembrete \udc00',
        contactId: contact.id,
        sendAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
      'body',
    );
    expect(await db.select().from(schedules).where(eq(schedules.companyId, c.id))).toEqual([]);
    await expectMalformed(await t.as(c.admin).post('/tags', { name: 'VIP \ud800' }), 'name');
    expect(await db.select().from(tags).where(eq(tags.companyId, c.id))).toEqual([]);
    await expectMalformed(
      await t
        .as(c.admin)
        .put(`/contacts/${contact.id}`, { name: 'x', extraInfo: [{ name: '\ud800', value: 'v' }] }),
      'extraInfo.0.name',
    );
    // Sign-in, before any session: the same rule.
    await expectMalformed(
      await t.request('POST', '/auth/login', { body: { email: 'a\ud800@b.c', password: 'x' } }),
      'email',
    );
  });

  test("the simulator's customer side keeps them (cleaned to U+FFFD where stored: no customer message lost)", async () => {
    const res = await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, body: 'meio \ud83d' });
    expect(res.status, await res.clone().text()).toBe(202);
  });

  test('the walk finds keys and values at any depth, and passes whole emoji', () => {
    expect(malformedTextPath({ a: [{ b: 'ok 😀' }, { c: 'x\udbff' }] })).toEqual(['a', '1', 'c']);
    expect(malformedTextPath({ ['\udfff']: 1 })).toEqual(['\udfff']);
    expect(malformedTextPath({ a: '👍🏽', b: ['🇧🇷'] })).toBeUndefined();
  });
});
