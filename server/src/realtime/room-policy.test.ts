import { describe, expect, test, vi } from 'vitest';
import type { Tenant } from '../http/tenant.js';
import { initialRooms, resolveJoin, type RoomGuards } from './room-policy.js';

const tenant = (over: Partial<Tenant> = {}): Tenant => ({
  userId: 7,
  companyId: 3,
  profile: 'user',
  super: false,
  sessionId: 'sess-1',
  ...over,
});

describe('initialRooms', () => {
  test('a plain user gets its company, its own user room and its session', () => {
    expect(initialRooms(tenant()).sort()).toEqual(['company-3', 'company-3-user-7', 'session-sess-1'].sort());
  });

  test('supervisors are not admins', () => {
    expect(initialRooms(tenant({ profile: 'supervisor' }))).not.toContain('company-3-admins');
  });

  test('admins, supervisors and super users hear presence (#30.2); plain users do not', () => {
    for (const t of [
      tenant({ profile: 'admin' }),
      tenant({ profile: 'supervisor' }),
      tenant({ super: true }),
    ])
      expect(initialRooms(t)).toContain('company-3-supervisors');
    expect(initialRooms(tenant())).not.toContain('company-3-supervisors');
  });

  test('an admin also joins the admins room of its own company only', () => {
    const list = initialRooms(tenant({ profile: 'admin' }));
    expect(list).toContain('company-3-admins');
    expect(list.filter((r) => r.startsWith('company-') && !r.startsWith('company-3'))).toEqual([]);
  });

  test('only a super user joins the platform room', () => {
    expect(initialRooms(tenant({ profile: 'admin', super: true }))).toContain('platform-super');
    expect(initialRooms(tenant({ profile: 'admin' }))).not.toContain('platform-super');
  });
});

describe('resolveJoin', () => {
  const none: RoomGuards = {};

  test("'live' is the company's live view room for admins and supervisors only (#30.8)", async () => {
    expect(await resolveJoin(tenant({ profile: 'supervisor' }), 'live', none)).toBe('company-3-live');
    expect(await resolveJoin(tenant({ profile: 'admin', companyId: 4 }), 'live', none)).toBe(
      'company-4-live',
    );
    expect(await resolveJoin(tenant(), 'live', none)).toBeNull();
    // The client never names a company: another company's room is not a thing it can ask for.
    expect(await resolveJoin(tenant({ profile: 'supervisor' }), 'company-4-live', none)).toBeNull();
  });

  const viewer = async (t: Tenant) => ({
    userId: t.userId,
    profile: t.profile,
    super: t.super,
    queueIds: [1, 2],
    showQueuelessTickets: false,
    allTicket: 'desabled',
  });

  test('notification and the ticket statuses resolve, inside the caller’s company, to what it may see', async () => {
    const admin = tenant({ profile: 'admin' });
    expect(await resolveJoin(admin, 'notification', { viewer })).toEqual({
      scope: 'notification',
      rooms: ['company-3-notification'],
    });
    expect(await resolveJoin(admin, ' notification ', { viewer })).toMatchObject({
      rooms: ['company-3-notification'],
    });
    for (const status of ['open', 'pending', 'closed', 'group']) {
      expect(await resolveJoin(admin, status, { viewer })).toEqual({
        scope: `tickets-${status}`,
        rooms: [`company-3-tickets-${status}`],
      });
      // A plain user never joins the whole status list: only its own tickets' and its queues' rooms.
      expect(await resolveJoin(tenant(), status, { viewer })).toEqual({
        scope: `tickets-${status}`,
        rooms: [
          `company-3-tickets-${status}-user-7`,
          `company-3-tickets-${status}-queue-1`,
          `company-3-tickets-${status}-queue-2`,
        ],
      });
    }
    // Without the viewer guard nothing is joined.
    for (const asked of ['notification', 'open', 'pending'])
      expect(await resolveJoin(tenant(), asked, none)).toBeNull();
  });

  test('a simulator conversation needs the simulator guard', async () => {
    expect(await resolveJoin(tenant(), 'simulator-4-5511999990000', none)).toBeNull();
    const simulator = vi.fn(
      async (_t: Tenant, id: number, number: string | null) => id === 4 && number === '5511999990000',
    );
    expect(await resolveJoin(tenant(), 'simulator-4-5511999990000', { simulator })).toBe(
      'company-3-simulator-4-5511999990000',
    );
    expect(await resolveJoin(tenant(), 'simulator-5-5511999990000', { simulator })).toBeNull();
    expect(await resolveJoin(tenant(), 'simulator-0-5511999990000', { simulator })).toBeNull();
    expect(await resolveJoin(tenant(), 'simulator-4-55119999x', { simulator })).toBeNull();
    // The whole connection (the simulator page's list) asks the guard with no number.
    expect(await resolveJoin(tenant(), 'simulator-4', { simulator })).toBeNull();
    const manager = vi.fn(
      async (_t: Tenant, id: number, number: string | null) => id === 4 && number === null,
    );
    expect(await resolveJoin(tenant(), 'simulator-4', { simulator: manager })).toBe('company-3-simulator-4');
    expect(await resolveJoin(tenant(), 'simulator-5', { simulator: manager })).toBeNull();
    expect(await resolveJoin(tenant(), 'simulator-4', none)).toBeNull();
  });

  test.each([
    ['another company room', 'company-4'],
    ['another company admins', 'company-4-admins'],
    ['own company room by name', 'company-3'],
    ['own admins room by name (a plain user)', 'company-3-admins'],
    ['another user room', 'company-3-user-8'],
    ['a session room', 'session-sess-2'],
    ['the platform room', 'platform-super'],
    ['an unknown status', 'archived'],
    ['a status in another case', 'OPEN'],
    ['an empty string', ''],
    ['blanks', '   '],
    ['an oversize string', 'x'.repeat(101)],
    ['a status with a suffix', 'open-company-4'],
    ['null', null],
    ['undefined', undefined],
    ['an object', { room: 'company-4' }],
    ['an array', ['company-4']],
    ['a boolean', true],
    ['a status list by name', 'company-3-tickets-open'],
    ['another queue’s status room by name', 'company-3-tickets-open-queue-9'],
    ['a notification room by name', 'company-3-notification-queue-9'],
  ])('refuses %s', async (_, request) => {
    expect(await resolveJoin(tenant(), request, { viewer })).toBeNull();
    expect(await resolveJoin(tenant({ profile: 'admin', super: true }), request, { viewer })).toBeNull();
  });

  test('tickets need the ticket guard: absent guard refuses, the guard decides otherwise', async () => {
    expect(await resolveJoin(tenant(), 'ticket-5', none)).toBeNull();
    expect(await resolveJoin(tenant(), '5', none)).toBeNull();
    const ticket = vi.fn(async (_t: Tenant, id: number) => id === 5);
    const guards: RoomGuards = { ticket };
    expect(await resolveJoin(tenant(), 'ticket-5', guards)).toBe('company-3-ticket-5');
    expect(await resolveJoin(tenant(), 5, guards)).toBe('company-3-ticket-5');
    expect(await resolveJoin(tenant(), '5', guards)).toBe('company-3-ticket-5');
    expect(await resolveJoin(tenant(), 'ticket-6', guards)).toBeNull();
    expect(ticket).toHaveBeenCalledWith(expect.objectContaining({ companyId: 3, userId: 7 }), 5);
  });

  test('malformed or out-of-range ticket ids never reach the guard', async () => {
    const ticket = vi.fn(async () => true);
    for (const request of [
      'ticket-',
      'ticket-abc',
      'ticket-1.5',
      'ticket--1',
      'ticket-0',
      '0',
      '2147483648',
      'ticket-99999999999',
      'ticket-5 OR 1=1',
      1.5,
      -2,
    ])
      expect(await resolveJoin(tenant(), request, { ticket }), String(request)).toBeNull();
    expect(ticket).not.toHaveBeenCalled();
    expect(await resolveJoin(tenant(), 'ticket-2147483647', { ticket })).toBe('company-3-ticket-2147483647');
  });

  test('chats need the chat guard and resolve inside the caller’s company', async () => {
    expect(await resolveJoin(tenant(), 'chat-9', none)).toBeNull();
    const chat = vi.fn(async (_t: Tenant, id: number) => id === 9);
    expect(await resolveJoin(tenant(), 'chat-9', { chat })).toBe('company-3-chat-9');
    expect(await resolveJoin(tenant(), 'chat-10', { chat })).toBeNull();
    expect(await resolveJoin(tenant(), 'chat-0', { chat })).toBeNull();
    expect(chat).toHaveBeenCalledTimes(2);
  });

  test('notification resolves to the rooms of the viewer the guard loads for the caller', async () => {
    const spy = vi.fn(viewer);
    expect(await resolveJoin(tenant(), 'notification', { viewer: spy })).toEqual({
      scope: 'notification',
      rooms: [
        'company-3-notification-user-7',
        'company-3-notification-queue-1',
        'company-3-notification-queue-2',
      ],
    });
    expect(spy).toHaveBeenCalledWith(expect.objectContaining({ companyId: 3, userId: 7 }));
  });

  test('a failing guard rejects (the socket server answers { ok: false })', async () => {
    const ticket = vi.fn(async () => {
      throw new Error('db down');
    });
    await expect(resolveJoin(tenant(), 'ticket-5', { ticket })).rejects.toThrow('db down');
  });
});
