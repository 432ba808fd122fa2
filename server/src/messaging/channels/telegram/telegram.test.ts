import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  contactIdentities,
  messages,
  tickets,
  userRatings,
  ratingRequests,
  whatsapps,
} from '../../../db/schema/index.js';
import { secondProcess, testApp, waitFor, type Session, type TestApp } from '../../../../test/helpers.js';
import { startFakeTelegram, type FakeTelegram } from '../../../../test/fake-telegram.js';

/**
 * #34 Telegram (docs/channels.md "Telegram") against a local Bot API stand-in: the bot token checked and the
 * webhook set on start, updates in through the secret-checked webhook (stored once), replies out through the
 * outbox to the chat, another company kept out, a second process taking the connection over.
 */
const PUBLIC = 'https://recado.example';
let tg: FakeTelegram;
let t: TestApp;
let a: { id: number; admin: Session };
let b: { id: number; admin: Session };
let connectionId: number;
let updateId = 1;
let messageId = 1;

const db = () => t.database.db;

beforeAll(async () => {
  tg = await startFakeTelegram();
  t = await testApp({
    env: { TELEGRAM_API_URL: tg.url, PUBLIC_URL: PUBLIC },
    deps: { sessions: { leaseMs: 1500 } },
  });
  a = await t.company('TgA');
  b = await t.company('TgB');
});
afterAll(async () => {
  await t?.close();
  await tg?.close();
});

const secret = () => tg.webhooks.get(tg.token)!.secretToken;
const post = (payload: unknown, token: string | null = secret(), base = t.url, id = connectionId) =>
  fetch(`${base}/api/webhooks/telegram/${id}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token !== null ? { 'x-telegram-bot-api-secret-token': token } : {}),
    },
    body: JSON.stringify(payload),
  });
const update = (chatId: number, message: Record<string, unknown>) => ({
  update_id: updateId++,
  message: {
    message_id: messageId++,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chatId, type: 'private', first_name: 'Joana', last_name: 'Silva' },
    from: { id: chatId, is_bot: false, first_name: 'Joana', last_name: 'Silva' },
    ...message,
  },
});
const storedBody = (body: string) =>
  db()
    .select()
    .from(messages)
    .where(and(eq(messages.companyId, a.id), eq(messages.body, body)));

describe('Telegram connection', () => {
  test('created with a bot token: sealed, never answered; started: getMe, then the webhook with its secret', async () => {
    const res = await t.as(a.admin).post('/whatsapp', {
      name: 'Telegram',
      channel: 'telegram',
      channelConfig: { botToken: tg.token },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const text = await res.clone().text();
    expect(text).not.toContain(tg.token);
    connectionId = (await res.json()).id;
    await waitFor(async () => t.app.sessions.isRunningHere(connectionId));
    await waitFor(async () => {
      const [w] = await db().select().from(whatsapps).where(eq(whatsapps.id, connectionId));
      return w?.status === 'CONNECTED';
    });
    const hook = tg.webhooks.get(tg.token);
    expect(hook?.url).toBe(`${PUBLIC}/api/webhooks/telegram/${connectionId}`);
    expect(hook?.secretToken).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
    expect(tg.calls.map((c) => c.method).slice(0, 2)).toEqual(['getMe', 'setWebhook']);
    // Stored sealed: neither the token nor the webhook secret in clear.
    const [row] = await db().select().from(whatsapps).where(eq(whatsapps.id, connectionId));
    expect(JSON.stringify(row!.channelConfig)).not.toContain(tg.token);
    expect(JSON.stringify(row!.channelConfig)).not.toContain(hook!.secretToken);
    const listed = await (await t.as(a.admin).get(`/whatsapp/${connectionId}`)).text();
    expect(listed).not.toContain(tg.token);
    expect(listed).not.toContain(hook!.secretToken);
    expect(JSON.parse(listed).channelConfig.botTokenSealed).toBe('********');
  });

  test('a bad token: the connection shows DISCONNECTED with the reason', async () => {
    const res = await t.as(a.admin).post('/whatsapp', {
      name: 'Telegram wrong',
      channel: 'telegram',
      channelConfig: { botToken: '987654321:AAWrongTokenWrongTokenWrongToken00' },
    });
    expect(res.status).toBe(201);
    const id = (await res.json()).id;
    const w = await waitFor(async () => {
      const r = await (await t.as(a.admin).get(`/whatsapp/${id}`)).json();
      return r.status === 'DISCONNECTED' && r.statusReason ? r : undefined;
    });
    expect(w.statusReason.reason).toBe('token_rejected');
    expect(JSON.stringify(w)).not.toContain('AAWrongToken');
    // A malformed token is refused at once.
    const bad = await t.as(a.admin).post('/whatsapp', {
      name: 'Telegram malformed',
      channel: 'telegram',
      channelConfig: { botToken: 'not a token' },
    });
    expect(bad.status).toBe(400);
  });

  test('inbound text opens a ticket for the chat’s identity; a redelivery is stored once', async () => {
    const u = update(5550001, { text: 'Oi, pelo Telegram' });
    const res = await post(u);
    expect(res.status, await res.clone().text()).toBe(200);
    const [m] = await storedBody('Oi, pelo Telegram');
    expect(m).toBeDefined();
    expect(m!.providerId).toBe(`5550001:${u.message.message_id}`);
    expect((await post(u)).status).toBe(200);
    expect(await storedBody('Oi, pelo Telegram')).toHaveLength(1);
    const [identity] = await db()
      .select()
      .from(contactIdentities)
      .where(and(eq(contactIdentities.companyId, a.id), eq(contactIdentities.value, '5550001')));
    expect(identity).toMatchObject({ kind: 'telegram', contactId: m!.contactId });
    const contact = await (await t.as(a.admin).get(`/contacts/${m!.contactId}`)).json();
    expect(contact).toMatchObject({ name: 'Joana Silva', number: '' });
    expect(contact.identities).toEqual([{ kind: 'telegram', value: '5550001' }]);
  });

  test('a wrong or missing secret: 401 and nothing stored', async () => {
    expect((await post(update(5550002, { text: 'segredo errado' }), 'nope')).status).toBe(401);
    expect((await post(update(5550002, { text: 'sem segredo' }), null)).status).toBe(401);
    expect(await storedBody('segredo errado')).toHaveLength(0);
    expect(await storedBody('sem segredo')).toHaveLength(0);
    // Another connection's id with this one's secret: not its secret.
    expect((await post(update(5550002, { text: 'x' }), secret(), t.url, 2147483647)).status).toBe(404);
  });

  test('inbound media is fetched with getFile and kept in the media store', async () => {
    const photo = Buffer.from('\xff\xd8\xff fake jpeg bytes', 'latin1');
    const fileId = tg.addFile(photo, 'photos/file_7.jpg');
    const res = await post(
      update(5550003, {
        caption: 'a foto do pedido',
        photo: [
          { file_id: 'small', file_unique_id: 's', width: 90, height: 90 },
          { file_id: fileId, file_unique_id: 'big', width: 800, height: 800 },
        ],
      }),
    );
    expect(res.status).toBe(200);
    const [m] = await storedBody('a foto do pedido');
    expect(m).toMatchObject({ mediaType: 'image', mediaName: 'file_7.jpg' });
    expect(await t.app.services.media.read(m!.mediaUrl!)).toEqual(photo);
    const voice = tg.addFile(Buffer.from('OggS voice'), 'voice/file_8.oga');
    expect(
      (await post(update(5550003, { voice: { file_id: voice, duration: 2, mime_type: 'audio/ogg' } })))
        .status,
    ).toBe(200);
    const sticker = tg.addFile(Buffer.from('RIFF webp'), 'stickers/file_9.webp');
    expect((await post(update(5550003, { sticker: { file_id: sticker, emoji: '👍' } }))).status).toBe(200);
    const kinds = await db()
      .select({ mediaType: messages.mediaType, mediaName: messages.mediaName })
      .from(messages)
      .where(eq(messages.ticketId, m!.ticketId));
    expect(kinds).toEqual(
      expect.arrayContaining([
        { mediaType: 'audio', mediaName: 'file_8.oga' },
        { mediaType: 'image', mediaName: 'file_9.webp' },
      ]),
    );
  });

  test('an edited message edits the stored one; groups make no ticket (the connection’s default)', async () => {
    const u = update(5550004, { text: 'primeira versão' });
    await post(u);
    const edit = {
      update_id: updateId++,
      edited_message: { ...u.message, text: 'segunda versão', edit_date: Math.floor(Date.now() / 1000) },
    };
    expect((await post(edit)).status).toBe(200);
    const [m] = await storedBody('segunda versão');
    expect(m).toMatchObject({ isEdited: true, providerId: `5550004:${u.message.message_id}` });
    const group = {
      update_id: updateId++,
      message: {
        message_id: messageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: -100200300, type: 'supergroup', title: 'Grupo' },
        from: { id: 5550005, first_name: 'Zé' },
        text: 'mensagem de grupo',
      },
    };
    expect((await post(group)).status).toBe(200);
    expect(await storedBody('mensagem de grupo')).toHaveLength(0);
    // A connection whose groups open tickets: one ticket for the group, each message naming who wrote.
    await db().update(whatsapps).set({ groupMode: 'tickets' }).where(eq(whatsapps.id, connectionId));
    const again = {
      ...group,
      update_id: updateId++,
      message: { ...group.message, message_id: messageId++, text: 'grupo com tickets' },
    };
    expect((await post(again)).status).toBe(200);
    const [g] = await storedBody('grupo com tickets');
    expect(g).toMatchObject({ data: expect.objectContaining({ participantName: 'Zé' }) });
    const [gt] = await db().select().from(tickets).where(eq(tickets.id, g!.ticketId));
    expect(gt!.isGroup).toBe(true);
    const gc = await (await t.as(a.admin).get(`/contacts/${g!.contactId}`)).json();
    expect(gc).toMatchObject({
      name: 'Grupo',
      isGroup: true,
      identities: [{ kind: 'telegram', value: '-100200300' }],
    });
    await db().update(whatsapps).set({ groupMode: 'ignore' }).where(eq(whatsapps.id, connectionId));
  });

  test('a reply goes through the outbox to the chat: text quoting the customer, and a file', async () => {
    const u = update(5550006, { text: 'quero ajuda' });
    await post(u);
    const [m] = await storedBody('quero ajuda');
    await db()
      .update(tickets)
      .set({ status: 'open', userId: a.admin.user.id })
      .where(eq(tickets.id, m!.ticketId));
    const res = await t.as(a.admin).post(`/messages/${m!.ticketId}`, {
      body: 'Claro, como posso ajudar?',
      quotedMsg: { id: m!.id },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = await waitFor(() => tg.sent.find((s) => s.text?.includes('como posso ajudar')));
    expect(sent.chatId).toBe('5550006');
    const call = tg.calls.find(
      (c) => c.method === 'sendMessage' && String(c.body.text).includes('como posso'),
    );
    expect(call?.body.reply_parameters).toMatchObject({ message_id: u.message.message_id });
    // The stored reply takes Telegram's id (chat:message) once sent.
    await waitFor(async () => {
      const [r] = await storedBody(sent.text!);
      return r?.providerId === `5550006:${sent.messageId}` && r.ack >= 1;
    });

    // Over Telegram's 4,096 characters: several messages, nothing cut.
    const long = `${'a'.repeat(4000)}\n${'b'.repeat(1500)}`;
    expect((await t.as(a.admin).post(`/messages/${m!.ticketId}`, { body: long })).status).toBe(200);
    await waitFor(() => tg.sent.some((s) => s.chatId === '5550006' && s.text === 'b'.repeat(1500)));
    expect(tg.sent.some((s) => s.chatId === '5550006' && s.text === 'a'.repeat(4000))).toBe(true);

    const form = new FormData();
    form.append('body', 'o boleto');
    form.append(
      'medias',
      new Blob([Buffer.from('%PDF-1.4 boleto')], { type: 'application/pdf' }),
      'boleto.pdf',
    );
    const up = await fetch(`${t.url}/api/messages/${m!.ticketId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.admin.token}` },
      body: form,
    });
    expect(up.status, await up.clone().text()).toBe(200);
    const doc = await waitFor(() =>
      tg.sent.find((s) => s.method === 'sendDocument' && s.chatId === '5550006'),
    );
    expect(doc.file?.name).toBe('boleto.pdf');
    expect(doc.file?.data.toString()).toBe('%PDF-1.4 boleto');
  });

  test('a rating question is answered from Telegram: the rating stored, no new ticket', async () => {
    expect((await t.as(a.admin).put('/settings/userRating', { value: 'enabled' })).status).toBe(200);
    const [m] = await storedBody('quero ajuda');
    const res = await t.as(a.admin).put(`/tickets/${m!.ticketId}`, { status: 'closed' });
    expect(res.status, await res.clone().text()).toBe(200);
    await waitFor(() => tg.sent.some((s) => s.chatId === '5550006' && /\*1\* a \*3\*/.test(s.text ?? '')));
    expect(
      (await db().select().from(ratingRequests).where(eq(ratingRequests.ticketId, m!.ticketId)))[0],
    ).toMatchObject({
      status: 'waiting',
    });
    expect((await post(update(5550006, { text: '3' }))).status).toBe(200);
    const [rating] = await waitFor(async () => {
      const r = await db().select().from(userRatings).where(eq(userRatings.ticketId, m!.ticketId));
      return r.length ? r : undefined;
    });
    expect(rating).toMatchObject({ rate: 3, userId: a.admin.user.id });
    const open = await db()
      .select()
      .from(tickets)
      .where(and(eq(tickets.contactId, m!.contactId!), eq(tickets.status, 'pending')));
    expect(open).toHaveLength(0);
    expect((await t.as(a.admin).put('/settings/userRating', { value: 'disabled' })).status).toBe(200);
  });

  test('another company cannot see, change or write through the connection and its tickets', async () => {
    const [m] = await storedBody('quero ajuda');
    const other = t.as(b.admin);
    expect((await other.get(`/whatsapp/${connectionId}`)).status).toBe(404);
    expect((await other.put(`/whatsapp/${connectionId}`, { name: 'roubada' })).status).toBe(404);
    expect((await other.del(`/whatsapp/${connectionId}`)).status).toBe(404);
    expect((await other.get(`/tickets/${m!.ticketId}`)).status).toBe(404);
    expect((await other.get(`/contacts/${m!.contactId}`)).status).toBe(404);
    expect((await other.post(`/messages/${m!.ticketId}`, { body: 'intruso' })).status).toBeGreaterThanOrEqual(
      403,
    );
    const list = await (await other.get('/whatsapp')).text();
    expect(list).not.toContain(`"id":${connectionId},`);
    expect(tg.sent.find((s) => s.text === 'intruso')).toBeUndefined();
  });

  test('a second process takes the connection over when the first dies: webhook set again, updates stored there', async () => {
    const second = await secondProcess(
      t,
      { sessions: { processId: 'tg-proc-B', leaseMs: 1500 } },
      { ownPool: true },
    );
    try {
      const before = tg.calls.filter((c) => c.method === 'setWebhook').length;
      await t.app.sessions.crash();
      await waitFor(async () => second.app.sessions.isRunningHere(connectionId), 20_000);
      await waitFor(() => tg.calls.filter((c) => c.method === 'setWebhook').length > before);
      expect(tg.webhooks.get(tg.token)?.url).toBe(`${PUBLIC}/api/webhooks/telegram/${connectionId}`);
      const u = update(5550007, { text: 'depois da troca de processo' });
      expect((await post(u, secret(), second.url)).status).toBe(200);
      expect(await storedBody('depois da troca de processo')).toHaveLength(1);
      expect((await post(u, secret(), second.url)).status).toBe(200);
      expect(await storedBody('depois da troca de processo')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
