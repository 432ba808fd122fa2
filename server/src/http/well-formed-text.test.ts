import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiSendKeys, chatMessages, schedules, tags } from '../db/schema/index.js';
import { expectError, testApp, waitFor } from '../../test/helpers.js';
import { malformedTextPath, refuseMalformedBody } from './well-formed-text.js';

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

  test('a JSON body whose bytes are not UTF-8 is refused too, never decoded to U+FFFD (where keys collide)', async () => {
    const raw = (path: string, auth: string, head: string, bytes: number[], tail: string) =>
      fetch(`${t.url}/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json; charset=utf-8' },
        body: Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]),
      });
    // "\ud800" and "\ud83d" written as bytes (CESU-8), and two different stray bytes: each pair would have
    // become the same U+FFFD text, so the second send answered duplicate and sent nothing.
    const head = `{"number":"${number}","body":"bytes","externalKey":"k-`;
    for (const bytes of [[0xed, 0xa0, 0x80], [0xed, 0xa0, 0xbd], [0xff], [0xfe], [0xf0, 0x9f, 0x98]]) {
      const body = await expectError(
        await raw('/messages/send', token, head, bytes, '"}'),
        400,
        'ERR_VALIDATION',
      );
      expect(body.fields).toEqual([{ path: 'body', message: expect.stringContaining('UTF-8') }]);
    }
    const keys = await db.select().from(apiSendKeys).where(eq(apiSendKeys.whatsappId, w.id));
    expect(keys.filter((k) => k.externalKey.startsWith('k-'))).toEqual([]);
    // A signed-in route: the same.
    await expectError(
      await raw('/tags', c.admin.token, '{"name":"VIP ', [0xed, 0xb0, 0x80], '"}'),
      400,
      'ERR_VALIDATION',
    );
    expect(await db.select().from(tags).where(eq(tags.companyId, c.id))).toEqual([]);
    // Well-formed UTF-8 passes.
    const ok = await raw('/tags', c.admin.token, '{"name":"Cliente ', [...Buffer.from('😀')], '"}');
    expect(ok.status, await ok.clone().text()).toBe(201);
    expect((await ok.json()).name).toBe('Cliente 😀');
  });

  test('the byte check streams: a character split between chunks passes, one cut at the end does not', async () => {
    const read = async (chunks: Buffer[], contentType = 'application/json') => {
      const req = { routeOptions: { config: {} }, headers: { 'content-type': contentType } };
      const out = await refuseMalformedBody(
        req as unknown as FastifyRequest,
        {} as FastifyReply,
        Readable.from(chunks) as unknown as RequestPayload,
      );
      const got: Buffer[] = [];
      for await (const chunk of out) got.push(chunk as Buffer);
      return Buffer.concat(got).toString();
    };
    const emoji = Buffer.from('😀');
    const whole = [Buffer.from('"a'), emoji.subarray(0, 1), emoji.subarray(1), Buffer.from('"')];
    expect(await read(whole)).toBe('"a😀"');
    await expect(read([Buffer.from('"a'), emoji.subarray(0, 3)])).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
      statusCode: 400,
    });
    await expect(read([Buffer.from([0x22, 0xff, 0x22])], 'text/plain')).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
    });
    // Bodies not decoded as text (files, forms) are not its business.
    expect(await read([Buffer.from([0xff])], 'application/octet-stream')).toBe('\ufffd');
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
