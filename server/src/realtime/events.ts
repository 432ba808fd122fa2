import type { Server } from 'socket.io';
import { Adapter } from 'socket.io-adapter';
import { companyEvent, rooms, type CompanyEntity, type ServerEvents } from '@recado/contracts';

/**
 * Typed emit helpers: an entity's payload is the one contracts' ServerEvents names for it (a wrong payload
 * does not compile). Services call these only after their transaction has committed.
 * Every room name includes the company, so nothing can cross tenants by construction.
 */
export interface Events {
  /** To every signed-in user of the company. */
  toCompany<E extends CompanyEntity>(companyId: number, entity: E, payload: ServerEvents[E]): void;
  /** To the company's admins only. */
  toAdmins<E extends CompanyEntity>(companyId: number, entity: E, payload: ServerEvents[E]): void;
  /** To every browser of one user. */
  toUser<E extends CompanyEntity>(
    companyId: number,
    userId: number,
    entity: E,
    payload: ServerEvents[E],
  ): void;
  /**
   * To server-authorised rooms of the company (ticket, status list, notification). Several rooms in one
   * call reach each socket once, however many of them it is in.
   */
  toRoom<E extends CompanyEntity>(
    room: string | string[],
    companyId: number,
    entity: E,
    payload: ServerEvents[E],
  ): void;
  /**
   * An event whose name is not `company-{id}-{entity}` (the per-user and per-chat chat channels of
   * contracts/chats.ts) to server-decided rooms, each socket once.
   */
  toRoomNamed(room: string | string[], event: string, payload: unknown): void;
  /** Ends the sockets of ended sessions (after a new login elsewhere, logout or password reset). */
  endSessions(sessionIds: string[], reason: string): void;
}

export function socketEvents(getIo: () => Server | undefined): Events {
  const emit = (room: string | string[], event: string, payload: unknown) => {
    const io = getIo();
    if (!io) return;
    // A process alone (the in-memory adapter: no other process to tell) with nobody in these rooms: nothing to
    // encode and send (socket.io encodes a broadcast before it looks for sockets).
    const adapter = io.sockets.adapter;
    if (
      adapter.constructor === Adapter &&
      !(Array.isArray(room) ? room : [room]).some((r) => adapter.rooms.has(r))
    )
      return;
    io.to(room).emit(event, payload);
  };
  return {
    toCompany: (cid, entity, payload) => emit(rooms.company(cid), companyEvent(cid, entity), payload),
    toAdmins: (cid, entity, payload) => emit(rooms.admins(cid), companyEvent(cid, entity), payload),
    toUser: (cid, uid, entity, payload) => emit(rooms.user(cid, uid), companyEvent(cid, entity), payload),
    toRoom: (room, cid, entity, payload) => emit(room, companyEvent(cid, entity), payload),
    toRoomNamed: (room, event, payload) => emit(room, event, payload),
    endSessions(sessionIds, reason) {
      const io = getIo();
      if (!io) return;
      for (const sid of sessionIds) io.in(rooms.session(sid)).disconnectSockets(true);
      void reason;
    },
  };
}
