import { eq, inArray, sql } from 'drizzle-orm';
import { MESSAGE_PAGE_SIZE, type MessageView } from '@recado/contracts';

export type { MessageView };
import type { Db } from '../../db/client.js';
import { contacts, messages } from '../../db/schema/index.js';

export type MessageRow = typeof messages.$inferSelect;

export function toMessageView(
  m: MessageRow,
  extra: { quoted?: MessageRow | null; contact?: { id: number; name: string } | null } = {},
): MessageView {
  return {
    id: m.id,
    ticketId: m.ticketId,
    body: m.isDeleted ? '' : m.body,
    mediaType: m.mediaType,
    mediaUrl: m.mediaUrl && !m.isDeleted ? `/api/messages/${m.id}/media` : null,
    mediaName: m.mediaName,
    fromMe: m.fromMe,
    ack: m.ack,
    read: m.read,
    isDeleted: m.isDeleted,
    isEdited: m.isEdited,
    userId: m.userId,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
    quotedMsg: extra.quoted
      ? {
          id: extra.quoted.id,
          body: extra.quoted.isDeleted ? '' : extra.quoted.body,
          fromMe: extra.quoted.fromMe,
          mediaType: extra.quoted.mediaType,
        }
      : null,
    contact: extra.contact ?? null,
    data: m.data ?? null,
  };
}

export async function withRelations(db: Db, rows: MessageRow[]): Promise<MessageView[]> {
  const quotedIds = [...new Set(rows.map((r) => r.quotedMsgId).filter((x): x is number => Boolean(x)))];
  const contactIds = [...new Set(rows.map((r) => r.contactId).filter((x): x is number => Boolean(x)))];
  const [quoted, people] = await Promise.all([
    quotedIds.length
      ? db.select().from(messages).where(inArray(messages.id, quotedIds))
      : Promise.resolve([]),
    contactIds.length
      ? db
          .select({ id: contacts.id, name: contacts.name })
          .from(contacts)
          .where(inArray(contacts.id, contactIds))
      : Promise.resolve([]),
  ]);
  const q = new Map(quoted.map((m) => [m.id, m]));
  const c = new Map(people.map((p) => [p.id, p]));
  return rows.map((r) =>
    toMessageView(r, {
      quoted: r.quotedMsgId ? q.get(r.quotedMsgId) : null,
      contact: r.contactId ? c.get(r.contactId) : null,
    }),
  );
}

/** Newest page first (page 1 = the latest messages), each page returned oldest-first for display. */
export async function messagePage(db: Db, ticketId: number, pageNumber: number) {
  const rows = await db
    .select()
    .from(messages)
    .where(eq(messages.ticketId, ticketId))
    // NULLS LAST like messages_ticket_created_idx (the columns are never null): read in index order.
    .orderBy(sql`${messages.createdAt} desc nulls last`, sql`${messages.id} desc nulls last`)
    .limit(MESSAGE_PAGE_SIZE + 1)
    .offset((pageNumber - 1) * MESSAGE_PAGE_SIZE);
  const hasMore = rows.length > MESSAGE_PAGE_SIZE;
  return { messages: await withRelations(db, rows.slice(0, MESSAGE_PAGE_SIZE).reverse()), hasMore };
}
