import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';

/** How long a checked session is trusted in this process without asking the database again. */
export const SESSION_CACHE_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * A short memory of live sessions so that most authenticated requests skip the session query. Whatever
 * ends a session or changes a user in this process forgets it at once (logout, a new login elsewhere,
 * refresh-token reuse, password reset, user or company deleted, profile changed); another process's
 * change is seen here within SESSION_CACHE_MS.
 */
export function sessionCache(ttlMs = SESSION_CACHE_MS) {
  const live = new Map<string, { tenant: Tenant; until: number }>();
  // One database look-up per session at a time: a burst of requests after an expiry waits for it.
  const loading = new Map<string, Promise<Tenant | null>>();
  // Bumped by every forget: a look-up that started before it must not store what it read.
  let epoch = 0;

  function get(sessionId: string, userId: number): Tenant | undefined {
    const hit = live.get(sessionId);
    if (!hit) return undefined;
    if (hit.until < Date.now() || hit.tenant.userId !== userId) {
      live.delete(sessionId);
      return undefined;
    }
    return hit.tenant;
  }

  function set(tenant: Tenant, readAt: number) {
    if (readAt !== epoch) return;
    if (live.size >= MAX_ENTRIES) {
      const now = Date.now();
      for (const [k, v] of live) if (v.until < now) live.delete(k);
      if (live.size >= MAX_ENTRIES) live.clear();
    }
    live.set(tenant.sessionId, { tenant, until: Date.now() + ttlMs });
  }

  const forgotten = () => {
    epoch++;
    // Requests after a forget must not join a look-up that started before it.
    loading.clear();
  };

  return {
    /** The session's tenant from memory, or from `load` (the database) when unknown or stale. */
    async lookup(
      sessionId: string,
      userId: number,
      load: () => Promise<Tenant | null>,
    ): Promise<Tenant | null> {
      const hit = get(sessionId, userId);
      if (hit) return { ...hit };
      const key = `${sessionId}:${userId}`;
      let pending = loading.get(key);
      if (!pending) {
        const readAt = epoch;
        const p: Promise<Tenant | null> = load()
          .then((t) => {
            if (t) set(t, readAt);
            return t;
          })
          .finally(() => {
            if (loading.get(key) === p) loading.delete(key);
          });
        loading.set(key, p);
        pending = p;
      }
      const t = await pending;
      return t && { ...t };
    },
    forgetSessions(ids: string[]) {
      forgotten();
      for (const id of ids) live.delete(id);
    },
    forgetUser(userId: number) {
      forgotten();
      for (const [k, v] of live) if (v.tenant.userId === userId) live.delete(k);
    },
  };
}
export type SessionCache = ReturnType<typeof sessionCache>;

/**
 * Events that also keep the session cache honest: every service that ends sessions calls endSessions,
 * and every change of a user is announced as a 'user' event (browsers need both anyway).
 */
export function invalidatingEvents(events: Events, cache: SessionCache): Events {
  const userOf = (entity: string, payload: unknown) => {
    if (entity !== 'user') return;
    const p = payload as { user?: { id?: unknown }; userId?: unknown } | null;
    const id = Number(p?.user?.id ?? p?.userId);
    if (Number.isInteger(id)) cache.forgetUser(id);
  };
  return {
    ...events,
    toCompany(cid, entity, payload) {
      userOf(entity, payload);
      events.toCompany(cid, entity, payload);
    },
    toAdmins(cid, entity, payload) {
      userOf(entity, payload);
      events.toAdmins(cid, entity, payload);
    },
    toUser(cid, userId, entity, payload) {
      userOf(entity, payload);
      events.toUser(cid, userId, entity, payload);
    },
    endSessions(ids, reason) {
      cache.forgetSessions(ids);
      events.endSessions(ids, reason);
    },
  };
}
