import { and, asc, eq, inArray } from 'drizzle-orm';
import { BufferJSON, toNumber, type WAMessage } from 'baileys';
import type { Db } from '../../../db/client.js';
import { baileysInbox } from '../../../db/schema/connection-recovery.js';

/** Where a message came from: WhatsApp's pending (offline) notifications, or history sync. */
export type InboxSource = 'offline' | 'history';

/**
 * #33.3 What WhatsApp delivers on reconnect (docs/messaging.md, "Recovering the gap"). Baileys has already
 * told WhatsApp it arrived, so WhatsApp will not send it again: it is written here as soon as it arrives, in
 * one statement per batch, and removed once the pipeline stored it. The next owner of the connection (after
 * a crash or a kill -9) stores what is left, in arrival order, before anything new; storing twice is a no-op
 * (the pipeline's key), so nothing is lost or doubled.
 */
export function baileysInboxStore(db: Db, whatsappId: number) {
  return {
    /** Keeps the messages; answers their row ids, in the order given (null for one kept before). */
    async save(messages: WAMessage[], source: InboxSource): Promise<(number | null)[]> {
      const rows = messages
        .filter((m) => m.key?.id)
        .map((m) => ({
          whatsappId,
          providerId: m.key.id!,
          source,
          payload: JSON.stringify(m, BufferJSON.replacer),
        }));
      if (!rows.length) return [];
      const saved = await db
        .insert(baileysInbox)
        .values(rows)
        .onConflictDoNothing()
        .returning({ id: baileysInbox.id, providerId: baileysInbox.providerId });
      const ids = new Map(saved.map((r) => [r.providerId, r.id]));
      return messages.map((m) => (m.key?.id ? (ids.get(m.key.id) ?? null) : null));
    },
    /** Stored (or given up): its row goes. */
    async done(ids: number[]) {
      if (ids.length)
        await db
          .delete(baileysInbox)
          .where(and(eq(baileysInbox.whatsappId, whatsappId), inArray(baileysInbox.id, ids)));
    },
    /** What a previous owner left, oldest first. */
    async left(): Promise<{ id: number; source: InboxSource; message: WAMessage }[]> {
      const rows = await db
        .select()
        .from(baileysInbox)
        .where(eq(baileysInbox.whatsappId, whatsappId))
        .orderBy(asc(baileysInbox.id));
      return rows.map((r) => ({
        id: r.id,
        source: r.source as InboxSource,
        message: JSON.parse(r.payload, BufferJSON.reviver) as WAMessage,
      }));
    },
  };
}

/** Baileys hands history sync newest first: the gap is stored oldest first. */
export const oldestFirst = (messages: WAMessage[]) =>
  [...messages].sort((a, b) => toNumber(a.messageTimestamp ?? 0) - toNumber(b.messageTimestamp ?? 0));
