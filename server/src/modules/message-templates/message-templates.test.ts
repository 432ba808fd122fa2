import { beforeEach, describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { messages, tickets } from '../../db/schema/index.js';
import { expectError, waitFor } from '../../../test/helpers.js';
import { cloudTestApp } from '../../../test/cloud-api-fixtures.js';

/**
 * Cloud API templates and the 24-hour window against the local Graph double: sync (paged), pickers,
 * free text refused outside the window, template sends, failed statuses, and a second company kept out.
 */
// The job poller is off: the daily sync runs only when a test calls it (its first run would race the others).
const APP_SECRET = 'templates-app-secret';
const { t, db, graph, signedPost, webhookMessage, cloudConnection } = await cloudTestApp(APP_SECRET, {
  jobs: { autoStart: false },
});

export const TEMPLATES = [
  {
    id: '1001',
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
      { type: 'BODY', text: 'Hello {{1}}, your order ships on {{2}}.' },
      { type: 'FOOTER', text: 'Recado Store' },
      { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }] },
    ],
  },
  {
    id: '1002',
    name: 'promo_blackfriday',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'REJECTED',
    components: [{ type: 'BODY', text: 'Promoção {{1}}' }],
  },
  {
    id: '1003',
    name: 'retomar',
    language: 'pt_BR',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Olá {{1}}! Podemos continuar o seu atendimento?' }],
  },
  {
    id: '1004',
    name: 'temporada',
    language: 'es',
    category: 'MARKETING',
    status: 'PAUSED',
    components: [{ type: 'BODY', text: 'Temporada' }],
  },
];

beforeEach(() => {
  graph.templates = structuredClone(TEMPLATES);
  graph.templatePageSize = 2;
  graph.sendErrors.length = 0;
});

const withWaba = (name: string) => cloudConnection(name, 'Cloud', { businessAccountId: graph.wabaId });

/** A customer writes, the ticket is accepted; answers the ticket id. */
async function customerTicket(c: Awaited<ReturnType<typeof withWaba>>, from: string, id: string) {
  const res = await signedPost(
    c.whatsappId,
    webhookMessage(from, id, 'Maria', { type: 'text', text: { body: 'Oi' } }),
  );
  expect(res.status).toBe(200);
  const ticket = await waitFor(
    async () => (await db.select().from(tickets).where(eq(tickets.whatsappId, c.whatsappId)))[0],
  );
  await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' });
  return ticket.id;
}

/** Moves the customer's messages on this ticket `hours` into the past. */
const age = (ticketId: number, hours: number) =>
  db
    .update(messages)
    .set({ createdAt: sql`now() - ${`${hours} hours`}::interval` })
    .where(and(eq(messages.ticketId, ticketId), eq(messages.fromMe, false)));

const sentToGraph = () =>
  graph.requests.filter(
    (r) => r.method === 'POST' && r.path.endsWith('/messages') && r.json?.status !== 'read',
  );

describe('template sync', () => {
  test('reads every page from Graph; rejected and paused templates stay out of pickers', async () => {
    const c = await withWaba('TplSync');
    graph.requests.length = 0;
    const res = await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`);
    expect(res.status, await res.clone().text()).toBe(200);
    const pages = graph.requests.filter((r) => r.path.endsWith(`/${graph.wabaId}/message_templates`));
    expect(pages).toHaveLength(2);
    expect(pages[1]!.query.get('after')).toBeTruthy();
    expect(pages[0]!.authorization).toBe(`Bearer ${graph.token}`);

    const all = await (await t.as(c.admin).get(`/whatsapp/${c.whatsappId}/templates`)).json();
    expect(
      all.map((x: { name: string; status: string; usable: boolean }) => [x.name, x.status, x.usable]),
    ).toEqual([
      ['order_update', 'APPROVED', true],
      ['promo_blackfriday', 'REJECTED', false],
      ['retomar', 'APPROVED', true],
      ['temporada', 'PAUSED', false],
    ]);
    expect(all[0].components[1]).toEqual({ type: 'BODY', text: 'Hello {{1}}, your order ships on {{2}}.' });
    const user = await t.user(c.admin, 'user');
    const picker = await (await t.as(user).get(`/whatsapp/${c.whatsappId}/templates?usable=true`)).json();
    expect(picker.map((x: { name: string }) => x.name)).toEqual(['order_update', 'retomar']);

    // A template deleted at Meta and one whose status changed: the next sync says so.
    graph.templates = graph.templates.filter((x) => x.name !== 'temporada');
    graph.templates[1]!.status = 'APPROVED';
    await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`);
    const again = await (await t.as(user).get(`/whatsapp/${c.whatsappId}/templates?usable=true`)).json();
    expect(again.map((x: { name: string }) => x.name)).toEqual([
      'order_update',
      'promo_blackfriday',
      'retomar',
    ]);
  });

  test('the daily job syncs every Cloud API connection with a business account', async () => {
    const c = await withWaba('TplDaily');
    await t.app.services.templates.jobs.syncAll.handler({
      id: 0,
      kind: 'message-templates.sync',
      key: 'every',
      companyId: null,
      payload: {},
      attempts: 1,
      runAt: new Date(),
    });
    const listed = await (await t.as(c.admin).get(`/whatsapp/${c.whatsappId}/templates`)).json();
    expect(listed).toHaveLength(4);
  });

  test('without a business account id, or for an attendant, sync is refused', async () => {
    const c = await cloudConnection('TplNoWaba');
    await expectError(
      await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`),
      400,
      'ERR_NO_BUSINESS_ACCOUNT',
    );
    const w = await withWaba('TplUser');
    const user = await t.user(w.admin, 'user');
    await expectError(
      await t.as(user).post(`/whatsapp/${w.whatsappId}/templates/sync`),
      403,
      'ERR_NO_PERMISSION',
    );
  });

  test("a second company can't read, sync or send another company's templates", async () => {
    const a = await withWaba('TplOwner');
    await t.as(a.admin).post(`/whatsapp/${a.whatsappId}/templates/sync`);
    const b = await withWaba('TplIntruder');
    await expectError(
      await t.as(b.admin).get(`/whatsapp/${a.whatsappId}/templates`),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    await expectError(
      await t.as(b.admin).post(`/whatsapp/${a.whatsappId}/templates/sync`),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    // B's own ticket, outside the window: A's synced templates are not B's.
    const ticketId = await customerTicket(b, '5511955550001', 'wamid.TPLB1');
    await age(ticketId, 25);
    await expectError(
      await t.as(b.admin).post(`/messages/${ticketId}`, {
        template: { name: 'retomar', language: 'pt_BR', variables: ['Maria'] },
      }),
      404,
      'ERR_NO_TEMPLATE_FOUND',
    );
  });
});

describe('the 24-hour window', () => {
  test('inside as text; outside text is refused and a template goes with its variables', async () => {
    const c = await withWaba('TplWindow');
    await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`);
    const ticketId = await customerTicket(c, '5511955550002', 'wamid.TPLW1');

    graph.requests.length = 0;
    const inside = await t.as(c.admin).post(`/messages/${ticketId}`, { body: 'Olá, tudo bem?' });
    expect(inside.status, await inside.clone().text()).toBe(200);
    expect(sentToGraph().map((r) => r.json?.type)).toEqual(['text']);
    const open = await (await t.as(c.admin).get(`/messages/${ticketId}`)).json();
    expect(open.window).toEqual({ channel: 'cloud_api', lastInboundAt: expect.any(String), open: true });

    await age(ticketId, 25);
    graph.requests.length = 0;
    const refused = await expectError(
      await t.as(c.admin).post(`/messages/${ticketId}`, { body: 'Ainda aí?' }),
      409,
      'ERR_OUTSIDE_WINDOW',
    );
    expect(refused.lastInboundAt).toEqual(expect.any(String));
    expect(sentToGraph()).toEqual([]);
    const closed = await (await t.as(c.admin).get(`/messages/${ticketId}`)).json();
    expect(closed.window.open).toBe(false);

    // Wrong value count, a rejected template: refused here instead of at Meta.
    await expectError(
      await t.as(c.admin).post(`/messages/${ticketId}`, {
        template: { name: 'order_update', language: 'en_US', variables: ['Maria'] },
      }),
      400,
      'ERR_TEMPLATE_VARIABLES',
    );
    await expectError(
      await t.as(c.admin).post(`/messages/${ticketId}`, {
        template: { name: 'promo_blackfriday', language: 'pt_BR', variables: ['50%'] },
      }),
      400,
      'ERR_TEMPLATE_NOT_APPROVED',
    );
    expect(sentToGraph()).toEqual([]);

    const sent = await t.as(c.admin).post(`/messages/${ticketId}`, {
      template: {
        name: 'order_update',
        language: 'en_US',
        variables: ['Maria', 'Friday'],
        headerVariables: ['#42'],
      },
    });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const message = await sent.json();
    expect(message.body).toBe(
      '*Order #42*\nHello Maria, your order ships on Friday.\n_Recado Store_\n[Thanks]',
    );
    expect(message.ack).toBe(1);
    const [req] = sentToGraph();
    expect(req!.json).toMatchObject({
      messaging_product: 'whatsapp',
      to: '5511955550002',
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: '#42' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Maria' },
              { type: 'text', text: 'Friday' },
            ],
          },
        ],
      },
    });

    // The customer answers: the window opens again and text goes.
    await signedPost(
      c.whatsappId,
      webhookMessage('5511955550002', 'wamid.TPLW2', 'Maria', { type: 'text', text: { body: 'Sim' } }),
    );
    await waitFor(async () => (await (await t.as(c.admin).get(`/messages/${ticketId}`)).json()).window.open);
    expect((await t.as(c.admin).post(`/messages/${ticketId}`, { body: 'Ótimo!' })).status).toBe(200);
  });

  test('a failed status from Meta marks the message with its code and reason', async () => {
    const c = await withWaba('TplFailed');
    const ticketId = await customerTicket(c, '5511955550003', 'wamid.TPLF1');
    const sent = await (await t.as(c.admin).post(`/messages/${ticketId}`, { body: 'Oi' })).json();
    const [row] = await db.select().from(messages).where(eq(messages.id, sent.id));
    const status = (state: string, errors?: unknown[]) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: graph.wabaId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: {
                  display_phone_number: graph.displayPhoneNumber,
                  phone_number_id: graph.phoneNumberId,
                },
                statuses: [
                  {
                    id: row!.providerId,
                    status: state,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    recipient_id: '5511955550003',
                    ...(errors ? { errors } : {}),
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    await signedPost(c.whatsappId, status('delivered'));
    await waitFor(
      async () => (await db.select().from(messages).where(eq(messages.id, sent.id)))[0]!.ack === 2,
    );
    const sent2 = await (await t.as(c.admin).post(`/messages/${ticketId}`, { body: 'Segunda' })).json();
    const [row2] = await db.select().from(messages).where(eq(messages.id, sent2.id));
    const failed = status('failed', [
      {
        code: 131026,
        title: 'Message undeliverable',
        message: 'Message undeliverable',
        error_data: { details: 'Unable to deliver message.' },
      },
    ]);
    failed.entry[0]!.changes[0]!.value.statuses[0]!.id = row2!.providerId;
    await signedPost(c.whatsappId, failed);
    const view = await waitFor(async () => {
      const page = await (await t.as(c.admin).get(`/messages/${ticketId}`)).json();
      const m = page.messages.find((x: { id: number }) => x.id === sent2.id);
      return m?.data?.error ? m : undefined;
    });
    expect(view.data).toMatchObject({
      error: '(#131026) Message undeliverable — Unable to deliver message.',
      errorCode: 131026,
    });
  });

  test("Meta's rate-limit answer to a template send is kept on the message, visible, not lost", async () => {
    const c = await withWaba('TplRate');
    await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`);
    const ticketId = await customerTicket(c, '5511955550005', 'wamid.TPLR1');
    await age(ticketId, 30);
    graph.sendErrors.push({ code: 130429, message: '(#130429) Rate limit hit' });
    const res = await t.as(c.admin).post(`/messages/${ticketId}`, {
      template: { name: 'retomar', language: 'pt_BR', variables: ['Maria'] },
    });
    const body = await expectError(res, 400, 'ERR_SENDING_WAPP_MSG');
    expect(body.message).toMatch(/130429/);
    const page = await (await t.as(c.admin).get(`/messages/${ticketId}`)).json();
    const last = page.messages.at(-1);
    expect(last.body).toBe('Olá Maria! Podemos continuar o seu atendimento?');
    expect(String(last.data.error)).toMatch(/130429/);
  });
});
