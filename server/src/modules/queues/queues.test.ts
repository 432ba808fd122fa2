import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { DEFAULT_QUEUE_SCHEDULES, QUEUE_COLORS } from '@recado/contracts';
import { messages, queueOptions, tickets } from '../../db/schema/index.js';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;
/** For cases that change nothing: validation failures and bad ids. */
const shared = await t.company('Shared');

let colorSeq = 0;
/** A colour no other test uses: #0000NN, #0001NN... */
const nextColor = () => `#${(++colorSeq).toString(16).padStart(6, '0').toUpperCase()}`;

const createQueue = async (admin: Session, over: Record<string, unknown> = {}) => {
  const res = await t.as(admin).post('/queue', { name: unique('Fila '), color: nextColor(), ...over });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

const createOption = async (admin: Session, body: Record<string, unknown>) => {
  const res = await t.as(admin).post('/queue-options', { title: unique('Opção '), ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

describe('queues', () => {
  test('create with the default week, read, list in bot order then name', async () => {
    const c = await t.company('Create');
    const b = await createQueue(c.admin, { name: 'Beta', orderQueue: 2, greetingMessage: 'Olá B' });
    const a = await createQueue(c.admin, { name: 'Alfa', orderQueue: 2 });
    const first = await createQueue(c.admin, { name: 'Zeta', orderQueue: 1 });
    const none = await createQueue(c.admin, { name: 'Sem ordem' });
    expect(b).toMatchObject({
      name: 'Beta',
      orderQueue: 2,
      greetingMessage: 'Olá B',
      outOfHoursMessage: '',
      completionMessage: '',
      integrationId: null,
      promptId: null,
      companyId: c.id,
    });
    // docs/product.md#constants: Mon–Fri 08:00–18:00, Sat 08:00–12:00, Sun 00:00–00:00.
    expect(b.schedules).toEqual(DEFAULT_QUEUE_SCHEDULES);
    expect(b.schedules.find((d: { weekdayEn: string }) => d.weekdayEn === 'saturday')).toMatchObject({
      startTime: '08:00',
      endTime: '12:00',
    });
    const got = await (await t.as(c.admin).get(`/queue/${b.id}`)).json();
    expect(got).toEqual(b);
    const list = await (await t.as(c.admin).get('/queue')).json();
    expect(list.map((q: { id: number }) => q.id)).toEqual([first.id, a.id, b.id, none.id]);
    expect(list[0].schedules).toHaveLength(7);
  });

  test('takes a palette colour, any #RRGGBB, and stores hex colours upper-case', async () => {
    const c = await t.company('Colors');
    expect(QUEUE_COLORS).toHaveLength(50);
    expect(new Set(QUEUE_COLORS).size).toBe(50);
    const p = await createQueue(c.admin, { color: QUEUE_COLORS[7] });
    expect(p.color).toBe(QUEUE_COLORS[7]);
    const custom = await createQueue(c.admin, { color: '#a1b2c3' });
    expect(custom.color).toBe('#A1B2C3');
  });

  test('a colour used by another queue is refused, whatever its case', async () => {
    const c = await t.company('Dup');
    const q = await createQueue(c.admin, { color: '#AABBCC' });
    await expectError(
      await t.as(c.admin).post('/queue', { name: 'Other', color: '#aabbcc' }),
      409,
      'ERR_QUEUE_COLOR_ALREADY_EXISTS',
    );
    const other = await createQueue(c.admin, { color: '#112233' });
    await expectError(
      await t.as(c.admin).put(`/queue/${other.id}`, { color: '#AaBbCc' }),
      409,
      'ERR_QUEUE_COLOR_ALREADY_EXISTS',
    );
    // Its own colour again is fine, and another company may use the same colour.
    expect((await t.as(c.admin).put(`/queue/${q.id}`, { color: '#aabbcc', name: 'Same' })).status).toBe(200);
    const d = await t.company('Dup2');
    await createQueue(d.admin, { color: '#AABBCC' });
  });

  test('two creations racing for one colour: one wins, the other gets the colour error', async () => {
    const c = await t.company('Race');
    const color = nextColor();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => t.as(c.admin).post('/queue', { name: `Race ${i}`, color })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    for (const r of answers.filter((a) => a.status === 409))
      expect((await r.json()).error).toBe('ERR_QUEUE_COLOR_ALREADY_EXISTS');
  });

  test('two queues changed to one colour at once: the unique index refuses the second', async () => {
    const c = await t.company('RacePut');
    const [q1, q2] = [await createQueue(c.admin), await createQueue(c.admin)];
    const color = nextColor();
    const answers = await Promise.all(
      [q1, q2].map((q) => t.as(c.admin).put(`/queue/${q.id}`, { color: color.toLowerCase() })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    await expectError(
      answers.find((r) => r.status === 409)!,
      409,
      'ERR_QUEUE_COLOR_ALREADY_EXISTS',
    );
  });

  test('update changes only what is sent', async () => {
    const c = await t.company('Patch');
    const schedules = DEFAULT_QUEUE_SCHEDULES.map((d) => ({ ...d, startTime: '09:00' }));
    // The integration must be one of the company's own (the queue-integrations tests cover the refusal).
    const integration = await (
      await t.as(c.admin).post('/queueIntegration', {
        type: 'webhook',
        name: 'Hook',
        urlN8N: 'https://hooks.example.com/q',
      })
    ).json();
    const q = await createQueue(c.admin, {
      greetingMessage: 'G',
      outOfHoursMessage: 'O',
      orderQueue: 3,
      schedules,
      integrationId: integration.id,
    });
    const res = await t.as(c.admin).put(`/queue/${q.id}`, { name: 'Renamed' });
    expect(res.status).toBe(200);
    const after = await res.json();
    expect(after).toMatchObject({
      name: 'Renamed',
      color: q.color,
      greetingMessage: 'G',
      outOfHoursMessage: 'O',
      orderQueue: 3,
      integrationId: integration.id,
    });
    expect(after.schedules).toEqual(schedules);
    const cleared = await (
      await t.as(c.admin).put(`/queue/${q.id}`, { promptId: null, orderQueue: null, greetingMessage: '' })
    ).json();
    expect(cleared).toMatchObject({
      promptId: null,
      integrationId: integration.id,
      orderQueue: null,
      greetingMessage: '',
    });
  });

  test('bad input answers 400 ERR_VALIDATION, never 500', async () => {
    const a = shared.admin;
    const bad: Record<string, unknown>[] = [
      {},
      { name: 'A', color: '#000001' },
      { name: 'x'.repeat(51), color: '#000001' },
      { name: 'Ok' },
      { name: 'Ok', color: 'red' },
      { name: 'Ok', color: '#12' },
      { name: 'Ok', color: '#1234567890' },
      { name: 'Ok', color: '#GGGGGG' },
      { name: 'Ok', color: '#000001', orderQueue: -1 },
      { name: 'Ok', color: '#000001', orderQueue: 'abc' },
      { name: 'Ok', color: '#000001', schedules: [] },
      { name: 'Ok', color: '#000001', schedules: DEFAULT_QUEUE_SCHEDULES.slice(0, 6) },
      {
        name: 'Ok',
        color: '#000001',
        schedules: DEFAULT_QUEUE_SCHEDULES.map((d) => ({ ...d, startTime: '8:00' })),
      },
      {
        name: 'Ok',
        color: '#000001',
        schedules: DEFAULT_QUEUE_SCHEDULES.map((d) => ({ ...d, endTime: '24:00' })),
      },
      {
        name: 'Ok',
        color: '#000001',
        schedules: DEFAULT_QUEUE_SCHEDULES.map((d) => ({ ...d, weekdayEn: 'monday' })),
      },
      { name: 'Ok', color: '#000001', integrationId: 0 },
      { name: 'Ok', color: '#000001', promptId: 99999999999 },
      { name: 'Ok', color: '#000001', greetingMessage: 'x'.repeat(4001) },
    ];
    for (const body of bad) {
      const res = await t.as(a).post('/queue', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).error).toBe('ERR_VALIDATION');
    }
    const q = await createQueue(a);
    for (const body of [{ name: '' }, { color: 'blue' }, { schedules: 'x' }, { orderQueue: 1.5 }])
      await expectError(await t.as(a).put(`/queue/${q.id}`, body), 400, 'ERR_VALIDATION');
    await expectError(
      await t.request('POST', '/queue', { token: a.token, body: '{bad json' }),
      400,
      'ERR_VALIDATION',
    );
    for (const path of ['/queue/abc', '/queue/0', '/queue/99999999999', '/queue/-1'])
      expect((await t.as(a).get(path)).status).toBe(400);
    await expectError(await t.as(a).get('/queue/2147483647'), 404, 'ERR_NO_QUEUE_FOUND');
    await expectError(await t.as(a).put('/queue/2147483647', { name: 'Xy' }), 404, 'ERR_NO_QUEUE_FOUND');
    await expectError(await t.as(a).del('/queue/2147483647'), 404, 'ERR_NO_QUEUE_FOUND');
  });

  test('only admins write; every user of the company reads', async () => {
    const c = await t.company('Roles');
    const q = await createQueue(c.admin);
    for (const profile of ['user', 'supervisor'] as const) {
      const u = await t.user(c.admin, profile);
      expect((await t.as(u).get('/queue')).status).toBe(200);
      expect((await t.as(u).get(`/queue/${q.id}`)).status).toBe(200);
      expect((await t.as(u).get(`/queue-options?queueId=${q.id}`)).status).toBe(200);
      await expectError(
        await t.as(u).post('/queue', { name: 'Nope', color: nextColor() }),
        403,
        'ERR_NO_PERMISSION',
      );
      await expectError(await t.as(u).put(`/queue/${q.id}`, { name: 'Nope' }), 403, 'ERR_NO_PERMISSION');
      await expectError(await t.as(u).del(`/queue/${q.id}`), 403, 'ERR_NO_PERMISSION');
      await expectError(
        await t.as(u).post('/queue-options', { queueId: q.id, title: 'X' }),
        403,
        'ERR_NO_PERMISSION',
      );
    }
    const opt = await createOption(c.admin, { queueId: q.id });
    const u = await t.user(c.admin);
    await expectError(
      await t.as(u).put(`/queue-options/${opt.id}`, { title: 'N' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(u).del(`/queue-options/${opt.id}`), 403, 'ERR_NO_PERMISSION');
    expect((await t.request('GET', '/queue')).status).toBe(401);
  });

  test("the plan's queue limit holds, also under concurrent creations", async () => {
    // Plan 1 allows 3 queues.
    const c = await t.company('Limit', { planId: 1 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.as(c.admin).post('/queue', { name: `Limit ${i}`, color: nextColor() }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of answers.filter((a) => a.status !== 201))
      await expectError(r, 403, 'ERR_QUEUE_LIMIT_REACHED');
    expect(await (await t.as(c.admin).get('/queue')).json()).toHaveLength(3);
    // Deleting one frees a place.
    const [first] = await (await t.as(c.admin).get('/queue')).json();
    expect((await t.as(c.admin).del(`/queue/${first.id}`)).status).toBe(200);
    await createQueue(c.admin);
  });

  test('deleting a queue: gone from users and connections, tickets stay without a queue', async () => {
    const c = await t.company('Delete');
    const q1 = await createQueue(c.admin);
    const q2 = await createQueue(c.admin);
    const userRes = await t.as(c.admin).post('/users', {
      name: 'Queued',
      email: `${unique('q')}@users.test`,
      password: 'User@123',
      queueIds: [q1.id, q2.id],
    });
    expect(userRes.status).toBe(201);
    const user = await userRes.json();
    expect(user.queues.map((q: { id: number }) => q.id).sort()).toEqual([q1.id, q2.id].sort());
    const wRes = await t.as(c.admin).post('/whatsapp', {
      name: 'Conn',
      channel: 'simulator',
      greetingMessage: 'Escolha',
      queueIds: [q1.id, q2.id],
    });
    expect(wRes.status).toBe(201);
    const conn = await wRes.json();
    const opt = await createOption(c.admin, { queueId: q1.id });
    await createOption(c.admin, { queueId: q1.id, parentId: opt.id });

    // A customer's message opens a ticket; put it in the queue.
    expect(
      (await t.as(c.admin).post(`/simulator/${conn.id}/inbound`, { from: '5511987650001', body: 'oi' }))
        .status,
    ).toBe(202);
    let ticket: { id: number } | undefined;
    for (let i = 0; i < 50 && !ticket; i++) {
      [ticket] = await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.companyId, c.id));
      if (!ticket) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ticket).toBeTruthy();
    // The bot answers the first message with the queue menu; wait for it, or a bot still handling that
    // message after the delete would see one queue left and put the ticket in it.
    let menu: { id: number } | undefined;
    for (let i = 0; i < 100 && !menu; i++) {
      [menu] = await db
        .select({ id: messages.id })
        .from(messages)
        .where(and(eq(messages.ticketId, ticket!.id), eq(messages.fromMe, true)));
      if (!menu) await new Promise((r) => setTimeout(r, 100));
    }
    expect(menu).toBeTruthy();
    await db.update(tickets).set({ queueId: q1.id }).where(eq(tickets.id, ticket!.id));

    expect((await t.as(c.admin).del(`/queue/${q1.id}`)).status).toBe(200);
    await expectError(await t.as(c.admin).get(`/queue/${q1.id}`), 404, 'ERR_NO_QUEUE_FOUND');
    const u = await (await t.as(c.admin).get(`/users/${user.id}`)).json();
    expect(u.queues.map((q: { id: number }) => q.id)).toEqual([q2.id]);
    const w = await (await t.as(c.admin).get(`/whatsapp/${conn.id}`)).json();
    expect(w.queues.map((q: { id: number }) => q.id)).toEqual([q2.id]);
    const [tk] = await db.select().from(tickets).where(eq(tickets.id, ticket!.id));
    expect(tk).toMatchObject({ id: ticket!.id, queueId: null });
    expect(await db.select().from(queueOptions).where(eq(queueOptions.queueId, q1.id))).toHaveLength(0);
    // Saving the user with the stale list is refused rather than linking a missing queue.
    await expectError(
      await t.as(c.admin).put(`/users/${user.id}`, { queueIds: [q1.id, q2.id] }),
      400,
      'ERR_VALIDATION',
    );
  });
});

describe('queue options', () => {
  test('a two-level tree: roots with -1, children by parent, numeric order, auto numbering', async () => {
    const c = await t.company('Tree');
    const q = await createQueue(c.admin);
    const r1 = await createOption(c.admin, {
      queueId: q.id,
      parentId: -1,
      title: 'Financeiro',
      message: 'Fin',
    });
    const r2 = await createOption(c.admin, { queueId: q.id, parentId: null, title: 'Técnico' });
    expect([r1.option, r2.option]).toEqual(['1', '2']);
    expect(r1).toMatchObject({ queueId: q.id, parentId: null, title: 'Financeiro', message: 'Fin' });
    const r10 = await createOption(c.admin, { queueId: q.id, title: 'Dez', option: 10 });
    expect(r10.option).toBe('10');
    const c1 = await createOption(c.admin, { queueId: q.id, parentId: r1.id, title: 'Boletos' });
    const c2 = await createOption(c.admin, { queueId: q.id, parentId: r1.id, title: 'Pix', option: '2' });
    const g1 = await createOption(c.admin, { queueId: q.id, parentId: c1.id, title: 'Segunda via' });
    expect([c1.option, c2.option, g1.option]).toEqual(['1', '2', '1']);
    expect(g1.parentId).toBe(c1.id);

    const roots = await (await t.as(c.admin).get(`/queue-options?queueId=${q.id}&parentId=-1`)).json();
    // "10" after "2": numeric order.
    expect(roots.map((o: { title: string }) => o.title)).toEqual(['Financeiro', 'Técnico', 'Dez']);
    const children = await (
      await t.as(c.admin).get(`/queue-options?queueId=${q.id}&parentId=${r1.id}`)
    ).json();
    expect(children.map((o: { id: number }) => o.id)).toEqual([c1.id, c2.id]);
    const all = await (await t.as(c.admin).get(`/queue-options?queueId=${q.id}`)).json();
    expect(all).toHaveLength(6);
    expect((await (await t.as(c.admin).get(`/queue-options/${g1.id}`)).json()).title).toBe('Segunda via');

    // The next root after "10" is "11".
    expect((await createOption(c.admin, { queueId: q.id })).option).toBe('11');

    const edited = await t.as(c.admin).put(`/queue-options/${c2.id}`, { title: 'PIX', message: 'Chave' });
    expect(await edited.json()).toMatchObject({ id: c2.id, title: 'PIX', message: 'Chave', option: '2' });
  });

  test('two siblings cannot share a key; cousins can', async () => {
    const c = await t.company('Keys');
    const q = await createQueue(c.admin);
    const a = await createOption(c.admin, { queueId: q.id, option: '1' });
    const b = await createOption(c.admin, { queueId: q.id, option: '2' });
    await expectError(
      await t.as(c.admin).post('/queue-options', { queueId: q.id, title: 'Dup', option: '1' }),
      409,
      'ERR_QUEUE_OPTION_ALREADY_EXISTS',
    );
    await expectError(
      await t.as(c.admin).put(`/queue-options/${b.id}`, { option: '1' }),
      409,
      'ERR_QUEUE_OPTION_ALREADY_EXISTS',
    );
    await createOption(c.admin, { queueId: q.id, parentId: a.id, option: '1' });
    await createOption(c.admin, { queueId: q.id, parentId: b.id, option: '1' });
    const other = await createQueue(c.admin);
    await createOption(c.admin, { queueId: other.id, option: '1' });
  });

  test('deleting an option takes its whole subtree', async () => {
    const c = await t.company('Cascade');
    const q = await createQueue(c.admin);
    const root = await createOption(c.admin, { queueId: q.id });
    const keep = await createOption(c.admin, { queueId: q.id });
    const child = await createOption(c.admin, { queueId: q.id, parentId: root.id });
    const grand = await createOption(c.admin, { queueId: q.id, parentId: child.id });
    expect((await t.as(c.admin).del(`/queue-options/${root.id}`)).status).toBe(200);
    for (const id of [root.id, child.id, grand.id])
      await expectError(await t.as(c.admin).get(`/queue-options/${id}`), 404, 'ERR_NO_QUEUE_OPTION_FOUND');
    const left = await (await t.as(c.admin).get(`/queue-options?queueId=${q.id}`)).json();
    expect(left.map((o: { id: number }) => o.id)).toEqual([keep.id]);
    await expectError(await t.as(c.admin).del(`/queue-options/${root.id}`), 404, 'ERR_NO_QUEUE_OPTION_FOUND');
  });

  test('a parent must belong to the same queue; bad input is a 4xx', async () => {
    const a = shared.admin;
    const q1 = await createQueue(a);
    const q2 = await createQueue(a);
    const p = await createOption(a, { queueId: q1.id });
    await expectError(
      await t.as(a).post('/queue-options', { queueId: q2.id, parentId: p.id, title: 'X' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(a).post('/queue-options', { queueId: q1.id, parentId: 2147483647, title: 'X' }),
      404,
      'ERR_NO_QUEUE_OPTION_FOUND',
    );
    await expectError(
      await t.as(a).post('/queue-options', { queueId: 2147483647, title: 'X' }),
      404,
      'ERR_NO_QUEUE_FOUND',
    );
    const bad: Record<string, unknown>[] = [
      {},
      { queueId: q1.id },
      { queueId: q1.id, title: '' },
      { queueId: q1.id, title: 'x'.repeat(101) },
      { queueId: 'abc', title: 'X' },
      { queueId: q1.id, title: 'X', parentId: 0 },
      { queueId: q1.id, title: 'X', parentId: -2 },
      { queueId: q1.id, title: 'X', option: '' },
      { queueId: q1.id, title: 'X', option: '12345678901' },
      { queueId: q1.id, title: 'X', option: 1.5 },
      { queueId: q1.id, title: 'X', message: 'x'.repeat(4001) },
    ];
    for (const body of bad) {
      const res = await t.as(a).post('/queue-options', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).error).toBe('ERR_VALIDATION');
    }
    await expectError(await t.as(a).put(`/queue-options/${p.id}`, { title: '' }), 400, 'ERR_VALIDATION');
    for (const q of ['queueId=abc', 'parentId=-5', 'parentId=x', 'queueId=99999999999'])
      await expectError(await t.as(a).get(`/queue-options?${q}`), 400, 'ERR_VALIDATION');
    expect((await t.as(a).get('/queue-options/abc')).status).toBe(400);
    await expectError(
      await t.as(a).put('/queue-options/2147483647', { title: 'X' }),
      404,
      'ERR_NO_QUEUE_OPTION_FOUND',
    );
    // Moving an option is not an update: queueId and parentId are ignored.
    const moved = await (
      await t.as(a).put(`/queue-options/${p.id}`, { queueId: q2.id, parentId: 5, title: 'Kept' })
    ).json();
    expect(moved).toMatchObject({ queueId: q1.id, parentId: null, title: 'Kept' });
  });
});

describe('tenancy', () => {
  test("another company can't read, change, delete or hear a company's queues and options", async () => {
    const a = await t.company('TenantA');
    const b = await t.company('TenantB');
    const sa = await t.socket(a.admin.token);
    const sb = await t.socket(b.admin.token);
    const eventA = `company-${a.id}-queue`;
    // Everything B's socket receives of A's queue event, for the whole test.
    const heardByB: unknown[] = [];
    sb.on(eventA, (p: unknown) => heardByB.push(p));
    const created = nextEvent<{ action: string; queue: { id: number } }>(sa, eventA);
    const q = await createQueue(a.admin, { color: '#ABCDEF' });
    expect(await created).toMatchObject({ action: 'create', queue: { id: q.id, color: '#ABCDEF' } });
    const opt = await createOption(a.admin, { queueId: q.id });
    const updated = nextEvent<{ action: string; queue: { name: string } }>(sa, eventA);
    await t.as(a.admin).put(`/queue/${q.id}`, { name: 'Renamed A' });
    expect(await updated).toMatchObject({ action: 'update', queue: { name: 'Renamed A' } });

    const B = t.as(b.admin);
    await expectError(await B.get(`/queue/${q.id}`), 404, 'ERR_NO_QUEUE_FOUND');
    await expectError(await B.put(`/queue/${q.id}`, { name: 'Hijack' }), 404, 'ERR_NO_QUEUE_FOUND');
    await expectError(await B.del(`/queue/${q.id}`), 404, 'ERR_NO_QUEUE_FOUND');
    expect(await (await B.get('/queue')).json()).toEqual([]);
    // The companyId query is a super user's tool: B still sees only its own.
    expect(await (await B.get(`/queue?companyId=${a.id}`)).json()).toEqual([]);
    expect(await (await B.get(`/queue-options?queueId=${q.id}`)).json()).toEqual([]);
    expect(await (await B.get('/queue-options')).json()).toEqual([]);
    await expectError(await B.get(`/queue-options/${opt.id}`), 404, 'ERR_NO_QUEUE_OPTION_FOUND');
    await expectError(
      await B.put(`/queue-options/${opt.id}`, { title: 'X' }),
      404,
      'ERR_NO_QUEUE_OPTION_FOUND',
    );
    await expectError(await B.del(`/queue-options/${opt.id}`), 404, 'ERR_NO_QUEUE_OPTION_FOUND');
    await expectError(
      await B.post('/queue-options', { queueId: q.id, title: 'X' }),
      404,
      'ERR_NO_QUEUE_FOUND',
    );
    // B's own queue cannot hang under A's option.
    const bCreated = nextEvent<{ action: string; queue: { id: number } }>(sb, `company-${b.id}-queue`);
    const qb = await createQueue(b.admin, { color: '#ABCDEF' });
    expect(await bCreated).toMatchObject({ action: 'create', queue: { id: qb.id } });
    await expectError(
      await B.post('/queue-options', { queueId: qb.id, parentId: opt.id, title: 'X' }),
      404,
      'ERR_NO_QUEUE_OPTION_FOUND',
    );
    // Nor link A's queue to its users or connections.
    await expectError(
      await B.post('/users', {
        name: 'Spy',
        email: `${unique('s')}@x.test`,
        password: 'abcde',
        queueIds: [q.id],
      }),
      400,
      'ERR_VALIDATION',
    );
    expect((await B.post('/whatsapp', { name: 'Spy', channel: 'simulator', queueIds: [q.id] })).status).toBe(
      400,
    );

    const su = await t.superuser();
    const forSuper = await (await t.as(su).get(`/queue?companyId=${a.id}`)).json();
    expect(forSuper.map((x: { id: number }) => x.id)).toEqual([q.id]);

    const deleted = nextEvent<{ action: string; queueId: number }>(sa, eventA);
    expect((await t.as(a.admin).del(`/queue/${q.id}`)).status).toBe(200);
    expect(await deleted).toEqual({ action: 'delete', queueId: q.id });
    // A's last event reached A; give B's socket the same moment before checking it heard nothing.
    await new Promise((r) => setTimeout(r, 200));
    expect(heardByB).toHaveLength(0);
  });

  test('a failed change emits nothing', async () => {
    const c = await t.company('Quiet');
    const q = await createQueue(c.admin, { color: '#0F0F0F' });
    const socket = await t.socket(c.admin.token);
    const seen = collectEvents(socket, `company-${c.id}-queue`, 400);
    expect((await t.as(c.admin).post('/queue', { name: 'Dup', color: '#0f0f0f' })).status).toBe(409);
    expect((await t.as(c.admin).put(`/queue/${q.id}`, { name: 'x' })).status).toBe(400);
    expect(await seen).toHaveLength(0);
  });
});
