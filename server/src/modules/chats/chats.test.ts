import { describe, expect, test } from 'vitest';
import type { Socket } from 'socket.io-client';
import { chatIdEvent, chatUserEvent, companyEvent, PAGE_SIZE, type Chat } from '@recado/contracts';
import {
  collectEvents,
  expectError,
  nextEvent,
  testApp,
  unique,
  waitFor,
  type Session,
} from '../../../test/helpers.js';

const t = await testApp();

/** A company with an admin and three users (A writes to B; C is a member of nothing). */
async function setup(name: string) {
  const c = await t.company(name);
  const a = await t.user(c.admin);
  const b = await t.user(c.admin);
  const outsider = await t.user(c.admin);
  return { ...c, a, b, outsider };
}

const ref = (s: Session) => ({ id: s.user.id, name: 'x' });
const createChat = async (owner: Session, members: Session[], title = unique('Chat ')) => {
  const res = await t.as(owner).post('/chats', { title, users: members.map(ref) });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Chat;
};
const joinRoom = (s: Socket, room: string) =>
  new Promise<boolean>((resolve) => s.emit('join', room, (r?: { ok?: boolean }) => resolve(Boolean(r?.ok))));

describe('internal chat API', async () => {
  const c = await setup('Chat');

  test('create: the creator is owner and member; title and users validated', async () => {
    const chat = await createChat(c.a, [c.b], '  Equipe  ');
    expect(chat.title).toBe('Equipe');
    expect(chat.ownerId).toBe(c.a.user.id);
    expect(chat.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(chat.users.map((u) => u.userId).sort()).toEqual([c.a.user.id, c.b.user.id].sort());
    expect(chat.users.every((u) => u.unreads === 0)).toBe(true);

    const api = t.as(c.a);
    await expectError(await api.post('/chats', { title: '', users: [ref(c.b)] }), 400, 'ERR_VALIDATION');
    await expectError(await api.post('/chats', { title: '   ', users: [ref(c.b)] }), 400, 'ERR_VALIDATION');
    await expectError(await api.post('/chats', { title: 'x' }), 400, 'ERR_VALIDATION');
    await expectError(await api.post('/chats', { title: 'x', users: [] }), 400, 'ERR_VALIDATION');
    await expectError(await api.post('/chats', { title: 'x', users: [{ id: 'a' }] }), 400, 'ERR_VALIDATION');
    await expectError(
      await api.post('/chats', { title: 'x'.repeat(101), users: [ref(c.b)] }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await api.post('/chats', { title: 'x', users: [{ id: 999999 }] }),
      404,
      'ERR_NO_USER_FOUND',
    );
  });

  test('list: newest activity first, search by title, pages of 20 with hasMore', async () => {
    const owner = await t.user(c.admin);
    const first = await createChat(owner, [c.b], unique('Alpha '));
    const second = await createChat(owner, [c.b], unique('Beta '));
    let list = await (await t.as(owner).get('/chats')).json();
    expect(list.records.map((r: Chat) => r.id)).toEqual([second.id, first.id]);
    expect(list.hasMore).toBe(false);
    // A message makes the older chat the newest.
    expect((await t.as(owner).post(`/chats/${first.id}/messages`, { message: 'oi' })).status).toBe(201);
    list = await (await t.as(owner).get('/chats')).json();
    expect(list.records.map((r: Chat) => r.id)).toEqual([first.id, second.id]);
    expect(list.records[0].lastMessage).toBe('oi');
    const found = await (await t.as(owner).get(`/chats?searchParam=${encodeURIComponent('beta')}`)).json();
    expect(found.records.map((r: Chat) => r.id)).toEqual([second.id]);

    for (let i = 0; i < PAGE_SIZE; i++) await createChat(owner, [c.b]);
    const page1 = await (await t.as(owner).get('/chats?pageNumber=1')).json();
    const page2 = await (await t.as(owner).get('/chats?pageNumber=2')).json();
    expect(page1.records).toHaveLength(PAGE_SIZE);
    expect(page1.hasMore).toBe(true);
    expect(page2.records).toHaveLength(2);
    expect(page2.hasMore).toBe(false);
    await expectError(await t.as(owner).get('/chats?pageNumber=0'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(owner).get('/chats?pageNumber=x'), 400, 'ERR_VALIDATION');
  });

  test('messages: whitespace-only refused, newest page first in time order, unknown ids 404', async () => {
    const chat = await createChat(c.a, [c.b]);
    const api = t.as(c.a);
    await expectError(
      await api.post(`/chats/${chat.id}/messages`, { message: '   ' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await api.post(`/chats/${chat.id}/messages`, {}), 400, 'ERR_VALIDATION');
    await expectError(
      await api.post(`/chats/${chat.id}/messages`, { message: 'x'.repeat(4001) }),
      400,
      'ERR_VALIDATION',
    );
    for (let i = 1; i <= PAGE_SIZE + 3; i++)
      expect((await api.post(`/chats/${chat.id}/messages`, { message: ` m${i} ` })).status).toBe(201);
    const page1 = await (await t.as(c.b).get(`/chats/${chat.id}/messages`)).json();
    expect(page1.hasMore).toBe(true);
    expect(page1.records).toHaveLength(PAGE_SIZE);
    expect(page1.records[0].message).toBe('m4');
    expect(page1.records.at(-1).message).toBe(`m${PAGE_SIZE + 3}`);
    expect(page1.records.at(-1).sender).toEqual({ id: c.a.user.id, name: expect.any(String) });
    const page2 = await (await t.as(c.b).get(`/chats/${chat.id}/messages?pageNumber=2`)).json();
    expect(page2.records.map((m: { message: string }) => m.message)).toEqual(['m1', 'm2', 'm3']);
    expect(page2.hasMore).toBe(false);
    // The web route names chats by uuid.
    expect((await api.get(`/chats/${chat.uuid}`)).status).toBe(200);
    expect((await (await api.get(`/chats/${chat.uuid}/messages`)).json()).records).toHaveLength(PAGE_SIZE);

    await expectError(await api.get('/chats/999999/messages'), 404, 'ERR_NOT_FOUND');
    await expectError(await api.post('/chats/999999/messages', { message: 'oi' }), 404, 'ERR_NOT_FOUND');
    await expectError(await api.get('/chats/99999999999'), 400, 'ERR_VALIDATION');
    await expectError(await api.get('/chats/abc'), 400, 'ERR_VALIDATION');
    await expectError(await api.get('/chats/0'), 404, 'ERR_NOT_FOUND');
    await expectError(await api.get('/chats/3000000000'), 404, 'ERR_NOT_FOUND');
    await expectError(await api.get(`/chats/${chat.id}/messages?pageNumber=-1`), 400, 'ERR_VALIDATION');
  });

  test('only the owner edits and deletes; members are users of the company', async () => {
    const chat = await createChat(c.a, [c.b]);
    await expectError(await t.as(c.b).put(`/chats/${chat.id}`, { title: 'Nope' }), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.b).del(`/chats/${chat.id}`), 403, 'ERR_NO_PERMISSION');
    // An admin who is not a member does not see it at all.
    await expectError(await t.as(c.admin).put(`/chats/${chat.id}`, { title: 'Nope' }), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(c.admin).del(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(c.a).put(`/chats/${chat.id}`, { title: '' }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.a).put(`/chats/${chat.id}`, { users: [] }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.a).put('/chats/999999', { title: 'x' }), 404, 'ERR_NOT_FOUND');

    const renamed = await (
      await t.as(c.a).put(`/chats/${chat.id}`, { title: 'Novo', users: [ref(c.outsider)] })
    ).json();
    expect(renamed.title).toBe('Novo');
    // The owner always stays; B left, the outsider came in.
    expect(renamed.users.map((u: { userId: number }) => u.userId).sort()).toEqual(
      [c.a.user.id, c.outsider.user.id].sort(),
    );
    await expectError(await t.as(c.b).get(`/chats/${chat.id}/messages`), 404, 'ERR_NOT_FOUND');
    expect((await t.as(c.outsider).get(`/chats/${chat.id}/messages`)).status).toBe(200);

    expect((await t.as(c.a).del(`/chats/${chat.id}`)).status).toBe(200);
    await expectError(await t.as(c.a).get(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(c.a).del(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');
  });

  test('a same-company non-member sees nothing and hears nothing', async () => {
    const chat = await createChat(c.a, [c.b]);
    const o = t.as(c.outsider);
    const listed = await (await o.get('/chats')).json();
    expect(listed.records.some((r: Chat) => r.id === chat.id)).toBe(false);
    await expectError(await o.get(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(await o.get(`/chats/${chat.id}/messages`), 404, 'ERR_NOT_FOUND');
    await expectError(await o.post(`/chats/${chat.id}/messages`, { message: 'oi' }), 404, 'ERR_NOT_FOUND');
    await expectError(await o.post(`/chats/${chat.id}/read`, {}), 404, 'ERR_NOT_FOUND');
    await expectError(await o.put(`/chats/${chat.id}`, { title: 'x' }), 404, 'ERR_NOT_FOUND');
    await expectError(await o.del(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');

    const socket = await t.socket(c.outsider.token);
    expect(await joinRoom(socket, `chat-${chat.id}`)).toBe(false);
    const heard = [
      collectEvents(socket, companyEvent(c.id, 'chat')),
      collectEvents(socket, chatIdEvent(c.id, chat.id)),
      collectEvents(socket, chatUserEvent(c.id, c.outsider.user.id)),
      collectEvents(socket, chatUserEvent(c.id, c.b.user.id)),
    ];
    expect((await t.as(c.a).post(`/chats/${chat.id}/messages`, { message: 'segredo' })).status).toBe(201);
    expect(await Promise.all(heard)).toEqual([[], [], [], []]);
  });

  test('a company without useInternalChat gets ERR_NO_PERMISSION', async () => {
    const su = await t.superuser();
    const plan = await (
      await t.as(su).post('/plans', {
        name: unique('NoChat'),
        users: 3,
        connections: 1,
        queues: 1,
        value: 10,
        useInternalChat: false,
      })
    ).json();
    const n = await t.company('ChatNoPlan', { planId: plan.id });
    const api = t.as(n.admin);
    await expectError(await api.get('/chats'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await api.post('/chats', { title: 'x', users: [ref(n.admin)] }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await api.get('/chats/1/messages'), 403, 'ERR_NO_PERMISSION');
    await expectError(await api.post('/chats/1/messages', { message: 'oi' }), 403, 'ERR_NO_PERMISSION');
    await expectError(await api.post('/chats/1/read', {}), 403, 'ERR_NO_PERMISSION');
    await expectError(await api.put('/chats/1', { title: 'x' }), 403, 'ERR_NO_PERMISSION');
    await expectError(await api.del('/chats/1'), 403, 'ERR_NO_PERMISSION');
  });
});

describe('internal chat between companies', async () => {
  const a = await setup('ChatA');
  const b = await setup('ChatB');

  test('another company cannot list, read, write, change or hear a chat, nor add its users', async () => {
    const chat = await createChat(a.a, [a.b]);
    for (const s of [b.admin, b.a]) {
      const api = t.as(s);
      const listed = await (await api.get('/chats')).json();
      expect(listed.records.some((r: Chat) => r.id === chat.id)).toBe(false);
      await expectError(await api.get(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');
      await expectError(await api.get(`/chats/${chat.uuid}`), 404, 'ERR_NOT_FOUND');
      await expectError(await api.get(`/chats/${chat.id}/messages`), 404, 'ERR_NOT_FOUND');
      await expectError(
        await api.post(`/chats/${chat.id}/messages`, { message: 'oi' }),
        404,
        'ERR_NOT_FOUND',
      );
      await expectError(await api.post(`/chats/${chat.id}/read`, {}), 404, 'ERR_NOT_FOUND');
      await expectError(await api.put(`/chats/${chat.id}`, { title: 'x' }), 404, 'ERR_NOT_FOUND');
      await expectError(await api.del(`/chats/${chat.id}`), 404, 'ERR_NOT_FOUND');
    }
    // Members must be users of the caller's company.
    await expectError(
      await t.as(b.a).post('/chats', { title: 'x', users: [ref(a.b)] }),
      404,
      'ERR_NO_USER_FOUND',
    );
    const own = await createChat(b.a, [b.b]);
    await expectError(
      await t.as(b.a).put(`/chats/${own.id}`, { users: [ref(a.a)] }),
      404,
      'ERR_NO_USER_FOUND',
    );

    const socket = await t.socket(b.admin.token);
    expect(await joinRoom(socket, `chat-${chat.id}`)).toBe(false);
    expect(await joinRoom(socket, `company-${a.id}-chat-${chat.id}`)).toBe(false);
    const heard = [
      collectEvents(socket, companyEvent(a.id, 'chat')),
      collectEvents(socket, chatIdEvent(a.id, chat.id)),
      collectEvents(socket, chatUserEvent(a.id, a.b.user.id)),
    ];
    expect((await t.as(a.a).post(`/chats/${chat.id}/messages`, { message: 'só nossa' })).status).toBe(201);
    expect(await Promise.all(heard)).toEqual([[], [], []]);
    // Nothing of company A changed.
    const msgs = await (await t.as(a.b).get(`/chats/${chat.id}/messages`)).json();
    expect(msgs.records.map((m: { message: string }) => m.message)).toEqual(['só nossa']);
  });
});

describe('internal chat in real time', async () => {
  const c = await setup('ChatLive');

  test("a message reaches its members' sockets on every channel, and no one else's", async () => {
    const chat = await createChat(c.a, [c.b]);
    const bSock = await t.socket(c.b.token);
    const aSock = await t.socket(c.a.token);
    const adminSock = await t.socket(c.admin.token);
    const outsiderSock = await t.socket(c.outsider.token);
    expect(await joinRoom(bSock, `chat-${chat.id}`)).toBe(true);

    const bGeneral = nextEvent<Record<string, unknown>>(bSock, companyEvent(c.id, 'chat'));
    const bUser = nextEvent<Record<string, unknown>>(bSock, chatUserEvent(c.id, c.b.user.id));
    const bChat = nextEvent<Record<string, unknown>>(bSock, chatIdEvent(c.id, chat.id));
    const aGeneral = nextEvent<Record<string, unknown>>(aSock, companyEvent(c.id, 'chat'));
    const quiet = [
      collectEvents(adminSock, companyEvent(c.id, 'chat')),
      collectEvents(adminSock, chatIdEvent(c.id, chat.id)),
      collectEvents(outsiderSock, companyEvent(c.id, 'chat')),
      collectEvents(outsiderSock, chatIdEvent(c.id, chat.id)),
    ];
    const sent = await (await t.as(c.a).post(`/chats/${chat.id}/messages`, { message: 'Olá B' })).json();
    for (const e of [await bGeneral, await bUser, await bChat, await aGeneral]) {
      expect(e.action).toBe('new-message');
      expect((e.newMessage as { id: number }).id).toBe(sent.id);
      expect((e.chat as Chat).lastMessage).toBe('Olá B');
    }
    // One copy per channel, even for a socket in the chat's room too.
    expect(await collectEvents(bSock, chatIdEvent(c.id, chat.id), 200)).toEqual([]);
    expect(await Promise.all(quiet)).toEqual([[], [], [], []]);
  });

  test('unread counters grow with each message for the others, and the read call clears them', async () => {
    const chat = await createChat(c.a, [c.b, c.outsider]);
    for (const m of ['um', 'dois']) await t.as(c.a).post(`/chats/${chat.id}/messages`, { message: m });
    const listB = await (await t.as(c.b).get('/chats')).json();
    const seen = listB.records.find((r: Chat) => r.id === chat.id) as Chat;
    const unreads = Object.fromEntries(seen.users.map((u) => [u.userId, u.unreads]));
    expect(unreads).toEqual({ [c.a.user.id]: 0, [c.b.user.id]: 2, [c.outsider.user.id]: 2 });
    expect(listB.unreadChats).toBeGreaterThanOrEqual(1);
    const before = listB.unreadChats;

    const bSock = await t.socket(c.b.token);
    const update = nextEvent<{ action: string; chat: Chat }>(bSock, chatUserEvent(c.id, c.b.user.id));
    await expectError(
      await t.as(c.b).post(`/chats/${chat.id}/read`, { userId: c.a.user.id }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(c.b).post(`/chats/${chat.id}/read`, { userId: 'x' }), 400, 'ERR_VALIDATION');
    const read = await t.as(c.b).post(`/chats/${chat.id}/read`, { userId: c.b.user.id });
    expect(read.status).toBe(200);
    const e = await update;
    expect(e.action).toBe('update');
    const after = Object.fromEntries(e.chat.users.map((u) => [u.userId, u.unreads]));
    expect(after).toEqual({ [c.a.user.id]: 0, [c.b.user.id]: 0, [c.outsider.user.id]: 2 });
    expect((await (await t.as(c.b).get('/chats')).json()).unreadChats).toBe(before - 1);
    // The read call without a body marks the caller too.
    expect((await t.as(c.outsider).post(`/chats/${chat.id}/read`)).status).toBe(200);
    const listO = await (await t.as(c.outsider).get('/chats')).json();
    expect(
      listO.records
        .find((r: Chat) => r.id === chat.id)
        .users.every((u: { unreads: number }) => u.unreads === 0),
    ).toBe(true);
  });

  test('after the commit the bus carries chat.message to the members but the sender', async () => {
    const chat = await createChat(c.a, [c.b, c.outsider]);
    const got: unknown[] = [];
    t.app.services.bus.on('chat.message', async (e) => void got.push(e), 'test');
    const sent = await (await t.as(c.a).post(`/chats/${chat.id}/messages`, { message: 'aviso' })).json();
    await waitFor(() => got.length > 0);
    expect(got[0]).toEqual({
      companyId: c.id,
      chatId: chat.id,
      messageId: sent.id,
      senderId: c.a.user.id,
      recipientIds: expect.arrayContaining([c.b.user.id, c.outsider.user.id]),
      title: chat.title,
      body: 'aviso',
    });
    expect((got[0] as { recipientIds: number[] }).recipientIds).toHaveLength(2);
  });

  test('a created, changed or deleted chat is heard by its members, and a removed member hears it leave', async () => {
    const bSock = await t.socket(c.b.token);
    const outsiderSock = await t.socket(c.outsider.token);
    const onCreate = nextEvent<{ action: string; chat: Chat }>(bSock, companyEvent(c.id, 'chat'));
    const quiet = collectEvents(outsiderSock, companyEvent(c.id, 'chat'));
    const chat = await createChat(c.a, [c.b]);
    expect((await onCreate).action).toBe('create');
    expect(await quiet).toEqual([]);
    const onLeave = nextEvent<{ action: string; chatId: number }>(bSock, companyEvent(c.id, 'chat'));
    const onJoin = nextEvent<{ action: string; chat: Chat }>(outsiderSock, companyEvent(c.id, 'chat'));
    await t.as(c.a).put(`/chats/${chat.id}`, { users: [ref(c.outsider)] });
    expect(await onLeave).toEqual({ action: 'delete', chatId: chat.id });
    expect((await onJoin).action).toBe('update');
    const onDelete = nextEvent<{ action: string; chatId: number }>(outsiderSock, companyEvent(c.id, 'chat'));
    await t.as(c.a).del(`/chats/${chat.id}`);
    expect(await onDelete).toEqual({ action: 'delete', chatId: chat.id });
  });
});
