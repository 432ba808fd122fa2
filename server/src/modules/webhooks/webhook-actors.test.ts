import { afterAll, describe, expect, test } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import { redactUrl } from '../../http/log-redaction.js';
import { expectError, testApp, type Session } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { fakeWebhook } from '../../../test/fake-webhook.js';
import { webhookReceiver, type ReceivedHook } from '../../../test/webhook-receiver.js';
import { automationKit } from '../automation/automation-test-kit.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { chain, flowApi } from '../flows/flow-test-kit.js';
import { MEDIA_LINK_TTL_MS } from './media-link.js';

const clock = manualClock(new Date());
const openai = await fakeOpenAi();
const t = await testApp({
  env: { ALLOW_PRIVATE_URLS: 'true', OPENAI_BASE_URL: openai.baseUrl, PUBLIC_URL: 'http://127.0.0.1:1' },
  deps: { clock, jobs: { autoStart: false } },
});
const k = automationKit(t);
const receiver = await webhookReceiver();
const n8n = await fakeWebhook();
afterAll(() => Promise.all([receiver.close(), openai.close(), n8n.close()]));

const ALL = ['ticket.created', 'ticket.updated', 'message.created'];
const a = await t.company('ActorsA');
const b = await t.company('ActorsB');
await t.as(a.admin).post('/webhooks', { name: 'Todos', url: receiver.url, events: ALL });

const flush = async () => {
  await t.app.services.bus.idle();
  await t.app.services.jobs.runDue();
  await t.app.services.bus.idle();
  await t.app.services.jobs.runDue();
};

type TicketData = {
  ticket: {
    id: number;
    status: string;
    queueId: number | null;
    queue: { id: number; name: string } | null;
    user: { id: number; name: string } | null;
    contact: { number: string };
    channel: { channel: string } | null;
  };
  actor: string;
  by?: number | null;
  action?: string;
  changes?: Record<string, { from: unknown; to: unknown }>;
};
const ticketEvents = (ticketId: number, event = 'ticket.updated') =>
  receiver.received
    .filter((r) => r.json.companyId === a.id && r.json.event === event)
    .map((r) => r.json.data as TicketData)
    .filter((d) => d.ticket.id === ticketId);

/** The same full view whoever made the change. */
const fullView = (d: TicketData, number: string) => {
  expect(d.ticket).toMatchObject({ contact: { number }, channel: { channel: 'simulator' } });
  expect(d.ticket).toHaveProperty('status');
  expect(d.ticket).toHaveProperty('queue');
  expect(d.ticket).toHaveProperty('user');
  expect(d.ticket).toHaveProperty('tags');
};

/** One queue, a simulator connection; the customer's ticket. */
async function conversation(admin: Session, queues = [{ name: `Fila ${newNumber()}`, greetingMessage: '' }]) {
  const setup = await k.setup(admin, queues);
  return setup;
}

describe('ticket events from every actor, with one full ticket view', () => {
  test('user: accept, transfer and tags each send ticket.updated', async () => {
    const { whatsappId, queues } = await conversation(a.admin, [
      { name: `U1 ${newNumber()}`, greetingMessage: '' },
      { name: `U2 ${newNumber()}`, greetingMessage: '' },
    ]);
    const number = newNumber();
    await k.say(a.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(a.id, whatsappId, number);
    expect((await t.as(a.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    const [q1, q2] = Object.values(queues);
    expect((await t.as(a.admin).put(`/tickets/${ticket.id}`, { queueId: q2 ?? q1 })).status).toBe(200);
    const tag = await (
      await t.as(a.admin).post('/tags', { name: `VIP ${newNumber()}`, color: '#123456' })
    ).json();
    expect((await t.as(a.admin).post('/tags/sync', { ticketId: ticket.id, tags: [tag.id] })).status).toBe(
      200,
    );
    await flush();
    const got = ticketEvents(ticket.id);
    const accept = got.find((d) => d.action === 'accept')!;
    expect(accept).toMatchObject({
      actor: 'user',
      by: a.admin.user.id,
      changes: { status: { from: 'pending', to: 'open' }, userId: { from: null, to: a.admin.user.id } },
    });
    fullView(accept, number);
    expect(accept.ticket.user).toMatchObject({ id: a.admin.user.id });
    expect(got.find((d) => d.action === 'transfer')).toMatchObject({
      actor: 'user',
      changes: { queueId: {} },
    });
    expect(got.find((d) => d.changes?.tags)).toMatchObject({
      actor: 'user',
      changes: { tags: { from: [], to: [tag.id] } },
      ticket: { tags: [{ id: tag.id }] },
    });
  });

  test('bot: the menu choice moves the ticket to a queue', async () => {
    const { whatsappId, queues } = await conversation(a.admin, [
      { name: `B1 ${newNumber()}`, greetingMessage: 'Fila um.' },
      { name: `B2 ${newNumber()}`, greetingMessage: 'Fila dois.' },
    ]);
    const number = newNumber();
    await k.say(a.admin, whatsappId, number, 'oi');
    await k.say(a.admin, whatsappId, number, '1');
    await flush();
    const ticket = await k.ticketOf(a.id, whatsappId, number);
    expect(Object.values(queues)).toContain(ticket.queueId);
    const [moved] = ticketEvents(ticket.id);
    expect(moved).toMatchObject({
      actor: 'bot',
      by: null,
      changes: { queueId: { from: null, to: ticket.queueId } },
      ticket: { queueId: ticket.queueId, queue: { id: ticket.queueId } },
    });
    fullView(moved!, number);
  });

  test('flow: a transfer node moves the ticket to a queue (the flow speaks as the bot)', async () => {
    const { whatsappId, queues } = await conversation(a.admin, [
      { name: `F1 ${newNumber()}`, greetingMessage: '' },
      { name: `F2 ${newNumber()}`, greetingMessage: '' },
    ]);
    const target = Object.values(queues)[1]!;
    await flowApi(t, a.admin).onConnection(
      whatsappId,
      chain([{ id: 'go', type: 'transfer', data: { target: 'queue', queueId: target } }]),
    );
    const number = newNumber();
    await k.say(a.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(a.id, whatsappId, number);
    const moved = () => ticketEvents(ticket.id).find((d) => d.changes?.queueId?.to === target);
    for (let i = 0; i < 10 && !moved(); i++) await flush();
    expect(moved()).toMatchObject({
      actor: 'bot',
      by: null,
      changes: { queueId: { from: null, to: target } },
      ticket: { queue: { id: target } },
    });
    fullView(moved()!, number);
  });

  test('AI prompt: taking a ticket into its queue sends ticket.updated', async () => {
    const { whatsappId, queues } = await conversation(a.admin);
    const queueId = Object.values(queues)[0]!;
    await k.prompt(a.admin, queueId);
    const number = newNumber();
    await k.say(a.admin, whatsappId, number, 'Oi, tem camiseta?');
    await flush();
    const ticket = await k.ticketOf(a.id, whatsappId, number);
    expect(ticket).toMatchObject({ queueId, useIntegration: true });
    // The one queue of the connection: the prompt takes the ticket there — unless the bot, which puts a
    // ticket in a connection's only queue too, got there first (the prompt then runs in its queue). Exactly
    // one of them moved it, and said so.
    const moves = ticketEvents(ticket.id).filter((d) => d.changes?.queueId);
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ changes: { queueId: { from: null, to: queueId } }, by: null });
    expect(['ai', 'bot']).toContain(moves[0]!.actor);
    fullView(moves[0]!, number);
  });

  test("automation: an n8n hook's tag and transfer each send ticket.updated as the integration", async () => {
    clock.set(new Date());
    const { whatsappId, queues } = await conversation(a.admin);
    const queueId = Object.values(queues)[0]!;
    const path = `/actors-${newNumber()}`;
    const hook = await t.as(a.admin).post('/queueIntegration', {
      type: 'n8n',
      name: `N ${newNumber()}`.slice(0, 40),
      urlN8N: `${n8n.url}${path}`,
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    const { id: integrationId } = (await hook.json()) as { id: number };
    expect((await t.as(a.admin).put(`/queue/${queueId}`, { integrationId })).status).toBe(200);
    const sales = await t.as(a.admin).post('/queue', { name: `Vendas ${newNumber()}`, color: '#1B7A3E' });
    expect(sales.status, await sales.clone().text()).toBe(201);
    const salesId = ((await sales.json()) as { id: number }).id;
    const tag = (await (
      await t.as(a.admin).post('/tags', { name: `Lead ${newNumber()}`, color: '#654321' })
    ).json()) as { id: number };
    n8n.state.body = () => ({
      text: JSON.stringify({
        actions: [
          { type: 'tag', tagId: tag.id },
          { type: 'transfer', queueId: salesId },
        ],
      }),
    });
    try {
      const number = newNumber();
      await k.say(a.admin, whatsappId, number, 'quero comprar');
      await flush();
      // The bot also places a ticket in a connection's only queue; when it got there first, the hook takes
      // the customer's next message (the ones before were the bot's turn).
      if (!n8n.hits.includes(path)) await k.say(a.admin, whatsappId, number, 'alô?');
      const ticket = await k.ticketOf(a.id, whatsappId, number);
      const moved = () => ticketEvents(ticket.id).find((d) => d.changes?.queueId?.to === salesId);
      for (let i = 0; i < 10 && !moved(); i++) await flush();
      expect(n8n.hits).toContain(path);
      expect(moved()).toMatchObject({
        actor: 'integration',
        by: null,
        action: 'transfer',
        changes: { queueId: { from: queueId, to: salesId } },
        ticket: { queue: { id: salesId } },
      });
      fullView(moved()!, number);
      expect(ticketEvents(ticket.id).find((d) => d.changes?.tags)).toMatchObject({
        actor: 'integration',
        by: null,
        changes: { tags: { from: [], to: [tag.id] } },
      });
    } finally {
      n8n.state.body = undefined;
    }
  });

  test('timer: an inactive open ticket closed by expiresTicket sends ticket.updated', async () => {
    clock.set(new Date());
    const w = await (
      await t
        .as(a.admin)
        .post('/whatsapp', { name: `Exp ${newNumber()}`, channel: 'simulator', expiresTicket: 5 })
    ).json();
    const number = newNumber();
    await k.say(a.admin, w.id, number, 'oi');
    const ticket = await k.ticketOf(a.id, w.id, number);
    expect((await t.as(a.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    await t.app.services.jobs.schedule(t.app.services.ticketTimers.jobs.sweep, {
      key: 'every',
      runAt: clock.now(),
      payload: {},
    });
    clock.advance(6 * 60_000);
    await flush();
    const closed = ticketEvents(ticket.id).find((d) => d.actor === 'timer');
    expect(closed).toMatchObject({
      action: 'close',
      by: null,
      changes: { status: { from: 'open', to: 'closed' } },
      ticket: { status: 'closed' },
    });
    fullView(closed!, number);
  });

  test('API: a ticket the external API opens is announced with the full view', async () => {
    const { whatsappId } = await conversation(a.admin);
    const { token } = await (await t.as(a.admin).get(`/whatsapp/${whatsappId}/token`)).json();
    const number = newNumber();
    const res = await t.request('POST', '/messages/send', {
      token,
      body: { number, body: 'Seu pedido saiu' },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    await flush();
    const ticket = await k.ticketOf(a.id, whatsappId, number);
    const [created] = ticketEvents(ticket.id, 'ticket.created');
    expect(created).toMatchObject({
      actor: 'api',
      ticket: { id: ticket.id, status: 'pending', queue: null },
    });
    fullView(created!, number);
  });
});

describe('message.created for a file carries a signed, expiring link', () => {
  test('downloaded without a token until it expires; an altered link is refused', async () => {
    const { whatsappId } = await conversation(a.admin);
    const number = newNumber();
    const data = Buffer.from('%PDF-1.4 recibo de teste');
    const res = await t.as(a.admin).post(`/simulator/${whatsappId}/inbound`, {
      from: number,
      body: '',
      media: { mimetype: 'application/pdf', filename: 'recibo.pdf', data: data.toString('base64') },
    });
    expect(res.status).toBe(202);
    let hook: ReceivedHook | undefined;
    for (let i = 0; i < 50 && !hook; i++) {
      await flush();
      hook = receiver.received.find(
        (r) =>
          r.json.event === 'message.created' &&
          (r.json.data as { message: { mediaName: string | null } }).message.mediaName === 'recibo.pdf',
      );
      if (!hook) await new Promise((r) => setTimeout(r, 50));
    }
    const message = (
      hook!.json.data as { message: { id: number; mediaUrl: string; mediaUrlExpiresAt: string } }
    ).message;
    expect(message.mediaUrl).toMatch(
      /^http:\/\/127\.0\.0\.1:1\/api\/webhook-media\/\d+\?expires=\d+&signature=/,
    );
    expect(new Date(message.mediaUrlExpiresAt).getTime()).toBeGreaterThan(clock.now().getTime());
    const path = message.mediaUrl.replace('http://127.0.0.1:1/api', '');

    // No token: the link is the credential.
    const file = await t.request('GET', path);
    expect(file.status, await file.clone().text()).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(data)).toBe(true);
    expect(file.headers.get('content-type')).toContain('application/pdf');

    // Altered: another signature, another message, another expiry.
    const url = new URL(message.mediaUrl);
    const sig = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    await expectError(
      await t.request('GET', `/webhook-media/${message.id}?expires=${expires}&signature=${flipped}`),
      403,
      'ERR_MEDIA_LINK_INVALID',
    );
    await expectError(
      await t.request('GET', `/webhook-media/${message.id - 1}?expires=${expires}&signature=${sig}`),
      403,
      'ERR_MEDIA_LINK_INVALID',
    );
    await expectError(
      await t.request(
        'GET',
        `/webhook-media/${message.id}?expires=${Number(expires) + 3600}&signature=${sig}`,
      ),
      403,
      'ERR_MEDIA_LINK_INVALID',
    );
    await expectError(
      await t.request('GET', `/webhook-media/${message.id}?expires=x`),
      400,
      'ERR_VALIDATION',
    );
    // The signature never reaches the log (the request serializer redacts it).
    expect(redactUrl(`/api${path}`)).not.toContain(sig);

    // Another company's webhook never sees it; past its time it is refused.
    expect(receiver.received.filter((r) => r.json.companyId === b.id)).toHaveLength(0);
    clock.advance(MEDIA_LINK_TTL_MS + 1000);
    await expectError(await t.request('GET', path), 410, 'ERR_MEDIA_LINK_EXPIRED');
    clock.set(new Date());
  });
});
