import {
  flowTryRoom,
  rooms,
  statusScope,
  ticketRooms,
  viewerRooms,
  type VisibilityScope,
  type VisibilityTicket,
  type VisibilityViewer,
} from '@recado/contracts';
import type { Tenant } from '../http/tenant.js';
import { isDbId } from '../lib/sql.js';

const TICKET_STATUSES = new Set(['open', 'pending', 'closed', 'group']);

/** Extra checks other modules register (e.g. "may this user see ticket 42?"). */
export interface RoomGuards {
  ticket?: (t: Tenant, ticketId: number) => Promise<boolean>;
  chat?: (t: Tenant, chatId: number) => Promise<boolean>;
  /** The caller's visibility (queues, settings) as it is now; absent: status and notification rooms are refused. */
  viewer?: (t: Tenant) => Promise<VisibilityViewer>;
  /**
   * Whether the caller may follow a simulator conversation (the ticket rule, applied to its tickets), or,
   * with `number` null, every conversation of the connection (managers: the simulator page's list).
   */
  simulator?: (t: Tenant, whatsappId: number, number: string | null) => Promise<boolean>;
  /** Whether the caller may follow a flow's try runs (docs/flows.md#try-it): an admin of its company. */
  flowTry?: (t: Tenant, flowId: number) => Promise<boolean>;
}

/** A join that stands for a set of rooms: a new join of the same scope replaces the socket's old set. */
export interface ScopedJoin {
  scope: VisibilityScope;
  rooms: string[];
}

/** The simulator conversation's room: its events reach those who may see its tickets. */
export const simulatorRoom = (companyId: number, whatsappId: number, number: string) =>
  `company-${companyId}-simulator-${whatsappId}-${number}`;

/**
 * Every conversation of one simulator connection: joined by the simulator page of those who may read them
 * all (managers). Nobody else hears the customers' phones, so an agent's browser on the tickets page is not
 * sent a phone's copy of every message.
 */
export const simulatorConnectionRoom = (companyId: number, whatsappId: number) =>
  `company-${companyId}-simulator-${whatsappId}`;

/**
 * Every room that should hear about a ticket (contracts/visibility.ts decides who may see it): the ticket's
 * own room, its status list and the notification list, in the rooms of the keys that cover it. `before`
 * is the ticket as it was (another status, queue or user): those who could see it then hear it leave.
 */
export function ticketEventRooms(
  companyId: number,
  ticket: VisibilityTicket & { id: number },
  before?: VisibilityTicket,
  scopes: { status?: boolean; notification?: boolean } = { status: true, notification: true },
): string[] {
  const set = new Set([rooms.ticket(companyId, ticket.id)]);
  for (const state of before ? [ticket, before] : [ticket]) {
    if (scopes.status) for (const r of ticketRooms(companyId, statusScope(state.status), state)) set.add(r);
    if (scopes.notification) for (const r of ticketRooms(companyId, 'notification', state)) set.add(r);
  }
  return [...set];
}

/**
 * Where a schedule's events go (docs/visibility.md): a schedule on a ticket, to the 'schedules' rooms of the
 * keys that cover that ticket (those who may see it and joined 'schedules'); one without a ticket, to the
 * whole company, like its contact.
 */
export const scheduleEventRooms = (companyId: number, ticket: VisibilityTicket | null): string[] =>
  ticket ? ticketRooms(companyId, 'schedules', ticket) : [rooms.company(companyId)];

/** #30.8 Who may see everyone's presence and join the live view's room: admins, supervisors, super users. */
export const mayWatchLive = (t: Pick<Tenant, 'profile' | 'super'>): boolean =>
  t.profile === 'admin' || t.profile === 'supervisor' || t.super;

/** The rooms a socket is put in at connection, decided from its token alone. */
export function initialRooms(t: Tenant): string[] {
  const list = [rooms.company(t.companyId), rooms.user(t.companyId, t.userId), rooms.session(t.sessionId)];
  if (t.profile === 'admin') list.push(rooms.admins(t.companyId));
  // #30.2 Presence changes reach the company's admins and supervisors.
  if (mayWatchLive(t)) list.push(rooms.supervisors(t.companyId));
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
): Promise<string | ScopedJoin | null> {
  if (typeof request !== 'string' && typeof request !== 'number') return null;
  const asked = String(request).trim();
  if (asked.length === 0 || asked.length > 100) return null;
  // Status lists and notifications carry whole tickets and messages: each socket joins only the rooms of
  // the tickets its user may see (one room for managers, one per queue/assignment/setting otherwise).
  const scope: VisibilityScope | null =
    asked === 'notification' || asked === 'schedules'
      ? asked
      : TICKET_STATUSES.has(asked)
        ? statusScope(asked)
        : null;
  if (scope) {
    if (!guards.viewer) return null;
    return { scope, rooms: viewerRooms(t.companyId, scope, await guards.viewer(t)) };
  }
  // #30.8 The live view's pushes: the company's own room, for admins and supervisors only.
  if (asked === 'live') return mayWatchLive(t) ? rooms.live(t.companyId) : null;
  const sim = /^simulator-(\d{1,10})(?:-(\d{6,20}))?$/.exec(asked);
  if (sim && guards.simulator) {
    const id = Number(sim[1]);
    if (!isDbId(id)) return null;
    const number = sim[2] ?? null;
    if (!(await guards.simulator(t, id, number))) return null;
    return number ? simulatorRoom(t.companyId, id, number) : simulatorConnectionRoom(t.companyId, id);
  }
  const ticket = /^(?:ticket-)?(\d{1,10})$/.exec(asked);
  // Ids outside 1..2^31-1 name no row: refused before any guard queries the database.
  if (ticket && guards.ticket) {
    const id = Number(ticket[1]);
    if (!isDbId(id)) return null;
    return (await guards.ticket(t, id)) ? rooms.ticket(t.companyId, id) : null;
  }
  const flowTry = /^flow-try-(\d{1,10})$/.exec(asked);
  if (flowTry && guards.flowTry) {
    const id = Number(flowTry[1]);
    if (!isDbId(id)) return null;
    return (await guards.flowTry(t, id)) ? flowTryRoom(t.companyId, id) : null;
  }
  const chat = /^chat-(\d{1,10})$/.exec(asked);
  if (chat && guards.chat) {
    const id = Number(chat[1]);
    if (!isDbId(id)) return null;
    return (await guards.chat(t, id)) ? `company-${t.companyId}-chat-${id}` : null;
  }
  return null;
}
