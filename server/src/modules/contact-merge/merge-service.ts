import { and, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import {
  canSeeContact,
  DUPLICATE_PAGE_SIZE,
  type ContactDuplicatePage,
  type ContactMergePreview,
  type ContactMergeResult,
  type ContactView,
  type DuplicateReason,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import {
  contactCustomFields,
  contacts,
  messages,
  ratingRequests,
  ticketNotes,
  ticketTags,
  tickets,
} from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { loadViewer, ticketQueries } from '../tickets/ticket-queries.js';
import type { EmitTicket } from '../tickets/ticket-service.js';
import type { ContactService } from '../contacts/contact-service.js';
import { recordTicketEvents } from '../timeline/record.js';
import { recordAudit } from '../audit/record.js';

type ContactRow = typeof contacts.$inferSelect;

/** Columns referencing contacts(id) that the merge moves with its own rule (the rest move as they are). */
const HANDLED = new Set([
  'tickets.contact_id',
  'messages.contact_id',
  'contact_custom_fields.contact_id',
  'rating_requests.contact_id',
]);

const rowsOf = <T>(r: unknown): T[] => (Array.isArray(r) ? r : ((r as { rows?: T[] }).rows ?? [])) as T[];

export interface RequestMeta {
  ip?: string | null;
  userAgent?: string | null;
}

const brief = (c: ContactRow) => ({
  id: c.id,
  name: c.name,
  number: c.number,
  email: c.email,
  lid: c.lid,
  ownerId: c.ownerId,
});

/**
 * #32.8 Contact merge and duplicate suggestions (docs/productivity.md "Contact merge"). `id` survives; the
 * other contact's tickets, messages, notes, schedules, ratings, extra info, custom fields and every other
 * reference move to it in one transaction, and the other contact is deleted. Open tickets of both on the
 * same connection become one: the other's messages, tags and notes move into the survivor's open ticket,
 * and the other's (now empty) ticket is closed, kept for its history.
 */
export function contactMergeService(deps: {
  db: Db;
  contacts: Pick<ContactService, 'get' | 'announce'>;
  emitTicket: EmitTicket;
}) {
  const { db } = deps;

  async function contactRow(t: Tenant, id: number, field?: string): Promise<ContactRow> {
    const [r] = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.id, id), eq(contacts.companyId, t.companyId)));
    if (!r) throw new AppError('ERR_NO_CONTACT_FOUND', 404, field ? `${field}: no such contact` : undefined);
    return r;
  }

  async function pair(t: Tenant, id: number, otherId: number) {
    if (id === otherId)
      throw new AppError('ERR_VALIDATION', 400, 'otherId: a contact cannot be merged with itself', {
        field: 'otherId',
      });
    const survivor = await contactRow(t, id);
    const other = await contactRow(t, otherId, 'otherId');
    const viewer = await loadViewer(db, t);
    if (!canSeeContact(viewer, survivor) || !canSeeContact(viewer, other))
      throw new AppError('ERR_NO_PERMISSION', 403);
    if (survivor.isGroup !== other.isGroup)
      throw new AppError('ERR_VALIDATION', 400, 'otherId: a group and a person cannot be merged', {
        field: 'otherId',
      });
    return { survivor, other };
  }

  /** Every column referencing contacts(id), read from the catalog (a table added later moves too). */
  async function contactReferences(tx: Tx): Promise<{ table: string; column: string }[]> {
    const rows = rowsOf<{ table: string; column: string }>(
      await tx.execute(sql`select cl.relname as "table", a.attname as "column"
        from pg_constraint c
        join pg_class cl on cl.oid = c.conrelid
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
        where c.contype = 'f' and c.confrelid = 'contacts'::regclass`),
    );
    return rows.filter((r) => !HANDLED.has(`${r.table}.${r.column}`) && r.table !== 'contacts');
  }

  async function hasColumn(tx: Tx, table: string, column: string): Promise<boolean> {
    const rows = rowsOf<{ n: number }>(
      await tx.execute(sql`select count(*)::int as n from information_schema.columns
        where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`),
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  return {
    async preview(t: Tenant, id: number, otherId: number): Promise<ContactMergePreview> {
      const { survivor, other } = await pair(t, id, otherId);
      const count = async (table: SQL) =>
        rowsOf<{ n: number }>(
          await db.execute(sql`select count(*)::int as n from ${table} where contact_id = ${other.id}`),
        )[0]?.n ?? 0;
      const [open] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(tickets)
        .where(
          and(
            eq(tickets.contactId, other.id),
            eq(tickets.companyId, t.companyId),
            ne(tickets.status, 'closed'),
          ),
        );
      return {
        tickets: await count(sql`tickets`),
        openTickets: open?.n ?? 0,
        messages: await count(sql`messages`),
        schedules: await count(sql`schedules`),
        notes: await count(sql`ticket_notes`),
        ownerMoves: survivor.ownerId == null && other.ownerId != null,
      };
    },

    /**
     * `opts.system`: the merge is the platform's own (#33.6: a LID learnt to be a known phone), with that reason in
     * the audit entry; no user is checked or named (timeline actor 'system', audit actor none).
     */
    async merge(
      t: Tenant,
      id: number,
      otherId: number,
      meta: RequestMeta = {},
      opts: { system?: string } = {},
    ): Promise<ContactMergeResult> {
      const system = opts.system;
      if (!system) await pair(t, id, otherId);
      const companyId = t.companyId;
      const actorId = system ? null : t.userId;
      const outcome = await db.transaction(async (tx) => {
        // Both rows locked, lowest id first (two merges of the same pair never deadlock).
        const locked = await tx
          .select()
          .from(contacts)
          .where(and(eq(contacts.companyId, companyId), inArray(contacts.id, [id, otherId])))
          .orderBy(contacts.id)
          .for('update');
        const survivor = locked.find((c) => c.id === id);
        const other = locked.find((c) => c.id === otherId);
        // Gone since the checks (a concurrent merge or delete): nothing changed.
        if (!survivor || !other) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
        if (system && (id === otherId || survivor.isGroup !== other.isGroup))
          throw new AppError('ERR_VALIDATION', 400, 'otherId: these contacts cannot be merged');

        // 1. Open tickets of both on the same connection: the survivor's stays open and takes the other's
        //    messages, tags and notes; the other's is closed, empty, kept for its history.
        const otherOpen = await tx
          .select()
          .from(tickets)
          .where(and(eq(tickets.contactId, other.id), ne(tickets.status, 'closed')));
        const survivorOpen = await tx
          .select()
          .from(tickets)
          .where(and(eq(tickets.contactId, survivor.id), ne(tickets.status, 'closed')));
        const mergedTickets: { from: number; into: number }[] = [];
        let carriedMessages = 0;
        const now = new Date();
        for (const from of otherOpen) {
          const into = survivorOpen.find((s) => s.whatsappId != null && s.whatsappId === from.whatsappId);
          if (!into) continue;
          const carried = await tx
            .update(messages)
            .set({ ticketId: into.id, contactId: survivor.id })
            .where(eq(messages.ticketId, from.id))
            .returning({ id: messages.id, contactId: messages.contactId });
          carriedMessages += carried.length;
          await tx.execute(sql`insert into ticket_tags (ticket_id, tag_id)
            select ${into.id}, tag_id from ticket_tags where ticket_id = ${from.id} on conflict do nothing`);
          await tx.delete(ticketTags).where(eq(ticketTags.ticketId, from.id));
          await tx.update(ticketNotes).set({ ticketId: into.id }).where(eq(ticketNotes.ticketId, from.id));
          const newer = (from.lastMessageAt?.getTime() ?? 0) > (into.lastMessageAt?.getTime() ?? 0);
          await tx
            .update(tickets)
            .set({
              unreadMessages: sql`${tickets.unreadMessages} + ${from.unreadMessages}`,
              ...(newer ? { lastMessage: from.lastMessage, lastMessageAt: from.lastMessageAt } : {}),
              updatedAt: now,
            })
            .where(eq(tickets.id, into.id));
          await tx
            .update(tickets)
            .set({
              status: 'closed',
              closedAt: now,
              unreadMessages: 0,
              contactId: survivor.id,
              snoozedAt: null,
              snoozedUntil: null,
              updatedAt: now,
            })
            .where(eq(tickets.id, from.id));
          mergedTickets.push({ from: from.id, into: into.id });
        }

        // 2. Everything else of the other's moves as it is.
        const moved = await tx
          .update(tickets)
          .set({ contactId: survivor.id })
          .where(and(eq(tickets.contactId, other.id), eq(tickets.companyId, companyId)))
          .returning({ id: tickets.id });
        const movedMessages = await tx
          .update(messages)
          .set({ contactId: survivor.id })
          .where(and(eq(messages.contactId, other.id), eq(messages.companyId, companyId)))
          .returning({ id: messages.id });
        // One waiting rating request per connection and contact: the survivor's wins, the other's is ignored.
        await tx.execute(sql`update rating_requests o set status = 'ignored', updated_at = now()
          where o.contact_id = ${other.id} and o.status = 'waiting' and exists (select 1 from rating_requests s
            where s.contact_id = ${survivor.id} and s.whatsapp_id = o.whatsapp_id and s.status = 'waiting')`);
        await tx
          .update(ratingRequests)
          .set({ contactId: survivor.id })
          .where(eq(ratingRequests.contactId, other.id));
        // Extra info: the survivor's values win; the other's names it lacks are added.
        await tx.execute(sql`update contact_custom_fields o set contact_id = ${survivor.id}
          where o.contact_id = ${other.id} and not exists (select 1 from contact_custom_fields s
            where s.contact_id = ${survivor.id} and lower(s.name) = lower(o.name))`);
        await tx.delete(contactCustomFields).where(eq(contactCustomFields.contactId, other.id));
        for (const ref of await contactReferences(tx))
          await tx.execute(
            sql`update ${sql.identifier(ref.table)} set ${sql.identifier(ref.column)} = ${survivor.id}
              where ${sql.identifier(ref.column)} = ${other.id}`,
          );
        // Typed custom fields (#32.7), when the column exists: the survivor's values win, the rest filled in.
        if (await hasColumn(tx, 'contacts', 'custom_fields'))
          await tx.execute(sql`update contacts s set custom_fields =
              coalesce(o.custom_fields, '{}'::jsonb) || coalesce(s.custom_fields, '{}'::jsonb)
            from contacts o where s.id = ${survivor.id} and o.id = ${other.id}`);

        // 3. The other contact goes; the survivor takes what it lacked (number, LID, e-mail, owner, name).
        await tx.delete(contacts).where(and(eq(contacts.id, other.id), eq(contacts.companyId, companyId)));
        const autoName = survivor.name === survivor.number || survivor.name === survivor.lid;
        await tx
          .update(contacts)
          .set({
            ...(!survivor.number && other.number ? { number: other.number } : {}),
            ...(!survivor.lid && other.lid ? { lid: other.lid } : {}),
            ...(!survivor.email && other.email ? { email: other.email } : {}),
            ...(survivor.ownerId == null && other.ownerId != null ? { ownerId: other.ownerId } : {}),
            ...(autoName && other.name && other.name !== other.number ? { name: other.name } : {}),
            ...(!survivor.profilePicUrl && other.profilePicUrl ? { profilePicUrl: other.profilePicUrl } : {}),
            updatedAt: now,
          })
          .where(eq(contacts.id, survivor.id));

        // 4. The record: a 'merged' entry on every surviving ticket that changed, and the audit log.
        const touched = [
          ...new Set([
            ...moved.map((m) => m.id),
            ...mergedTickets.map((m) => m.into),
            ...mergedTickets.map((m) => m.from),
          ]),
        ];
        const from = { contactId: other.id, name: other.name, number: other.number };
        await recordTicketEvents(
          tx,
          touched.map((ticketId) => ({
            companyId,
            ticketId,
            type: 'merged',
            actorId,
            actorKind: system ? ('system' as const) : ('user' as const),
            data: {
              from,
              into: { contactId: survivor.id, name: survivor.name },
              ...(mergedTickets.some((m) => m.into === ticketId)
                ? { tickets: mergedTickets.filter((m) => m.into === ticketId).map((m) => m.from) }
                : {}),
              ...(mergedTickets.some((m) => m.from === ticketId)
                ? { mergedInto: mergedTickets.find((m) => m.from === ticketId)!.into }
                : {}),
            },
          })),
        );
        const [after] = await tx.select().from(contacts).where(eq(contacts.id, survivor.id));
        await recordAudit(tx, {
          companyId,
          actorId,
          ...(system ? { actorEmail: null } : {}),
          action: 'contact.merged',
          targetType: 'contact',
          targetId: survivor.id,
          before: { survivor: brief(survivor), other: brief(other) },
          after: {
            contact: brief(after!),
            movedTickets: moved.length + mergedTickets.length,
            movedMessages: movedMessages.length + carriedMessages,
            mergedTickets,
            ...(system ? { by: 'system', reason: system } : {}),
          },
          ip: meta.ip ?? null,
          userAgent: meta.userAgent ?? null,
        });
        return {
          movedTickets: moved.length + mergedTickets.length,
          movedMessages: movedMessages.length + carriedMessages,
          mergedTickets,
          touched,
        };
      });

      // After the commit: the lists update (the deleted contact leaves, the survivor and its tickets change).
      deps.contacts.announce(companyId, { action: 'delete', contactId: otherId });
      const contact = await deps.contacts.get(t, id);
      deps.contacts.announce(companyId, { action: 'update', contact });
      const closed = new Set(outcome.mergedTickets.map((m) => m.from));
      for (const ticketId of outcome.touched) {
        const view = await ticketQueries.byId(db, companyId, ticketId);
        if (view)
          deps.emitTicket(companyId, view, {
            // The platform's own merge (#33.6) is the connection's doing, not a person's.
            actor: system ? 'integration' : 'user',
            by: actorId,
            before: closed.has(ticketId) ? { status: 'open' } : {},
          });
      }
      return {
        contact,
        mergedId: otherId,
        movedTickets: outcome.movedTickets,
        movedMessages: outcome.movedMessages,
        mergedTickets: outcome.mergedTickets,
      };
    },

    /**
     * Suggestions, company-scoped and paged: the same Brazilian mobile with and without the ninth digit
     * (55 + DDD + 9xxxxxxxx and 55 + DDD + xxxxxxxx), a contact whose number is a WhatsApp LID that another
     * contact's known LID maps to a phone, and the same e-mail (case-blind). Pairs, lower id first.
     */
    async duplicates(t: Tenant, pageNumber: number): Promise<ContactDuplicatePage> {
      const c = t.companyId;
      const viewer = await loadViewer(db, t);
      // A restricted attendant (own contacts only) is offered only contacts they can see.
      const seen = canSeeContact(viewer, { ownerId: -1 })
        ? sql`true`
        : sql`(a.owner_id is null or a.owner_id = ${t.userId}) and (b.owner_id is null or b.owner_id = ${t.userId})`;
      const offset = (pageNumber - 1) * DUPLICATE_PAGE_SIZE;
      const pairs = rowsOf<{ reason: DuplicateReason; a: number; b: number }>(
        await db.execute(sql`select reason, a, b from (
          select 'ninth_digit' as reason, least(n.id, o.id) as a, greatest(n.id, o.id) as b
            from contacts n join contacts o on o.company_id = n.company_id
              and o.number = substr(n.number, 1, 4) || substr(n.number, 6)
            where n.company_id = ${c} and n.is_group = false and length(n.number) = 13
              and n.number like '55%' and substr(n.number, 5, 1) = '9'
          union
          select 'lid', least(p.id, l.id), greatest(p.id, l.id)
            from contacts p join contacts l on l.company_id = p.company_id
              and l.number = split_part(p.lid, '@', 1) and l.id <> p.id
            where p.company_id = ${c} and p.lid is not null and p.number <> ''
          union
          select 'email', x.id, y.id
            from contacts x join contacts y on y.company_id = x.company_id
              and lower(y.email) = lower(x.email) and y.id > x.id
            where x.company_id = ${c} and x.email <> ''
        ) d join contacts a on a.id = d.a join contacts b on b.id = d.b
        where ${seen}
        order by d.a, d.b, d.reason
        limit ${DUPLICATE_PAGE_SIZE + 1} offset ${offset}`),
      );
      const page = pairs.slice(0, DUPLICATE_PAGE_SIZE);
      const ids = [...new Set(page.flatMap((p) => [Number(p.a), Number(p.b)]))];
      const rows = ids.length
        ? await db
            .select()
            .from(contacts)
            .where(and(eq(contacts.companyId, c), inArray(contacts.id, ids)))
        : [];
      const byId = new Map(rows.map((r) => [r.id, r]));
      const view = (r: ContactRow): ContactView => ({
        id: r.id,
        name: r.name,
        number: r.number,
        email: r.email,
        profilePicUrl: r.profilePicUrl,
        isGroup: r.isGroup,
        ownerId: r.ownerId ?? null,
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
      });
      return {
        duplicates: page.flatMap((p) => {
          const a = byId.get(Number(p.a));
          const b = byId.get(Number(p.b));
          return a && b ? [{ reason: p.reason, contacts: [view(a), view(b)] }] : [];
        }),
        hasMore: pairs.length > DUPLICATE_PAGE_SIZE,
      };
    },
  };
}

export type ContactMergeService = ReturnType<typeof contactMergeService>;
