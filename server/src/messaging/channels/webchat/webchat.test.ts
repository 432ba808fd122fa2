import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import { io as ioClient, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, test } from 'vitest';
import { contactIdentities, messages, tickets, widgetMessages } from '../../../db/schema/index.js';
import { expectError, nextEvent, testApp, waitFor, type Session } from '../../../../test/helpers.js';
import { WIDGET_LIMITS } from './webchat-service.js';

const t = await testApp();
const db = t.database.db;
const SHOP = 'http://shop.test:8080';
const a = await t.company('WidgetA');
const b = await t.company('WidgetB');

async function webchat(admin: Session, config: Record<string, unknown>) {
  const res = await t
    .as(admin)
    .post('/whatsapp', { name: `Site ${Math.random()}`, channel: 'webchat', channelConfig: config });
  expect(res.status, await res.clone().text()).toBe(201);
  const w = await res.json();
  await waitFor(
    async () => (await (await t.as(admin).get(`/whatsapp/${w.id}`)).json()).status === 'CONNECTED',
  );
  return { id: w.id as number, publicId: w.channelConfig.publicId as string };
}

const widgetA = await webchat(a.admin, {
  allowedOrigins: [SHOP],
  color: '#10b981',
  greeting: 'Olá!',
  title: 'Loja',
  position: 'left',
  preChatForm: true,
  preChatContact: 'email',
  consentText: 'Aceito a política de privacidade',
});
const widgetB = await webchat(b.admin, { allowedOrigins: ['http://other.test'] });

const api = (
  publicId: string,
  path: string,
  opts: { token?: string; body?: unknown; origin?: string } = {},
) =>
  t.request(opts.body === undefined ? 'GET' : 'POST', `/widget/${publicId}${path}`, {
    token: opts.token,
    body: opts.body,
    headers: { origin: opts.origin ?? SHOP },
  });

async function visitor(publicId: string, origin = SHOP, body: Record<string, unknown> = {}) {
  const res = await api(publicId, '/visitors', {
    origin,
    body: { name: 'Ana', email: 'ana@example.com', consent: true, pageUrl: `${origin}/produtos`, ...body },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { visitorId: string; visitorToken: string };
}

const sockets: Socket[] = [];
afterAll(() => sockets.forEach((s) => s.disconnect()));
function widgetSocket(publicId: string, visitorToken: string, origin = SHOP) {
  const s = ioClient(`${t.url}/widget`, {
    path: '/socket.io',
    transports: ['websocket'],
    query: { widget: publicId },
    auth: { publicId, visitorToken },
    extraHeaders: { origin },
    reconnection: false,
    forceNew: true,
  });
  sockets.push(s);
  return new Promise<Socket>((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', (err) => reject(err));
  });
}

const ticketOf = (visitorId: string) =>
  waitFor(async () => {
    const [row] = await db
      .select({ id: tickets.id, contactId: tickets.contactId, companyId: tickets.companyId })
      .from(tickets)
      .innerJoin(contactIdentities, eq(contactIdentities.contactId, tickets.contactId))
      .where(and(eq(contactIdentities.kind, 'webchat'), eq(contactIdentities.value, visitorId)));
    return row;
  });

/** The attendant takes the ticket (answering needs it). */
async function accept(admin: Session, ticketId: number) {
  const res = await t.as(admin).put(`/tickets/${ticketId}`, { status: 'open', userId: admin.user.id });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe('website chat widget', () => {
  test('the script is served to other sites, under 40 KB compressed', async () => {
    const res = await fetch(`${t.url}/widget.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const js = Buffer.from(await res.arrayBuffer());
    expect(js.toString()).toContain('data-widget');
    expect(js.toString()).not.toMatch(/\beval\(|new Function\(/);
    const gz = gzipSync(js, { level: 9 }).length;
    expect(gz).toBeLessThan(40 * 1024);
  });

  test('config: 404 for an unknown widget, 403 for a page not allowed, the looks for an allowed one', async () => {
    await expectError(await api('wc_doesnotexist000', '/config'), 404, 'ERR_NO_WAPP_FOUND');
    await expectError(await api(String(widgetA.id), '/config'), 404, 'ERR_NO_WAPP_FOUND');
    const refused = await api(widgetA.publicId, '/config', { origin: 'http://evil.test' });
    await expectError(refused, 403, 'ERR_NO_PERMISSION');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    // Refused before any data: no visitor is made from a foreign page.
    await expectError(
      await api(widgetA.publicId, '/visitors', { origin: 'http://evil.test', body: { name: 'x' } }),
      403,
      'ERR_NO_PERMISSION',
    );
    const ok = await api(widgetA.publicId, '/config');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
    const cfg = await ok.json();
    expect(cfg).toMatchObject({ color: '#10b981', greeting: 'Olá!', position: 'left', preChatForm: true });
    expect(cfg).not.toHaveProperty('allowedOrigins');
    const pre = await fetch(`${t.url}/api/widget/${widgetA.publicId}/messages`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  test('the pre-chat form is enforced, and a visitor gets a token stored hashed', async () => {
    await expectError(
      await api(widgetA.publicId, '/visitors', { body: { name: 'Ana' } }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await api(widgetA.publicId, '/visitors', { body: { name: 'Ana', email: 'a@b.co' } }),
      400,
      'ERR_VALIDATION',
    );
    const v = await visitor(widgetA.publicId);
    expect(v.visitorToken.length).toBeGreaterThan(30);
    const dump = JSON.stringify(await t.database.db.execute(`select * from widget_visitors`));
    expect(dump).not.toContain(v.visitorToken);
  });

  test('messages both ways, live, with read marks and typing; a reload keeps the conversation', async () => {
    const v = await visitor(widgetA.publicId);
    const vs = await widgetSocket(widgetA.publicId, v.visitorToken);
    const sent = (await vs.emitWithAck('widget:send', { body: 'Oi, o pedido 42 chegou?' })) as {
      ok: boolean;
      message: { id: string };
    };
    expect(sent.ok).toBe(true);
    const ticket = await ticketOf(v.visitorId);
    expect(ticket.companyId).toBe(a.id);
    const [inbound] = await waitFor(() =>
      db
        .select()
        .from(messages)
        .where(eq(messages.ticketId, ticket.id))
        .then((r) => (r.length ? r : undefined)),
    );
    expect(inbound).toMatchObject({
      body: 'Oi, o pedido 42 chegou?',
      fromMe: false,
      providerId: sent.message.id,
    });

    // The attendant sees the visitor typing in the ticket's room.
    const agent = await t.socket(a.admin.token);
    await agent.emitWithAck('joinChatBox', String(ticket.id));
    const typing = nextEvent<{ ticketId: number; typing: boolean }>(agent, `company-${a.id}-widgetTyping`);
    vs.emit('widget:typing', { typing: true });
    expect(await typing).toEqual({ ticketId: ticket.id, typing: true });

    // …and the visitor sees the attendant typing.
    const agentTyping = nextEvent<{ typing: boolean }>(vs, 'widget:typing');
    expect((await t.as(a.admin).post(`/tickets/${ticket.id}/widget-typing`, { typing: true })).status).toBe(
      200,
    );
    expect(await agentTyping).toEqual({ typing: true });
    // Not on another company's ticket.
    expect((await t.as(b.admin).post(`/tickets/${ticket.id}/widget-typing`, { typing: true })).status).toBe(
      404,
    );

    // The attendant reads: the visitor's message shows read.
    const read = nextEvent<{ ids: string[]; fromVisitor: boolean }>(vs, 'widget:read');
    expect((await t.as(a.admin).post(`/messages/${ticket.id}/read`)).status).toBeLessThan(300);
    expect(await read).toEqual({ ids: [sent.message.id], fromVisitor: true });

    // The attendant answers: live in the widget.
    await accept(a.admin, ticket.id);
    const reply = nextEvent<{ body: string; fromVisitor: boolean; id: string }>(vs, 'widget:message', 10_000);
    const res = await t.as(a.admin).post(`/messages/${ticket.id}`, { body: 'Chegou sim!' });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const got = await reply;
    expect(got).toMatchObject({ body: 'Chegou sim!', fromVisitor: false });

    // The visitor saw it: the ticket's message gets the read ack.
    await vs.emitWithAck('widget:seen');
    await waitFor(async () => {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.ticketId, ticket.id), eq(messages.fromMe, true)));
      return m && m.ack >= 3;
    });

    // A reload: the history comes back with the token.
    const history = await (await api(widgetA.publicId, '/messages', { token: v.visitorToken })).json();
    expect(history.map((m: { body: string; fromVisitor: boolean }) => [m.fromVisitor, m.body])).toEqual([
      [true, 'Oi, o pedido 42 chegou?'],
      [false, 'Chegou sim!'],
    ]);
    expect(history[0].read).toBe(true);
    expect(history[1].read).toBe(true);

    // The same message posted over HTTP (clients without sockets) lands in the same ticket.
    const http = await api(widgetA.publicId, '/messages', {
      token: v.visitorToken,
      body: { body: 'E a nota?' },
    });
    expect(http.status).toBe(201);
    await waitFor(
      async () => (await db.select().from(messages).where(eq(messages.ticketId, ticket.id))).length === 3,
    );
    expect((await ticketOf(v.visitorId)).id).toBe(ticket.id);
  });

  test('files both ways, with size and type limits', async () => {
    const v = await visitor(widgetA.publicId);
    const vs = await widgetSocket(widgetA.publicId, v.visitorToken);
    const upload = (name: string, type: string, data: Buffer, token = v.visitorToken) => {
      const form = new FormData();
      form.append('file', new Blob([data], { type }), name);
      return fetch(`${t.url}/api/widget/${widgetA.publicId}/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, origin: SHOP },
        body: form,
      });
    };
    await expectError(
      await upload('x.exe', 'application/x-msdownload', Buffer.from('MZ')),
      400,
      'ERR_FILE_TYPE_NOT_ALLOWED',
    );
    await expectError(
      await upload('big.pdf', 'application/pdf', Buffer.alloc(WIDGET_LIMITS.fileBytes + 1)),
      413,
      'ERR_FILE_TOO_LARGE',
    );
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const res = await upload('foto.png', 'image/png', png);
    expect(res.status, await res.clone().text()).toBe(201);
    const ticket = await ticketOf(v.visitorId);
    const [m] = await waitFor(() =>
      db
        .select()
        .from(messages)
        .where(eq(messages.ticketId, ticket.id))
        .then((r) => (r.length ? r : undefined)),
    );
    expect(m!.mediaType).toBe('image');

    // The attendant sends a file back: the widget gets it, and only its visitor can download it.
    await accept(a.admin, ticket.id);
    const form = new FormData();
    form.append(
      'medias',
      new Blob([Buffer.from('%PDF-1.4 recibo')], { type: 'application/pdf' }),
      'recibo.pdf',
    );
    const back = nextEvent<{ media: { url: string; filename: string } }>(vs, 'widget:message', 10_000);
    const sent = await fetch(`${t.url}/api/messages/${ticket.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.admin.token}` },
      body: form,
    });
    expect(sent.status, await sent.clone().text()).toBeLessThan(300);
    const file = await back;
    expect(file.media.filename).toBe('recibo.pdf');
    const dl = await fetch(`${t.url}${file.media.url}`, {
      headers: { authorization: `Bearer ${v.visitorToken}`, origin: SHOP },
    });
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).toString()).toBe('%PDF-1.4 recibo');
    const other = await visitor(widgetA.publicId);
    expect(
      (
        await fetch(`${t.url}${file.media.url}`, {
          headers: { authorization: `Bearer ${other.visitorToken}` },
        })
      ).status,
    ).toBe(404);
  });

  test('limits: message size 400, more than N a minute 429', async () => {
    const v = await visitor(widgetA.publicId);
    const long = await api(widgetA.publicId, '/messages', {
      token: v.visitorToken,
      body: { body: 'x'.repeat(WIDGET_LIMITS.messageChars + 1) },
    });
    await expectError(long, 400, 'ERR_VALIDATION');
    const vs = await widgetSocket(widgetA.publicId, v.visitorToken);
    for (let i = 0; i < WIDGET_LIMITS.perMinute; i++)
      expect(((await vs.emitWithAck('widget:send', { body: `m${i}` })) as { ok: boolean }).ok).toBe(true);
    expect(await vs.emitWithAck('widget:send', { body: 'one too many' })).toEqual({
      ok: false,
      error: 'ERR_RATE_LIMITED',
    });
    await expectError(
      await api(widgetA.publicId, '/messages', { token: v.visitorToken, body: { body: 'again' } }),
      429,
      'ERR_RATE_LIMITED',
    );
  });

  test("another widget's visitor cannot read the conversation or join its room; foreign origins are refused", async () => {
    const va = await visitor(widgetA.publicId);
    const vb = await visitor(widgetB.publicId, 'http://other.test');
    // B's token on A's widget: unknown visitor, over HTTP and the socket.
    await expectError(
      await api(widgetA.publicId, '/messages', { token: vb.visitorToken }),
      401,
      'ERR_SESSION_EXPIRED',
    );
    await expect(widgetSocket(widgetA.publicId, vb.visitorToken)).rejects.toMatchObject({
      data: { code: 'ERR_SESSION_EXPIRED' },
    });
    // A's token from a page not on A's list: refused at the handshake.
    await expect(widgetSocket(widgetA.publicId, va.visitorToken, 'http://evil.test')).rejects.toBeTruthy();
    // A's page cannot reach the app's main namespace with a user's token either.
    const main = ioClient(t.url, {
      path: '/socket.io',
      transports: ['websocket'],
      query: { widget: widgetA.publicId },
      auth: { token: a.admin.token },
      extraHeaders: { origin: SHOP },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(main);
    const refused = await new Promise<Error & { data?: { code?: string } }>((resolve) =>
      main.once('connect_error', resolve),
    );
    expect(refused.data?.code).toBe('ERR_ORIGIN_NOT_ALLOWED');

    // B's visitor, connected to its own widget, hears nothing of A's conversation.
    const sb = await widgetSocket(widgetB.publicId, vb.visitorToken, 'http://other.test');
    const heard: unknown[] = [];
    sb.onAny((...args) => heard.push(args));
    // Nothing a visitor sends joins another room: socket.io clients cannot join, and the server has no join.
    sb.emit('join', `widget-${widgetA.id}-${va.visitorId}`);
    const sa = await widgetSocket(widgetA.publicId, va.visitorToken);
    await sa.emitWithAck('widget:send', { body: 'segredo de A' });
    const ticket = await ticketOf(va.visitorId);
    await accept(a.admin, ticket.id);
    const reply = nextEvent(sa, 'widget:message', 10_000);
    await t.as(a.admin).post(`/messages/${ticket.id}`, { body: 'resposta só para A' });
    await reply;
    expect(heard).toEqual([]);
  });

  test('a second company cannot see, change or use the first one’s webchat connection', async () => {
    expect((await t.as(b.admin).get(`/whatsapp/${widgetA.id}`)).status).toBe(404);
    expect((await t.as(b.admin).put(`/whatsapp/${widgetA.id}`, { name: 'taken' })).status).toBe(404);
    const list = await (await t.as(b.admin).get('/whatsapp')).json();
    expect(JSON.stringify(list)).not.toContain(widgetA.publicId);
    // The public id stays what pages embed: an admin cannot change it.
    const upd = await t
      .as(a.admin)
      .put(`/whatsapp/${widgetA.id}`, { channelConfig: { publicId: 'wc_mine', color: '#000000' } });
    expect(upd.status).toBe(200);
    expect((await upd.json()).channelConfig).toMatchObject({ publicId: widgetA.publicId, color: '#000000' });
    await expectError(
      await t
        .as(a.admin)
        .put(`/whatsapp/${widgetA.id}`, { channelConfig: { allowedOrigins: ['not an origin'] } }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('a message taken while no process runs the connection is delivered once its channel starts (takeover)', async () => {
    const v = await visitor(widgetA.publicId);
    await t.app.sessions.stop();
    const res = await api(widgetA.publicId, '/messages', {
      token: v.visitorToken,
      body: { body: 'ninguém em casa?' },
    });
    expect(res.status).toBe(201);
    const [row] = await db.select().from(widgetMessages).where(eq(widgetMessages.visitorId, v.visitorId));
    expect(row!.delivered).toBe(false);
    await t.app.sessions.start();
    const ticket = await ticketOf(v.visitorId);
    const stored = await waitFor(() =>
      db
        .select()
        .from(messages)
        .where(eq(messages.ticketId, ticket.id))
        .then((r) => (r.length ? r : undefined)),
    );
    expect(stored.map((m) => m.body)).toEqual(['ninguém em casa?']);
    await waitFor(
      async () =>
        (await db.select().from(widgetMessages).where(eq(widgetMessages.visitorId, v.visitorId)))[0]!
          .delivered,
    );
  });

  test('offline: the form opens a ticket, and the reply goes by e-mail with a link back', async () => {
    const cfg = await (await api(widgetB.publicId, '/config', { origin: 'http://other.test' })).json();
    expect(cfg.online).toBe(false);
    const v = await visitor(widgetB.publicId, 'http://other.test', {
      offline: true,
      name: 'Bia',
      email: 'bia@example.com',
      message: 'Vocês abrem sábado?',
      pageUrl: 'http://other.test/contato',
    });
    const ticket = await ticketOf(v.visitorId);
    expect(ticket.companyId).toBe(b.id);
    await waitFor(
      async () => (await db.select().from(messages).where(eq(messages.ticketId, ticket.id))).length === 1,
    );
    await accept(b.admin, ticket.id);
    const res = await t.as(b.admin).post(`/messages/${ticket.id}`, { body: 'Abrimos das 9h às 13h.' });
    expect(res.status).toBeLessThan(300);
    const outbox = join(t.dataDir, 'outbox');
    const mail = await waitFor(async () => {
      const files = await readdir(outbox).catch(() => [] as string[]);
      const f = files.find((n) => n.includes('bia@example.com'));
      return f && readFile(join(outbox, f), 'utf8');
    });
    expect(mail).toContain('Abrimos das 9h às 13h.');
    expect(mail).toContain('http://other.test/contato');
    const stored = await db.select().from(widgetMessages).where(eq(widgetMessages.visitorId, v.visitorId));
    expect(stored.map((r) => r.fromVisitor)).toEqual([true, false]);
  });
});
