import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { TAG_PAGE_SIZE } from '@recado/contracts';
import { contacts, queues, ticketTags, tickets, userQueues } from '../../db/schema/index.js';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  waitFor,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

let numberSeq = 0;
const nextNumber = () => `55119888${String(++numberSeq).padStart(5, '0')}`;

const createTag = async (s: Session, over: Record<string, unknown> = {}) => {
  const res = await t.as(s).post('/tags', { name: unique('Tag '), ...over });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

/** A company with a simulator connection; `ticket()` makes a customer write, opening a pending ticket. */
async function scenario(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  const ticket = async (customer = 'Cliente') => {
    const from = nextNumber();
    const res = await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from, name: customer, body: 'Olá' });
    expect(res.status).toBe(202);
    const row = await waitFor(() => ticketOf(c.id, from));
    return { ...row, number: from };
  };
  return { ...c, whatsappId: w.id as number, ticket };
}

async function ticketOf(companyId: number, number: string) {
  const [r] = await db
    .select({ id: tickets.id, uuid: tickets.uuid, contactId: tickets.contactId })
    .from(tickets)
    .innerJoin(contacts, eq(contacts.id, tickets.contactId))
    .where(and(eq(tickets.companyId, companyId), eq(contacts.number, number)));
  return r;
}

const tagIdsOf = async (ticketId: number) =>
  (await db.select({ id: ticketTags.tagId }).from(ticketTags).where(eq(ticketTags.ticketId, ticketId)))
    .map((r) => r.id)
    .sort((a, b) => a - b);

describe('tags CRUD', () => {
  test('create, read, update, delete; colour upper-case; kanban as 0/1; events to the company', async () => {
    const c = await t.company('Crud');
    const socket = await t.socket(c.admin.token);
    const event = `company-${c.id}-tag`;
    const created = nextEvent<{ action: string; tag: { id: number } }>(socket, event);
    const tag = await createTag(c.admin, { name: '  Urgente ', color: '#a1b2c3', kanban: true });
    expect(tag).toMatchObject({
      name: 'Urgente',
      color: '#A1B2C3',
      kanban: 1,
      userId: c.admin.user.id,
      companyId: c.id,
      ticketsCount: 0,
    });
    expect(await created).toMatchObject({ action: 'create', tag: { id: tag.id, name: 'Urgente' } });
    // Defaults: the standard colour, not a lane.
    const plain = await createTag(c.admin, { name: 'Plain' });
    expect(plain).toMatchObject({ color: '#5C59A0', kanban: 0 });

    expect(await (await t.as(c.admin).get(`/tags/${tag.id}`)).json()).toEqual(tag);
    const updated = nextEvent<{ action: string; tag: { name: string } }>(socket, event);
    const renamed = await (
      await t.as(c.admin).put(`/tags/${tag.id}`, { name: 'Muito urgente', kanban: 0 })
    ).json();
    expect(renamed).toMatchObject({ id: tag.id, name: 'Muito urgente', color: '#A1B2C3', kanban: 0 });
    expect(await updated).toMatchObject({ action: 'update', tag: { name: 'Muito urgente' } });

    const deleted = nextEvent<{ action: string; tagId: number }>(socket, event);
    expect((await t.as(c.admin).del(`/tags/${tag.id}`)).status).toBe(200);
    expect(await deleted).toEqual({ action: 'delete', tagId: tag.id });
    await expectError(await t.as(c.admin).get(`/tags/${tag.id}`), 404, 'ERR_NO_TAG_FOUND');
    await expectError(await t.as(c.admin).del(`/tags/${tag.id}`), 404, 'ERR_NO_TAG_FOUND');
    await expectError(await t.as(c.admin).put(`/tags/${tag.id}`, { name: 'Again' }), 404, 'ERR_NO_TAG_FOUND');
  });

  test('bad input is a 400 ERR_VALIDATION, never a 500', async () => {
    const c = await t.company('Bad');
    const A = t.as(c.admin);
    const tag = await createTag(c.admin);
    const bad: [Promise<Response>, string][] = [
      [A.post('/tags', { name: 'ab' }), 'name too short'],
      [A.post('/tags', {}), 'name missing'],
      [A.post('/tags', { name: 'x'.repeat(51) }), 'name too long'],
      [A.post('/tags', { name: 'Good name', color: 'red' }), 'colour'],
      [A.post('/tags', { name: 'Good name', kanban: 2 }), 'kanban'],
      [A.put(`/tags/${tag.id}`, { name: '  a ' }), 'update name'],
      [A.put(`/tags/${tag.id}`, { color: '#12345' }), 'update colour'],
      [A.get('/tags/abc'), 'id'],
      [A.get('/tags/0'), 'id 0'],
      [A.get('/tags/99999999999'), 'id beyond integer'],
      [A.get('/tags/?pageNumber=0'), 'page 0'],
      [A.get('/tags/?pageNumber=x'), 'page'],
      [A.post('/tags/sync', { ticketId: 'x', tags: [] }), 'sync ticket'],
      [A.post('/tags/sync', { ticketId: 1, tags: 'nope' }), 'sync tags'],
      [A.post('/tags/sync', { ticketId: 1, tags: [-1] }), 'sync tag id'],
      [A.put('/ticket-tags/abc/1'), 'ticket id'],
      [A.put('/ticket-tags/1/0'), 'tag id'],
      [A.del('/ticket-tags/x'), 'clear id'],
      [A.get('/ticket/kanban?queueIds=[1,"a"]'), 'queue ids'],
      [A.get('/ticket/kanban?queueIds={'), 'queue ids json'],
      [A.get('/ticket/kanban?showAll=maybe'), 'showAll'],
    ];
    for (const [res, what] of bad) {
      const r = await res;
      expect({ what, status: r.status }).toEqual({ what, status: 400 });
      expect((await r.json()).error).toBe('ERR_VALIDATION');
    }
  });

  test('names are unique per company whatever the case; another company may reuse one', async () => {
    const c = await t.company('Uniq');
    await createTag(c.admin, { name: 'Cliente VIP' });
    await expectError(
      await t.as(c.admin).post('/tags', { name: 'cliente vip' }),
      409,
      'ERR_TAG_ALREADY_EXISTS',
    );
    const other = await createTag(c.admin, { name: 'Outro' });
    await expectError(
      await t.as(c.admin).put(`/tags/${other.id}`, { name: 'CLIENTE VIP' }),
      409,
      'ERR_TAG_ALREADY_EXISTS',
    );
    const d = await t.company('Uniq2');
    await createTag(d.admin, { name: 'Cliente VIP' });
  });

  test('list: by name, search (any case, % literal), 20 a page with hasMore; /tags/list has them all', async () => {
    const c = await t.company('List');
    const names = Array.from(
      { length: TAG_PAGE_SIZE + 3 },
      (_, i) => `Etiqueta ${String(i).padStart(2, '0')}`,
    );
    for (const name of names.slice().reverse()) await createTag(c.admin, { name });
    await createTag(c.admin, { name: '100% certo' });
    const p1 = await (await t.as(c.admin).get('/tags/?pageNumber=1')).json();
    expect(p1.tags).toHaveLength(TAG_PAGE_SIZE);
    expect(p1.hasMore).toBe(true);
    expect(p1.tags[0].name).toBe('100% certo');
    expect(p1.tags[1].name).toBe('Etiqueta 00');
    const p2 = await (await t.as(c.admin).get('/tags?pageNumber=2')).json();
    expect(p2.hasMore).toBe(false);
    expect(p2.tags.map((x: { name: string }) => x.name)).toEqual(names.slice(TAG_PAGE_SIZE - 1));
    const found = await (await t.as(c.admin).get('/tags/?searchParam=ETIQUETA%201')).json();
    expect(found.tags.map((x: { name: string }) => x.name)).toEqual(names.slice(10, 20));
    const pct = await (await t.as(c.admin).get(`/tags/?searchParam=${encodeURIComponent('0%')}`)).json();
    expect(pct.tags.map((x: { name: string }) => x.name)).toEqual(['100% certo']);
    const all = await (await t.as(c.admin).get('/tags/list')).json();
    expect(all).toHaveLength(names.length + 1);
    // The spec's client sends companyId: accepted, and never another company's tags.
    const d = await t.company('List2');
    expect((await (await t.as(d.admin).get(`/tags?companyId=${c.id}`)).json()).tags).toEqual([]);
  });

  test('the kanban flag: admins and supervisors set it; plain users may not change it', async () => {
    const c = await t.company('Perm');
    const user = await t.user(c.admin, 'user');
    const supervisor = await t.user(c.admin, 'supervisor');
    await expectError(
      await t.as(user).post('/tags', { name: 'Lane U', kanban: 1 }),
      403,
      'ERR_NO_PERMISSION',
    );
    const own = await createTag(user, { name: 'By user', kanban: 0 });
    expect(own).toMatchObject({ kanban: 0, userId: user.user.id });
    await expectError(await t.as(user).put(`/tags/${own.id}`, { kanban: 1 }), 403, 'ERR_NO_PERMISSION');
    // Renaming with the flag unchanged (a whole form) is fine.
    expect((await t.as(user).put(`/tags/${own.id}`, { name: 'By user 2', kanban: 0 })).status).toBe(200);
    const lane = await createTag(supervisor, { name: 'Lane S', kanban: 1 });
    expect(lane.kanban).toBe(1);
    await expectError(await t.as(user).put(`/tags/${lane.id}`, { kanban: false }), 403, 'ERR_NO_PERMISSION');
    expect(await (await t.as(supervisor).put(`/tags/${own.id}`, { kanban: true })).json()).toMatchObject({
      kanban: 1,
    });
    expect(await (await t.as(c.admin).put(`/tags/${own.id}`, { kanban: '0' })).json()).toMatchObject({
      kanban: 0,
    });
  });
});

describe('who manages tags', () => {
  test('a plain user changes and deletes only the plain tags they made; lanes and others’ tags are refused', async () => {
    const c = await t.company('TagRole');
    const user = await t.user(c.admin, 'user');
    const supervisor = await t.user(c.admin, 'supervisor');
    const lane = await createTag(c.admin, { name: 'Lane A', kanban: 1 });
    const adminTag = await createTag(c.admin, { name: 'Admin tag', kanban: 0 });
    const own = await createTag(user, { name: 'Mine', kanban: 0 });
    for (const tag of [lane, adminTag]) {
      await expectError(await t.as(user).del(`/tags/${tag.id}`), 403, 'ERR_NO_PERMISSION');
      await expectError(
        await t.as(user).put(`/tags/${tag.id}`, { name: 'Hijack' }),
        403,
        'ERR_NO_PERMISSION',
      );
    }
    // Still there, unchanged.
    expect((await (await t.as(c.admin).get(`/tags/${lane.id}`)).json()).name).toBe('Lane A');
    expect((await t.as(user).del(`/tags/${own.id}`)).status).toBe(200);
    // Supervisors and admins manage every tag, lanes included.
    expect((await t.as(supervisor).del(`/tags/${adminTag.id}`)).status).toBe(200);
    expect((await t.as(c.admin).del(`/tags/${lane.id}`)).status).toBe(200);
    // Another company's admin finds nothing.
    const other = await createTag(c.admin, { name: 'Other' });
    const d = await t.company('TagRole2');
    await expectError(await t.as(d.admin).del(`/tags/${other.id}`), 404, 'ERR_NO_TAG_FOUND');
  });
});

describe('tags on tickets', () => {
  test('sync sets the whole set; counts and ticket events follow; delete of a tag untags its tickets', async () => {
    const s = await scenario('Sync');
    const tk = await s.ticket('Ana');
    const [a, b, c] = [await createTag(s.admin), await createTag(s.admin), await createTag(s.admin)];
    const socket = await t.socket(s.admin.token);
    await new Promise<void>((r) => socket.emit('joinChatBox', tk.id, () => r()));
    const ticketEvent = nextEvent<{ action: string; ticket: { id: number; tags: { id: number }[] } }>(
      socket,
      `company-${s.id}-ticket`,
    );
    const counted = nextEvent<{ action: string; tag: { id: number; ticketsCount: number } }>(
      socket,
      `company-${s.id}-tag`,
    );
    const view = await (
      await t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [{ id: a.id }, b.id] })
    ).json();
    expect(view.id).toBe(tk.id);
    expect(view.tags.map((x: { id: number }) => x.id).sort()).toEqual([a.id, b.id].sort());
    const ev = await ticketEvent;
    expect(ev.action).toBe('update');
    expect(ev.ticket.tags.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect((await counted).tag.ticketsCount).toBe(1);
    expect((await (await t.as(s.admin).get(`/tags/${a.id}`)).json()).ticketsCount).toBe(1);

    await t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [b.id, c.id] });
    expect(await tagIdsOf(tk.id)).toEqual([b.id, c.id].sort((x, y) => x - y));
    expect((await (await t.as(s.admin).get(`/tags/${a.id}`)).json()).ticketsCount).toBe(0);
    // The ticket list filter by tag finds it.
    const filtered = await (await t.as(s.admin).get(`/tickets?showAll=true&tags=[${c.id}]`)).json();
    expect(filtered.tickets.map((x: { id: number }) => x.id)).toEqual([tk.id]);

    // Syncing the same set again changes nothing and says nothing.
    const quiet = collectEvents(socket, `company-${s.id}-ticket`, 400);
    await t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [c.id, b.id] });
    expect(await quiet).toEqual([]);

    await t.as(s.admin).del(`/tags/${c.id}`);
    expect(await tagIdsOf(tk.id)).toEqual([b.id]);
    const cleared = await (await t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [] })).json();
    expect(cleared.tags).toEqual([]);
  });

  test('sync refuses unknown tags, two kanban lanes, and unknown tickets', async () => {
    const s = await scenario('SyncBad');
    const tk = await s.ticket();
    const lane1 = await createTag(s.admin, { kanban: 1 });
    const lane2 = await createTag(s.admin, { kanban: 1 });
    const plain = await createTag(s.admin);
    await expectError(
      await t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [plain.id, 2147483000] }),
      404,
      'ERR_NO_TAG_FOUND',
    );
    await expectError(
      await t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [lane1.id, lane2.id] }),
      400,
      'ERR_VALIDATION',
    );
    expect(await tagIdsOf(tk.id)).toEqual([]);
    await expectError(
      await t.as(s.admin).post('/tags/sync', { ticketId: 2147483000, tags: [] }),
      404,
      'ERR_NO_TICKET_FOUND',
    );
    await expectError(await t.as(s.admin).put(`/ticket-tags/${tk.id}/2147483000`), 404, 'ERR_NO_TAG_FOUND');
    await expectError(
      await t.as(s.admin).put(`/ticket-tags/2147483000/${plain.id}`),
      404,
      'ERR_NO_TICKET_FOUND',
    );
  });

  test('a user who may not see a ticket may not tag it', async () => {
    const s = await scenario('Vis');
    const tk = await s.ticket();
    const [q] = await db
      .insert(queues)
      .values({ companyId: s.id, name: 'Fila X', color: '#101010' })
      .returning();
    await db.update(tickets).set({ queueId: q!.id }).where(eq(tickets.id, tk.id));
    const user = await t.user(s.admin, 'user');
    const tag = await createTag(s.admin);
    await expectError(
      await t.as(user).post('/tags/sync', { ticketId: tk.id, tags: [tag.id] }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(user).put(`/ticket-tags/${tk.id}/${tag.id}`), 403, 'ERR_NO_PERMISSION');
    expect(await tagIdsOf(tk.id)).toEqual([]);
  });
});

describe('kanban', () => {
  test('lanes, the board, moving a card keeps the other tags; DELETE sends it back to the open lane', async () => {
    const s = await scenario('Board');
    const tk = await s.ticket('Bruno');
    const todo = await createTag(s.admin, { name: 'A fazer', kanban: 1 });
    const doing = await createTag(s.admin, { name: 'Fazendo', kanban: 1 });
    const label = await createTag(s.admin, { name: 'VIP' });
    const lanes = await (await t.as(s.admin).get('/tags/kanban')).json();
    expect(lanes.lista.map((l: { id: number }) => l.id)).toEqual([todo.id, doing.id]);

    const board = await (await t.as(s.admin).get('/ticket/kanban?showAll=true')).json();
    expect(board.hasMore).toBe(false);
    const card = board.tickets.find((x: { id: number }) => x.id === tk.id);
    expect(card).toMatchObject({ uuid: tk.uuid, contact: { name: 'Bruno', number: tk.number }, tags: [] });
    expect(card.lastMessage).toBe('Olá');

    await t.as(s.admin).put(`/ticket-tags/${tk.id}/${label.id}`);
    await t.as(s.admin).put(`/ticket-tags/${tk.id}/${todo.id}`);
    const moved = await (await t.as(s.admin).put(`/ticket-tags/${tk.id}/${doing.id}`)).json();
    expect(moved.tags.map((x: { id: number }) => x.id).sort()).toEqual([doing.id, label.id].sort());
    // Again: nothing changes.
    await t.as(s.admin).put(`/ticket-tags/${tk.id}/${doing.id}`);
    expect(await tagIdsOf(tk.id)).toEqual([doing.id, label.id].sort((a, b) => a - b));

    const back = await (await t.as(s.admin).del(`/ticket-tags/${tk.id}`)).json();
    expect(back.tags.map((x: { id: number }) => x.id)).toEqual([label.id]);
    const removed = await (await t.as(s.admin).del(`/ticket-tags/${tk.id}/${label.id}`)).json();
    expect(removed.tags).toEqual([]);

    // Closed tickets leave the board.
    await t.as(s.admin).put(`/tickets/${tk.id}`, { status: 'closed' });
    const after = await (await t.as(s.admin).get('/ticket/kanban?showAll=true')).json();
    expect(after.tickets.map((x: { id: number }) => x.id)).not.toContain(tk.id);
  });

  test('concurrent moves of one card end with it in exactly one lane', async () => {
    const s = await scenario('Race');
    const tk = await s.ticket();
    const lanes: { id: number }[] = [];
    for (let i = 0; i < 4; i++) lanes.push(await createTag(s.admin, { name: `Lane ${i}`, kanban: 1 }));
    const label = await createTag(s.admin, { name: 'Etiqueta' });
    await t.as(s.admin).put(`/ticket-tags/${tk.id}/${label.id}`);
    const second = await t.user(s.admin, 'admin');
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([
        ...lanes.map((l, i) => t.as(i % 2 ? second : s.admin).put(`/ticket-tags/${tk.id}/${l.id}`)),
        t.as(second).del(`/ticket-tags/${tk.id}`),
        t.as(s.admin).post('/tags/sync', { ticketId: tk.id, tags: [label.id, lanes[round % 4]!.id] }),
      ]);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      const ids = await tagIdsOf(tk.id);
      const inLanes = ids.filter((id) => lanes.some((l) => l.id === id));
      expect(inLanes.length).toBeLessThanOrEqual(1);
      expect(ids).toContain(label.id);
    }
    // Two moves only (no clear): it ends in one of the two lanes, never both, never none.
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        t.as(s.admin).put(`/ticket-tags/${tk.id}/${lanes[0]!.id}`),
        t.as(second).put(`/ticket-tags/${tk.id}/${lanes[1]!.id}`),
      ]);
      const inLanes = (await tagIdsOf(tk.id)).filter((id) => lanes.some((l) => l.id === id));
      expect(inLanes).toHaveLength(1);
      expect([lanes[0]!.id, lanes[1]!.id]).toContain(inLanes[0]);
    }
  });

  test('showAll is for admins; other users see their queues (and queueless when allowed)', async () => {
    const s = await scenario('Queues');
    const [mine, other, none] = [await s.ticket('Mine'), await s.ticket('Other'), await s.ticket('None')];
    const [q1] = await db
      .insert(queues)
      .values({ companyId: s.id, name: 'Q1', color: '#111111' })
      .returning();
    const [q2] = await db
      .insert(queues)
      .values({ companyId: s.id, name: 'Q2', color: '#222222' })
      .returning();
    await db.update(tickets).set({ queueId: q1!.id }).where(eq(tickets.id, mine.id));
    await db.update(tickets).set({ queueId: q2!.id }).where(eq(tickets.id, other.id));
    const user = await t.user(s.admin, 'user');
    await db.insert(userQueues).values({ userId: user.user.id, queueId: q1!.id });
    const ids = async (who: Session, query: string) =>
      ((await (await t.as(who).get(`/ticket/kanban${query}`)).json()).tickets as { id: number }[])
        .map((x) => x.id)
        .sort((a, b) => a - b);
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
    expect(await ids(s.admin, '?showAll=true')).toEqual(sorted([mine.id, other.id, none.id]));
    expect(await ids(s.admin, `?showAll=true&queueIds=[${q2!.id}]`)).toEqual(sorted([other.id, none.id]));
    expect(await ids(user, '?showAll=true')).toEqual(sorted([mine.id, none.id]));
    expect(await ids(user, `?queueIds=${JSON.stringify([q1!.id, q2!.id])}`)).toEqual(
      sorted([mine.id, none.id]),
    );
  });

  test('a company whose plan has no kanban gets ERR_NO_PERMISSION from the kanban calls', async () => {
    const su = await t.superuser();
    const plan = await (
      await t.as(su).post('/plans', {
        name: unique('Sem kanban '),
        users: 5,
        connections: 2,
        queues: 3,
        value: 10,
        useKanban: false,
      })
    ).json();
    const c = await t.company('NoKanban', { planId: plan.id });
    await expectError(await t.as(c.admin).get('/ticket/kanban'), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).get('/tags/kanban'), 403, 'ERR_NO_PERMISSION');
    // Tags themselves are not a plan feature.
    await createTag(c.admin, { name: 'Still fine' });
    const ok = await t.company('WithKanban');
    expect((await t.as(ok.admin).get('/ticket/kanban')).status).toBe(200);
  });
});

describe('tenancy', () => {
  test("another company cannot read, change, tag with, or hear a company's tags and ticket tags", async () => {
    const a = await scenario('TenantA');
    const b = await scenario('TenantB');
    const tkA = await a.ticket('Cliente A');
    const tkB = await b.ticket('Cliente B');
    const sa = await t.socket(a.admin.token);
    const sb = await t.socket(b.admin.token);
    const heardByB: unknown[] = [];
    for (const entity of ['tag', 'ticket'])
      sb.on(`company-${a.id}-${entity}`, (p: unknown) => heardByB.push(p));
    // B cannot join A's ticket room.
    const joined = await new Promise<{ ok: boolean }>((r) => sb.emit('joinChatBox', tkA.id, r));
    expect(joined.ok).toBe(false);

    const created = nextEvent(sa, `company-${a.id}-tag`);
    const tagA = await createTag(a.admin, { name: 'Lane A', kanban: 1 });
    await created;
    await t.as(a.admin).put(`/ticket-tags/${tkA.id}/${tagA.id}`);
    const tagB = await createTag(b.admin, { name: 'Lane B', kanban: 1 });

    const B = t.as(b.admin);
    await expectError(await B.get(`/tags/${tagA.id}`), 404, 'ERR_NO_TAG_FOUND');
    await expectError(await B.put(`/tags/${tagA.id}`, { name: 'Hijack' }), 404, 'ERR_NO_TAG_FOUND');
    await expectError(await B.del(`/tags/${tagA.id}`), 404, 'ERR_NO_TAG_FOUND');
    expect((await (await B.get('/tags/')).json()).tags.map((x: { id: number }) => x.id)).toEqual([tagB.id]);
    expect((await (await B.get('/tags/list')).json()).map((x: { id: number }) => x.id)).toEqual([tagB.id]);
    expect((await (await B.get('/tags/kanban')).json()).lista.map((x: { id: number }) => x.id)).toEqual([
      tagB.id,
    ]);
    const boardB = await (await B.get('/ticket/kanban?showAll=true')).json();
    expect(boardB.tickets.map((x: { id: number }) => x.id)).toEqual([tkB.id]);
    // A's ticket with B's tag, B's ticket with A's tag, A's ticket with A's tag: all refused.
    await expectError(await B.put(`/ticket-tags/${tkA.id}/${tagB.id}`), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(await B.put(`/ticket-tags/${tkB.id}/${tagA.id}`), 404, 'ERR_NO_TAG_FOUND');
    await expectError(await B.del(`/ticket-tags/${tkA.id}/${tagA.id}`), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(await B.del(`/ticket-tags/${tkA.id}`), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(await B.post('/tags/sync', { ticketId: tkA.id, tags: [] }), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(
      await B.post('/tags/sync', { ticketId: tkB.id, tags: [tagA.id] }),
      404,
      'ERR_NO_TAG_FOUND',
    );
    expect(await tagIdsOf(tkA.id)).toEqual([tagA.id]);
    expect(await tagIdsOf(tkB.id)).toEqual([]);
    expect((await (await t.as(a.admin).get(`/tags/${tagA.id}`)).json()).name).toBe('Lane A');

    // A changes more while B listens: B hears none of it.
    await t.as(a.admin).put(`/tags/${tagA.id}`, { name: 'Lane A2' });
    await t.as(a.admin).del(`/ticket-tags/${tkA.id}`);
    await collectEvents(sb, `company-${b.id}-tag`, 300);
    expect(heardByB).toEqual([]);
  });
});
