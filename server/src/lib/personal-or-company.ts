import { and, eq, or, type Column, type SQL } from 'drizzle-orm';
import type { ServerEvents } from '@recado/contracts';
import type { Tenant } from '../http/tenant.js';
import type { Events } from '../realtime/events.js';

// Entries a user keeps for themselves or shares with the whole company (quick messages, macros): who sees
// them, and whose browsers hear of a change. Who may edit one is each service's own `mayEdit`.

export const isAdmin = (t: Tenant) => t.profile === 'admin' || t.super;

/** What a user may see: the company's shared entries and their own. */
export const visibleEntries = (t: Tenant, table: { companyId: Column; userId: Column }, shared: SQL): SQL =>
  and(eq(table.companyId, t.companyId), or(shared, eq(table.userId, t.userId)))!;

type Entry = { id: number; companyId: number; userId: number | null };
type EntryEntity = {
  [K in keyof ServerEvents]: ServerEvents[K] extends EntryEvent ? K : never;
}[keyof ServerEvents];
type EntryEvent = { action: 'create' | 'update'; record: unknown } | { action: 'delete'; id: number };
type RecordOf<E extends EntryEntity> = Extract<ServerEvents[E], { record: unknown }>['record'];

/**
 * A change of one entry (`before` null: made; `after` null: deleted): shared entries go to the company room,
 * personal ones to their owner's browsers only. Made personal, the others lose it first, then the owner sees
 * the change.
 */
export function emitEntryChange<E extends EntryEntity, R extends Entry>(
  events: Events,
  entity: E,
  change: { before: R | null; after: R | null; shared: (r: R) => boolean; record: (r: R) => RecordOf<E> },
) {
  const { before, after, shared } = change;
  const r = (after ?? before)!;
  const send = (toAll: boolean, payload: EntryEvent) => {
    const p = payload as ServerEvents[E];
    if (toAll) events.toCompany(r.companyId, entity, p);
    else if (r.userId) events.toUser(r.companyId, r.userId, entity, p);
  };
  if (!after) return send(shared(before!), { action: 'delete', id: r.id });
  if (before && shared(before) && !shared(after)) send(true, { action: 'delete', id: r.id });
  send(shared(after), { action: before ? 'update' : 'create', record: change.record(after) });
}
