import { io, type Socket } from 'socket.io-client';
import { refreshToken, currentToken, forceLogout, noteSignedOut } from '../api/client.js';

/**
 * The real-time client of docs/product.md#calls: websocket with polling fallback, token in the handshake's auth payload
 * (never in the URL; the server still accepts the spec's query-string token from other clients), pings of 18 s, 20 s connect timeout, 10 reconnection attempts 5 s apart; rooms joined
 * earlier are rejoined on reconnect; `ready` is re-emitted 1 s after the page becomes visible again.
 */
let socket: Socket | null = null;
/** docs/product.md#calls: the client reports its presence every 300,000 ms. */
export const USER_STATUS_INTERVAL_MS = 300_000;
/** Rooms joined, with how many parts of the page asked for each: left when the last one lets go. */
const joined = new Map<string, number>();
/** Ticket rooms joined, each with what to do once the server confirms the join (first time and after a reconnect). */
const joinedChatBoxes = new Map<string, (() => void) | undefined>();

function emitJoinChatBox(s: Socket, id: string) {
  s.emit('joinChatBox', id, (res?: { ok?: boolean }) => {
    if (res?.ok && joinedChatBoxes.has(id)) joinedChatBoxes.get(id)?.();
  });
}

export function getSocket(): Socket {
  if (socket) return socket;
  const s = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    auth: (cb) => cb({ token: currentToken() ?? '' }),
    timeout: 20000,
    reconnectionAttempts: 10,
    reconnectionDelay: 5000,
    reconnectionDelayMax: 5000,
  });
  let connectedBefore = false;
  s.on('connect', () => {
    if (connectedBefore) joined.forEach((_count, room) => emitJoin(s, room));
    // The first connection sends the joins buffered before it; a reconnection joins again.
    if (connectedBefore) joinedChatBoxes.forEach((_onJoined, id) => emitJoinChatBox(s, id));
    connectedBefore = true;
  });
  s.on('connect_error', async (err: Error & { data?: { code?: string } }) => {
    if (err.data?.code === 'ERR_SESSION_EXPIRED') {
      try {
        await refreshToken();
        s.connect();
      } catch (e) {
        noteSignedOut((e as { code?: string }).code);
        window.location.reload();
      }
    } else if (err.data?.code === 'ERR_SESSION_REPLACED') {
      // Signed in elsewhere while this tab was away: back to the login page, which says why.
      s.disconnect();
      forceLogout(err.data.code);
    } else if (err.data?.code === 'ERR_INVALID_TOKEN') {
      s.disconnect();
    }
  });
  // Check the connection every 10 s; reconnect after 1 s when it was lost.
  const watchdog = window.setInterval(() => {
    if (!s.connected && !s.active) window.setTimeout(() => s.connect(), 1000);
  }, 10000);
  // docs/product.md#calls: userStatus every 5 minutes keeps this user shown online (the dashboard's attendants table).
  const heartbeat = window.setInterval(() => {
    if (s.connected) s.emit('userStatus');
  }, USER_STATUS_INTERVAL_MS);
  const onVisible = () => {
    if (document.visibilityState === 'visible') window.setTimeout(() => s.emit('ready'), 1000);
  };
  document.addEventListener('visibilitychange', onVisible);
  s.on('disconnect', (reason) => {
    if (reason === 'io client disconnect') {
      window.clearInterval(watchdog);
      window.clearInterval(heartbeat);
      document.removeEventListener('visibilitychange', onVisible);
    }
  });
  socket = s;
  return s;
}

/** What to do once the server confirms a room's join (first time and after every reconnection). */
const roomListeners = new Map<string, Set<() => void>>();

function emitJoin(s: Socket, room: string) {
  s.emit('join', room, (res?: { ok?: boolean }) => {
    if (res?.ok) roomListeners.get(room)?.forEach((f) => f());
  });
}

/**
 * Joins a room; `onJoined` runs each time the server confirms it, so the caller can read again what
 * may have happened between its first read and the join (or while the connection was away).
 */
export function joinRoom(room: string, onJoined?: () => void) {
  if (onJoined) {
    const set = roomListeners.get(room) ?? new Set();
    set.add(onJoined);
    roomListeners.set(room, set);
  }
  const count = joined.get(room) ?? 0;
  joined.set(room, count + 1);
  if (count === 0) emitJoin(getSocket(), room);
  else onJoined?.();
}
export function leaveRoom(room: string, onJoined?: () => void) {
  if (onJoined) roomListeners.get(room)?.delete(onJoined);
  const count = joined.get(room) ?? 0;
  if (count > 1) {
    joined.set(room, count - 1);
    return;
  }
  joined.delete(room);
  socket?.emit('leave', room);
}

/** The notification room (docs/product.md#calls joinNotification); call the returned function to let go. */
export function joinNotification(onJoined?: () => void): () => void {
  joinRoom('notification', onJoined);
  return () => leaveRoom('notification', onJoined);
}

/** A ticket status list's room (docs/product.md#calls joinTickets: 'open', 'pending', 'closed'); returns the release. */
export function joinTickets(status: 'open' | 'pending' | 'closed'): () => void {
  joinRoom(status);
  return () => leaveRoom(status);
}
export function joinChatBox(ticketId: string | number, onJoined?: () => void) {
  joinedChatBoxes.set(String(ticketId), onJoined);
  emitJoinChatBox(getSocket(), String(ticketId));
}
export function leaveChatBox(ticketId: string | number) {
  joinedChatBoxes.delete(String(ticketId));
  socket?.emit('leaveChatBox', String(ticketId));
}

export function closeSocket() {
  socket?.disconnect();
  socket = null;
  joined.clear();
  joinedChatBoxes.clear();
}
