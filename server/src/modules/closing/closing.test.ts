import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { tickets } from '../../db/schema/index.js';
import { contacts } from '../../db/schema/index.js';
import { openDatabase } from '../../db/client.js';
import { expectError, testApp, waitFor } from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

/** A company with a simulator connection and one open ticket its admin holds. */
async function scenario(name: string, number = '5511977770001') {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: 'Cliente', body: 'Oi' });
  const ticket = await waitFor(
    async () => (await db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
  );
  await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' });
  return { ...c, whatsappId: w.id as number, ticketId: ticket.id, number };
}

/** The company's pending ticket, once there is one (a customer wrote after the last was closed). */
const pendingTicket = (companyId: number) =>
  waitFor(
    async () =>
      (
        await db
          .select()
          .from(tickets)
          .where(and(eq(tickets.companyId, companyId), eq(tickets.status, 'pending')))
      )[0],
  );

const reason = async (admin: Parameters<typeof t.as>[0], name: string) => {
  const res = await t.as(admin).post('/closing-reasons', { name });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; name: string };
};

describe('closing reasons', () => {
  test('the company list: create, list in order, update, delete; a user reads, only admins change', async () => {
    const c = await t.company('Reasons');
    const user = await t.user(c.admin);
    const b = await (
      await t.as(c.admin).post('/closing-reasons', { name: 'Sem retorno', position: 2 })
    ).json();
    const a = await (await t.as(c.admin).post('/closing-reasons', { name: 'Venda', position: 1 })).json();
    expect(a).toMatchObject({ name: 'Venda', active: true, position: 1, companyId: c.id });
    const list = await (await t.as(user).get('/closing-reasons')).json();
    expect(list.map((r: { name: string }) => r.name)).toEqual(['Venda', 'Sem retorno']);
    await expectError(await t.as(c.admin).post('/closing-reasons', { name: 'venda' }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(user).post('/closing-reasons', { name: 'Outro' }), 403, 'ERR_NO_PERMISSION');
    const off = await (await t.as(c.admin).put(`/closing-reasons/${b.id}`, { active: false })).json();
    expect(off).toMatchObject({ name: 'Sem retorno', active: false });
    expect((await t.as(c.admin).del(`/closing-reasons/${b.id}`)).status).toBe(200);
    await expectError(await t.as(c.admin).get(`/closing-reasons/${b.id}`), 404, 'ERR_NOT_FOUND');
  });

  test('another company cannot read, change or delete the reasons', async () => {
    const a = await t.company('OwnerCo');
    const b = await t.company('OtherCo');
    const r = await reason(a.admin, 'Venda');
    await expectError(await t.as(b.admin).get(`/closing-reasons/${r.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/closing-reasons/${r.id}`, { name: 'X' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/closing-reasons/${r.id}`), 404, 'ERR_NOT_FOUND');
    expect(await (await t.as(b.admin).get('/closing-reasons')).json()).toEqual([]);
    expect((await (await t.as(a.admin).get(`/closing-reasons/${r.id}`)).json()).name).toBe('Venda');
  });

  test('required mode: resolving without a reason is a 400 naming closingReasonId, and nothing changes', async () => {
    const s = await scenario('Required');
    expect((await t.as(s.admin).put('/settings/closingReasonMode', { value: 'required' })).status).toBe(200);
    const body = await expectError(
      await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed' }),
      400,
      'ERR_VALIDATION',
    );
    expect(body.fields).toEqual([expect.objectContaining({ path: 'closingReasonId' })]);
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row!.status).toBe('open');

    const r = await reason(s.admin, 'Venda realizada');
    const closed = await (
      await t
        .as(s.admin)
        .put(`/tickets/${s.ticketId}`, { status: 'closed', closingReasonId: r.id, saleValue: 199.9 })
    ).json();
    expect(closed).toMatchObject({ status: 'closed', closingReasonId: r.id, saleValue: 199.9 });
    const [stored] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(stored).toMatchObject({ closingReasonId: r.id, saleValue: '199.90' });

    // Reopened: the reason and value go (the timeline keeps them).
    const reopened = await (await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' })).json();
    expect(reopened).toMatchObject({ status: 'open', closingReasonId: null, saleValue: null });
  });

  test("another company's reason is refused with the field named, nothing changed", async () => {
    const s = await scenario('Foreign', '5511977770002');
    const other = await t.company('ForeignOther');
    const theirs = await reason(other.admin, 'Deles');
    const body = await expectError(
      await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed', closingReasonId: theirs.id }),
      400,
      'ERR_VALIDATION',
    );
    expect(body.fields[0].path).toBe('closingReasonId');
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row).toMatchObject({ status: 'open', closingReasonId: null });
  });

  test('a sale value of the wrong type, negative or with three decimals is a 400 naming saleValue', async () => {
    const s = await scenario('Sale', '5511977770003');
    for (const saleValue of ['abc', true, -1, 10.123, { v: 1 }]) {
      const body = await expectError(
        await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed', saleValue }),
        400,
        'ERR_VALIDATION',
      );
      expect(JSON.stringify(body.fields)).toContain('saleValue');
    }
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row).toMatchObject({ status: 'open', saleValue: null });
    // Only with a close.
    const body = await expectError(
      await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open', saleValue: 10 }),
      400,
      'ERR_VALIDATION',
    );
    expect(body.fields[0].path).toBe('saleValue');
  });
});

describe('protocol numbers', () => {
  test('every ticket gets one by the default pattern; the pattern must have a sequence part', async () => {
    const s = await scenario('Proto', '5511977770010');
    const view = await (await t.as(s.admin).get(`/tickets/${s.ticketId}`)).json();
    expect(view.protocol).toMatch(/^\d{8}-\d{6}$/);

    for (const value of ['YYYYMMDD', 'ABC-', '12-34', '{{x}}0001', '']) {
      const body = await expectError(
        await t.as(s.admin).put('/settings/protocolPattern', { value }),
        400,
        'ERR_VALIDATION',
      );
      expect(body.fields?.[0]?.path ?? body.message).toContain('protocolPattern');
    }
    expect(
      (
        await t
          .as(s.admin)
          .get('/settings/protocolPattern')
          .then((r) => r.json())
      ).value,
    ).toBe('YYYYMMDD-000123');
    expect((await t.as(s.admin).put('/settings/protocolPattern', { value: 'AT-YY-0000' })).status).toBe(200);
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed' });
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: s.number, body: 'de novo' });
    const next = await pendingTicket(s.id);
    expect(next.protocol).toMatch(/^AT-\d{2}-0002$/);
  });
});

describe('closing figures', () => {
  test('the dashboard counts closed tickets by reason and by attendant with their sale values; the CSV carries them', async () => {
    const s = await scenario('Dash', '5511977770020');
    const r = await reason(s.admin, 'Venda');
    await t
      .as(s.admin)
      .put(`/tickets/${s.ticketId}`, { status: 'closed', closingReasonId: r.id, saleValue: 100.5 });
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: '5511977770021', body: 'oi' });
    const second = await pendingTicket(s.id);
    await t.as(s.admin).put(`/tickets/${second.id}`, { status: 'open' });
    await t
      .as(s.admin)
      .put(`/tickets/${second.id}`, { status: 'closed', closingReasonId: r.id, saleValue: 20 });
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const range = `initialDate=${yesterday}&finalDate=${tomorrow}`;
    expect(today).toBeTruthy();
    const stats = await (await t.as(s.admin).get(`/dashboard/closing?${range}`)).json();
    expect(stats.byReason).toEqual([{ id: r.id, name: 'Venda', count: 2, saleValue: 120.5 }]);
    expect(stats.byAttendant).toEqual([
      { id: s.admin.user.id, name: expect.any(String), count: 2, saleValue: 120.5 },
    ]);
    expect(stats.total).toEqual({ count: 2, saleValue: 120.5 });
    // Another company sees nothing of it.
    const other = await t.company('DashOther');
    expect((await (await t.as(other.admin).get(`/dashboard/closing?${range}`)).json()).total.count).toBe(0);

    const csv = (await (await t.as(s.admin).get(`/dashboard/export?${range}`)).text()).trim().split('\r\n');
    const header = csv[0]!.split(';');
    expect(header.slice(-3)).toEqual(['protocol', 'closingReason', 'saleValue']);
    const row = csv.find((l) => l.startsWith(`${s.ticketId};`))!.split(';');
    const [view] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row.slice(-3)).toEqual([view!.protocol, 'Venda', '100.50']);
  });
});

describe('protocol search and variables', () => {
  test('the ticket search finds a ticket by its protocol, exact or by its beginning, only in its company', async () => {
    const s = await scenario('Search', '5511977770030');
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    const ids = async (who: typeof s.admin, q: string) =>
      (
        await (await t.as(who).get(`/tickets?showAll=true&searchParam=${encodeURIComponent(q)}`)).json()
      ).tickets.map((x: { id: number }) => x.id);
    expect(await ids(s.admin, row!.protocol)).toContain(s.ticketId);
    expect(await ids(s.admin, row!.protocol.slice(0, 10))).toContain(s.ticketId);
    const other = await t.company('SearchOther');
    expect(await ids(other.admin, row!.protocol)).toEqual([]);
  });

  test("{{protocol}} in a greeting reaches the customer as the ticket's protocol", async () => {
    const c = await t.company('Greet');
    const w = await (
      await t.as(c.admin).post('/whatsapp', {
        name: 'Sim',
        channel: 'simulator',
        greetingMessage: 'Seu protocolo: {{protocol}}',
      })
    ).json();
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: '5511977770040', body: 'Oi' });
    const ticket = await waitFor(
      async () => (await db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
    );
    const greeting = await waitFor(async () => {
      const conv = await (await t.as(c.admin).get(`/simulator/${w.id}/conversations/5511977770040`)).json();
      return conv.find(
        (m: { fromMe: boolean; body: string }) => m.fromMe && m.body.startsWith('Seu protocolo'),
      );
    });
    expect(greeting.body).toBe(`Seu protocolo: ${ticket.protocol}`);
  });

  test('two processes creating 1,000 tickets at once never give the same protocol twice', async () => {
    const c = await t.company('Concurrent');
    const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    const made = await db
      .insert(contacts)
      .values(
        Array.from({ length: 1000 }, (_, i) => ({
          companyId: c.id,
          name: `C${i}`,
          number: `55119000${String(i).padStart(5, '0')}`,
        })),
      )
      .returning({ id: contacts.id });
    // The second process's own connection pool on PostgreSQL (PGlite is one process: the same handle).
    const second = t.database.url ? await openDatabase({ url: t.database.url, poolSize: 4 }) : t.database;
    try {
      const dbs = [db, second.db];
      // Each process inserts its half, many at a time: every insert takes the company's counter row.
      await Promise.all(
        dbs.map(async (d, half) => {
          const mine = made.filter((_, i) => i % 2 === half);
          for (let i = 0; i < mine.length; i += 25)
            await Promise.all(
              mine
                .slice(i, i + 25)
                .map((ct) =>
                  d
                    .insert(tickets)
                    .values({ companyId: c.id, contactId: ct.id, whatsappId: w.id, status: 'pending' }),
                ),
            );
        }),
      );
    } finally {
      if (second !== t.database) await second.close();
    }
    const rows = await db
      .select({ protocol: tickets.protocol })
      .from(tickets)
      .where(eq(tickets.companyId, c.id));
    expect(rows).toHaveLength(1000);
    expect(new Set(rows.map((r) => r.protocol)).size).toBe(1000);
    expect(rows.every((r) => /^\d{8}-\d{6}$/.test(r.protocol))).toBe(true);
  }, 120_000);
});
