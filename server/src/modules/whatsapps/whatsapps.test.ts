import { describe, expect, test } from 'vitest';
import { queues } from '../../db/schema/index.js';
import { collectEvents, nextEvent, testApp } from '../../../test/helpers.js';

const t = await testApp();

describe('connections (/whatsapp)', () => {
  test('defaults of docs/product.md#entities, the first connection is the default one, and answers never carry lease data', async () => {
    const a = await t.company('WaA');
    const res = await t.as(a.admin).post('/whatsapp', { name: 'Vendas', channel: 'simulator' });
    expect(res.status).toBe(201);
    const w = await res.json();
    expect(w).toMatchObject({
      isDefault: true,
      expiresTicket: 0,
      timeUseBotQueues: 0,
      maxUseBotQueues: 3,
      provider: 'beta',
      channel: 'simulator',
    });
    expect(w).not.toHaveProperty('leaseOwner');
    const list = await (await t.as(a.admin).get('/whatsapp')).json();
    expect(list.map((x: { id: number }) => x.id)).toEqual([w.id]);
    expect((await t.as(a.admin).get('/whatsapp/?session=0')).status).toBe(200);
  });

  test('one default at a time; the only default cannot be unset; deleting it promotes another', async () => {
    const a = await t.company('WaB');
    const w1 = await (await t.as(a.admin).post('/whatsapp', { name: 'One', channel: 'simulator' })).json();
    const w2 = await (
      await t.as(a.admin).post('/whatsapp', { name: 'Two', channel: 'simulator', isDefault: true })
    ).json();
    let list = await (await t.as(a.admin).get('/whatsapp')).json();
    expect(list.filter((x: { isDefault: boolean }) => x.isDefault).map((x: { id: number }) => x.id)).toEqual([
      w2.id,
    ]);
    const unset = await t.as(a.admin).put(`/whatsapp/${w2.id}`, { isDefault: false });
    expect(unset.status).toBe(400);
    expect((await unset.json()).error).toBe('ERR_NO_OTHER_WHATSAPP');
    expect((await t.as(a.admin).del(`/whatsapp/${w2.id}`)).status).toBe(200);
    list = await (await t.as(a.admin).get('/whatsapp')).json();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: w1.id, isDefault: true });
  });

  test('greeting required with more than one queue; foreign queues refused', async () => {
    const a = await t.company('WaC');
    const b = await t.company('WaD');
    const [q1, q2] = await t.database.db
      .insert(queues)
      .values([
        { companyId: a.id, name: 'Suporte', color: '#111111' },
        { companyId: a.id, name: 'Vendas', color: '#222222' },
      ])
      .returning();
    const [foreign] = await t.database.db
      .insert(queues)
      .values({ companyId: b.id, name: 'X', color: '#333333' })
      .returning();
    const noGreeting = await t
      .as(a.admin)
      .post('/whatsapp', { name: 'QQ', channel: 'simulator', queueIds: [q1!.id, q2!.id] });
    expect((await noGreeting.json()).error).toBe('ERR_WAPP_GREETING_REQUIRED');
    const ok = await t.as(a.admin).post('/whatsapp', {
      name: 'QQ',
      channel: 'simulator',
      queueIds: [q1!.id, q2!.id],
      greetingMessage: 'Olá! Escolha:',
    });
    expect(ok.status).toBe(201);
    expect((await ok.json()).queues).toHaveLength(2);
    const bad = await t
      .as(a.admin)
      .post('/whatsapp', { name: 'F', channel: 'simulator', queueIds: [foreign!.id] });
    expect(bad.status).toBe(400);
  });

  test('the plan connection limit holds', async () => {
    // Plan 7 (trial) allows one connection.
    const a = await t.company('WaE', { planId: 7 });
    expect((await t.as(a.admin).post('/whatsapp', { name: 'First', channel: 'simulator' })).status).toBe(201);
    const second = await t.as(a.admin).post('/whatsapp', { name: 'Second', channel: 'simulator' });
    expect(second.status).toBe(403);
    expect((await second.json()).error).toBe('ERR_NO_PERMISSION');
  });

  test('bad input answers 400, plain users cannot manage connections', async () => {
    const a = await t.company('WaF');
    for (const body of [
      {},
      { name: 'x' },
      { name: 'ok name', channel: 'telegram' },
      { name: 'ok', maxUseBotQueues: -1 },
      { name: 'y'.repeat(51) },
    ])
      expect((await t.as(a.admin).post('/whatsapp', body)).status).toBe(400);
    expect((await t.as(a.admin).get('/whatsapp/abc')).status).toBe(400);
    expect((await t.as(a.admin).get('/whatsapp/424242')).status).toBe(404);
    const user = await t.user(a.admin, 'user');
    expect((await t.as(user).post('/whatsapp', { name: 'Nope', channel: 'simulator' })).status).toBe(403);
  });

  test('session actions: disconnect, start again, new QR; events reach admins of the company only', async () => {
    const a = await t.company('WaG');
    const b = await t.company('WaH');
    const w = await (await t.as(a.admin).post('/whatsapp', { name: 'Sessão', channel: 'simulator' })).json();
    const sa = await t.socket(a.admin.token);
    const sb = await t.socket(b.admin.token);
    const heardByB = collectEvents(sb, `company-${a.id}-whatsappSession`, 800);
    const update = nextEvent<{ action: string; session: { status: string } }>(
      sa,
      `company-${a.id}-whatsappSession`,
    );
    const off = await t.as(a.admin).del(`/whatsappsession/${w.id}`);
    expect(off.status, await off.clone().text()).toBe(200);
    expect((await off.json()).status).toBe('DISCONNECTED');
    expect((await update).session.status).toBe('DISCONNECTED');
    const on = await t.as(a.admin).post(`/whatsappsession/${w.id}`);
    expect(on.status).toBe(200);
    expect((await (await t.as(a.admin).get(`/whatsapp/${w.id}`)).json()).status).toBe('CONNECTED');
    expect((await t.as(a.admin).put(`/whatsappsession/${w.id}`)).status).toBe(200);
    expect((await t.as(b.admin).post(`/whatsappsession/${w.id}`)).status).toBe(404);
    expect(await heardByB).toHaveLength(0);
  });
});

test('a rename changes only the name (no defaults applied to what was not sent)', async () => {
  const a = await t.company('WaPatch');
  const [q1, q2] = await t.database.db
    .insert(queues)
    .values([
      { companyId: a.id, name: 'P1', color: '#121212' },
      { companyId: a.id, name: 'P2', color: '#131313' },
    ])
    .returning();
  const w = await (
    await t.as(a.admin).post('/whatsapp', {
      name: 'Original',
      channel: 'simulator',
      greetingMessage: 'Oi!',
      queueIds: [q1!.id, q2!.id],
      maxUseBotQueues: 5,
    })
  ).json();
  const res = await t.as(a.admin).put(`/whatsapp/${w.id}`, { name: 'Renamed' });
  expect(res.status).toBe(200);
  const after = await res.json();
  expect(after).toMatchObject({
    name: 'Renamed',
    greetingMessage: 'Oi!',
    isDefault: true,
    maxUseBotQueues: 5,
  });
  expect(after.queues).toHaveLength(2);
});
