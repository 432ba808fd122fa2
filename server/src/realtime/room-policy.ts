import { rooms } from '@recado/contracts';
import type { Tenant } from '../http/tenant.js';
import { isDbId } from '../lib/sql.js';

const TICKET_STATUSES = new Set(['open', 'pending', 'closed', 'group']);

/** Extra checks other modules register (e.g. "may this user see ticket 42?"). */
export interface RoomGuards {
  ticket?: (t: Tenant, ticketId: number) => Promise<boolean>;
  chat?: (t: Tenant, chatId: number) => Promise<boolean>;
  /** The notification rooms of this user (see notificationRooms); absent: the company-wide one only. */
  notification?: (t: Tenant) => Promise<string[]>;
}

/**
 * Ticket notifications go only to those allowed to see the ticket (core §6), without a database check per
 * socket and event: each ticket event names the rooms of everyone who may see it, and each socket joins,
 * at joinNotification, the rooms its user's visibility covers. Socket.IO sends to the union, once each.
 */
export const notificationRoom = {
  /** Managers (admin, super user): every ticket. */
  all: (companyId: number) => rooms.notification(companyId),
  queue: (companyId: number, queueId: number) => `company-${companyId}-queue-${queueId}-notification`,
  /** Tickets without a queue, for users with showQueuelessTickets. */
  queueless: (companyId: number) => `company-${companyId}-queueless-notification`,
  /** Tickets assigned to the user. */
  user: (companyId: number, userId: number) => `company-${companyId}-user-${userId}-notification`,
  /** Waiting tickets of any queue, for users with allTicket enabled. */
  waiting: (companyId: number) => `company-${companyId}-waiting-notification`,
};

/** Every room that should hear about a ticket in this state. */
export function ticketNotificationRooms(
  companyId: number,
  ticket: { queueId: number | null; userId: number | null; status: string },
): string[] {
  const list = [notificationRoom.all(companyId)];
  if (ticket.userId) list.push(notificationRoom.user(companyId, ticket.userId));
  if (ticket.queueId === null) list.push(notificationRoom.queueless(companyId));
  else {
    list.push(notificationRoom.queue(companyId, ticket.queueId));
    if (ticket.status === 'pending') list.push(notificationRoom.waiting(companyId));
  }
  return list;
}

/** The notification rooms a user's visibility covers; mirrors canSeeTicket (ticket-queries.ts). */
export function notificationRooms(v: {
  companyId: number;
  userId: number;
  profile: string;
  super: boolean;
  queueIds: number[];
  showQueuelessTickets: boolean;
  allTicket: string;
}): string[] {
  if (v.profile === 'admin' || v.super) return [notificationRoom.all(v.companyId)];
  const list = [notificationRoom.user(v.companyId, v.userId)];
  for (const q of v.queueIds) list.push(notificationRoom.queue(v.companyId, q));
  if (v.showQueuelessTickets) list.push(notificationRoom.queueless(v.companyId));
  if (v.allTicket === 'enabled') list.push(notificationRoom.waiting(v.companyId));
  return list;
}

/** Whether a room is one of the company's notification rooms (leaveNotification leaves them all). */
export const isNotificationRoom = (companyId: number, room: string) =>
  room.startsWith(`company-${companyId}-`) && room.endsWith('-notification');

/** The rooms a socket is put in at connection, decided from its token alone. */
export function initialRooms(t: Tenant): string[] {
  const list = [rooms.company(t.companyId), rooms.user(t.companyId, t.userId), rooms.session(t.sessionId)];
  if (t.profile === 'admin') list.push(rooms.admins(t.companyId));
  if (t.super) list.push(rooms.platform());
  return list;
}

/**
 * Resolves what a client asked to join into a room of its own company, or null. The client never names
 * another company: it sends a status, a ticket id or a room suffix, and the server builds the name.
 */
export async function resolveJoin(
  t: Tenant,
  request: unknown,
  guards: RoomGuards,
): Promise<string | string[] | null> {
  if (typeof request !== 'string' && typeof request !== 'number') return null;
  const asked = String(request).trim();
  if (asked.length === 0 || asked.length > 100) return null;
  if (asked === 'notification')
    return guards.notification ? await guards.notification(t) : rooms.notification(t.companyId);
  if (TICKET_STATUSES.has(asked)) return rooms.ticketStatus(t.companyId, asked);
  const ticket = /^(?:ticket-)?(\d{1,10})$/.exec(asked);
  // Ids outside 1..2^31-1 name no row: refused before any guard queries the database.
  if (ticket && guards.ticket) {
    const id = Number(ticket[1]);
    if (!isDbId(id)) return null;
    return (await guards.ticket(t, id)) ? rooms.ticket(t.companyId, id) : null;
  }
  const chat = /^chat-(\d{1,10})$/.exec(asked);
  if (chat && guards.chat) {
    const id = Number(chat[1]);
    if (!isDbId(id)) return null;
    return (await guards.chat(t, id)) ? `company-${t.companyId}-chat-${id}` : null;
  }
  return null;
}
