import { afterAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { contacts, pushSubscriptions, queues, tickets, userQueues, users } from '../../db/schema/index.js';
import { expectError, testApp, waitFor, type Session } from '../../../test/helpers.js';
import { browserKeys, pushEndpoint, verifyVapid, type ReceivedPush } from '../../../test/push-endpoint.js';

/**
 * Web Push (docs/push.md): subscriptions per user, pushes encrypted (aes128gcm) and signed (VAPID) to a
 * local push service double, recipients by the visibility rule, 404/410 removing a subscription.
 */
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' } });
const db = t.database.db;
const service = await pushEndpoint();
afterAll(() => service.close());

/** A browser of `s` subscribed at a path of the push service double. */
async function browser(s: Session, path: string) {
  const keys = browserKeys();
  const endpoint = `${service.base}${path}`;
  const res = await t.as(s).post('/push/subscriptions', { endpoint, keys: keys.keys });
  expect(res.status, await res.clone().text()).toBe(201);
  const pushes = () => service.received.filter((r) => r.path === path);
  const read = (r: ReceivedPush) =>
    JSON.parse(keys.decrypt(r.body)) as { title: string; body: string; url: string; tag?: string };
  return { endpoint, pushes, read, keys };
}

const settle = () => new Promise((r) => setTimeout(r, 1500));

describe('web push', () => {
  test('the public key, subscribe, status, unsubscribe; bad input refused', async () => {
    const c = await t.company('PushSub');
    const api = t.as(c.admin);
    expect(await (await api.get('/push/public-key')).json()).toEqual({
      publicKey: t.config.vapid!.publicKey,
    });
    expect(t.config.vapid!.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const keys = browserKeys().keys;
    for (const body of [
      {},
      { endpoint: 'not a url', keys },
      { endpoint: `${service.base}/x` },
      { endpoint: `${service.base}/x`, keys: { p256dh: '', auth: 'a' } },
    ])
      await expectError(await api.post('/push/subscriptions', body), 400, 'ERR_VALIDATION');
    await expectError(
      await api.post('/push/subscriptions', { endpoint: 'ftp://push.example.com/x', keys }),
      400,
      'ERR_URL_NOT_ALLOWED',
    );
    await expectError(
      await api.post('/push/subscriptions', { endpoint: 'http://169.254.169.254/latest', keys }),
      400,
      'ERR_URL_NOT_ALLOWED',
    );
    const b = await browser(c.admin, '/sub-status');
    expect(await (await api.post('/push/subscriptions/status', { endpoint: b.endpoint })).json()).toEqual({
      subscribed: true,
    });
    // Subscribing again is no duplicate.
    await api.post('/push/subscriptions', { endpoint: b.endpoint, keys: b.keys.keys });
    expect(
      await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, b.endpoint)),
    ).toHaveLength(1);
    // Another company's user cannot remove it.
    const other = await t.company('PushSubOther');
    await t.as(other.admin).post('/push/unsubscribe', { endpoint: b.endpoint });
    expect(await (await api.post('/push/subscriptions/status', { endpoint: b.endpoint })).json()).toEqual({
      subscribed: true,
    });
    expect(
      await (await t.as(other.admin).post('/push/subscriptions/status', { endpoint: b.endpoint })).json(),
    ).toEqual({ subscribed: false });
    expect(await (await api.post('/push/unsubscribe', { endpoint: b.endpoint })).json()).toEqual({
      subscribed: false,
    });
    expect(
      await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, b.endpoint)),
    ).toHaveLength(0);
    expect(
      (await t.request('POST', '/push/subscriptions', { body: { endpoint: b.endpoint, keys } })).status,
    ).toBe(401);
  });

  test('posting another user’s endpoint takes nothing over: the owner keeps its row and its pushes (#28.7)', async () => {
    const victim = await t.company('PushVictim');
    const attacker = await t.company('PushAttacker');
    const colleague = await t.user(victim.admin, 'user');
    const b = await browser(victim.admin, '/victim-browser');
    const stolen = browserKeys().keys;
    // Another company's admin, then a colleague of the same company, post the victim's endpoint.
    for (const s of [attacker.admin, colleague]) {
      const res = await t.as(s).post('/push/subscriptions', { endpoint: b.endpoint, keys: stolen });
      expect(res.status).toBe(201);
    }
    const rows = await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, b.endpoint));
    const owned = rows.find((r) => r.userId === victim.admin.user.id);
    expect(owned).toMatchObject({ companyId: victim.id, p256dh: b.keys.keys.p256dh, auth: b.keys.keys.auth });
    expect(rows).toHaveLength(3);
    expect(
      await (await t.as(victim.admin).post('/push/subscriptions/status', { endpoint: b.endpoint })).json(),
    ).toEqual({ subscribed: true });
    // The victim's pushes still reach the victim's browser, encrypted with its own keys.
    await t.app.services.push.notifyUsers(victim.id, [victim.admin.user.id], {
      title: 'Ainda meu',
      body: 'x',
      url: '/tickets',
    });
    const [push] = await waitFor(() => (b.pushes().length ? b.pushes() : null));
    expect(b.read(push!).title).toBe('Ainda meu');
    // The attacker leaving removes only its own row.
    await t.as(attacker.admin).post('/push/unsubscribe', { endpoint: b.endpoint });
    expect(
      await db
        .select()
        .from(pushSubscriptions)
        .where(
          and(eq(pushSubscriptions.endpoint, b.endpoint), eq(pushSubscriptions.userId, victim.admin.user.id)),
        ),
    ).toHaveLength(1);
  });

  test('notifyUsers: an encrypted aes128gcm payload with a VAPID signature, to those users only', async () => {
    const c = await t.company('PushNotify');
    const one = await t.user(c.admin, 'user');
    const other = await t.company('PushNotifyOther');
    const mine = await browser(one, '/notify-one');
    const admin = await browser(c.admin, '/notify-admin');
    const foreign = await browser(other.admin, '/notify-foreign');
    await t.app.services.push.notifyUsers(c.id, [one.user.id, other.admin.user.id], {
      title: 'Olá',
      body: 'Mensagem de teste ção',
      url: '/chats/7',
      tag: 'chat-7',
    });
    const [push] = await waitFor(() => (mine.pushes().length ? mine.pushes() : null));
    expect(push!.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(push!.headers.ttl)).toBeGreaterThan(0);
    const claims = await verifyVapid(
      push!.headers.authorization as string,
      t.config.vapid!.publicKey,
      service.base,
    );
    expect(claims.sub).toMatch(/^mailto:|^https:/);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    // The plaintext is nowhere in the body; the browser's keys decrypt it.
    expect(push!.body.includes(Buffer.from('Mensagem'))).toBe(false);
    expect(mine.read(push!)).toEqual({
      title: 'Olá',
      body: 'Mensagem de teste ção',
      url: '/chats/7',
      tag: 'chat-7',
    });
    await settle();
    // Another company's user is never reached through this company, nor an admin not named.
    expect(foreign.pushes()).toHaveLength(0);
    expect(admin.pushes()).toHaveLength(0);
  });

  test('404 or 410 from the push service removes the subscription', async () => {
    const c = await t.company('PushGone');
    const gone = await browser(c.admin, '/gone');
    const missing = await browser(c.admin, '/missing');
    const fine = await browser(c.admin, '/fine');
    service.answer('/gone', 410);
    service.answer('/missing', 404);
    await t.app.services.push.notifyUsers(c.id, [c.admin.user.id], {
      title: 'x',
      body: 'y',
      url: '/tickets',
    });
    await waitFor(async () => {
      const left = await db
        .select()
        .from(pushSubscriptions)
        .where(eq(pushSubscriptions.userId, c.admin.user.id));
      return left.length === 1 && left[0]!.endpoint === fine.endpoint;
    });
    expect(gone.pushes()).toHaveLength(1);
    expect(missing.pushes()).toHaveLength(1);
    expect(fine.pushes()).toHaveLength(1);
  });

  test('customer messages reach those who may see the ticket; the attendant of an open ticket', async () => {
    const c = await t.company('PushTickets');
    const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    await waitFor(async () => t.app.sessions.get(w.id));
    const [q1, q2] = await db
      .insert(queues)
      .values([
        { companyId: c.id, name: 'Um', color: '#aa0000' },
        { companyId: c.id, name: 'Dois', color: '#0000aa' },
      ])
      .returning();
    const one = await t.user(c.admin, 'user');
    const two = await t.user(c.admin, 'user');
    await db.insert(userQueues).values([
      { userId: one.user.id, queueId: q1!.id },
      { userId: two.user.id, queueId: q2!.id },
    ]);
    await db
      .update(users)
      .set({ showQueuelessTickets: false, language: 'en' })
      .where(eq(users.id, one.user.id));
    await db.update(users).set({ showQueuelessTickets: false }).where(eq(users.id, two.user.id));
    const pOne = await browser(one, '/t-one');
    const pTwo = await browser(two, '/t-two');
    const pAdmin = await browser(c.admin, '/t-admin');
    const number = '5511944440001';
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: 'Maria', body: 'primeira' });
    const ticket = await waitFor(async () => {
      const [row] = await db
        .select({ ticket: tickets })
        .from(tickets)
        .innerJoin(contacts, eq(contacts.id, tickets.contactId))
        .where(and(eq(contacts.number, number), eq(tickets.companyId, c.id)));
      return row?.ticket;
    });
    // Without a queue: the admin only.
    const [first] = await waitFor(() => (pAdmin.pushes().length ? pAdmin.pushes() : null));
    expect(pAdmin.read(first!)).toMatchObject({
      title: 'Cliente aguardando: Maria · Simulador',
      body: 'primeira',
      url: `/tickets/${ticket.uuid}`,
      tag: `ticket-${ticket.id}`,
    });
    // In queue 1: its attendant too (in English), never queue 2's.
    await db.update(tickets).set({ queueId: q1!.id }).where(eq(tickets.id, ticket.id));
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, body: 'segunda' });
    const [toOne] = await waitFor(() => (pOne.pushes().length ? pOne.pushes() : null));
    expect(pOne.read(toOne!)).toMatchObject({
      title: 'Customer waiting: Maria · Simulator',
      body: 'segunda',
    });
    await waitFor(() => pAdmin.pushes().length === 2);
    // Taken by one: only one hears the next message.
    const taken = await t.as(one).put(`/tickets/${ticket.id}`, { status: 'open', userId: one.user.id });
    expect(taken.status, await taken.clone().text()).toBe(200);
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, body: 'terceira' });
    await waitFor(() => pOne.pushes().length === 2);
    expect(pOne.read(pOne.pushes()[1]!)).toMatchObject({
      title: 'New message: Maria · Simulator',
      body: 'terceira',
    });
    await settle();
    expect(pTwo.pushes()).toHaveLength(0);
    expect(pAdmin.pushes()).toHaveLength(2);
  });

  test('internal-chat messages reach the chat members except the sender', async () => {
    const c = await t.company('PushChat');
    const a = await t.user(c.admin, 'user');
    const b = await t.user(c.admin, 'user');
    const pa = await browser(a, '/chat-a');
    const pb = await browser(b, '/chat-b');
    t.app.services.bus.emit('chat.message', {
      companyId: c.id,
      chatId: 42,
      messageId: 1,
      senderId: a.user.id,
      recipientIds: [b.user.id],
      title: 'Equipe',
      body: 'Reunião às 15h',
    });
    const [push] = await waitFor(() => (pb.pushes().length ? pb.pushes() : null));
    expect(pb.read(push!)).toEqual({
      title: 'Equipe',
      body: 'Reunião às 15h',
      url: '/chats/42',
      tag: 'chat-42',
    });
    await settle();
    expect(pa.pushes()).toHaveLength(0);
  });
});

describe('web push without ALLOW_PRIVATE_URLS', async () => {
  // testApp closes itself after the file's tests.
  const strict = await testApp();
  test('a loopback or private endpoint is refused at subscribe', async () => {
    const c = await strict.company('PushStrict');
    const keys = browserKeys().keys;
    for (const endpoint of [`${service.base}/x`, 'http://10.0.0.5/push', 'http://localhost:9/x'])
      await expectError(
        await strict.as(c.admin).post('/push/subscriptions', { endpoint, keys }),
        400,
        'ERR_URL_NOT_ALLOWED',
      );
  });
});
