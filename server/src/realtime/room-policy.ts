import { rooms } from '@recado/contracts';
import type { Tenant } from '../http/tenant.js';
import { isDbId } from '../lib/sql.js';

const TICKET_STATUSES = new Set(['open', 'pending', 'closed', 'group']);

/** Extra checks other modules register (e.g. "may this user see ticket 42?"). */
export interface RoomGuards {
  ticket?: (t: Tenant, ticketId: number) => Promise<boolean>;
  chat?: (t: Tenant, chatId: number) => Promise<boolean>;
}

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
export async function resolveJoin(t: Tenant, request: unknown, guards: RoomGuards): Promise<string | null> {
  if (typeof request !== 'string' && typeof request !== 'number') return null;
  const asked = String(request).trim();
  if (asked.length === 0 || asked.length > 100) return null;
  if (asked === 'notification') return rooms.notification(t.companyId);
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
