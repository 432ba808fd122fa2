import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import {
  canSeeContact,
  isTicketManager,
  type ForwardInput,
  type ForwardResult,
  type MessageView,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { contacts, messages, tickets, whatsapps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { mimeOf } from '../../http/uploads.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { MessageService } from '../messages/message-service.js';
import type { TicketService } from '../tickets/ticket-service.js';
import { canSeeTicket, loadViewer, ticketQueries, withContactOwner } from '../tickets/ticket-queries.js';

type TicketRow = typeof tickets.$inferSelect;

/**
 * #32.9 Forwarding (docs/productivity.md "Forward"): messages of tickets the user can see go, in the order
 * they were written, to an open ticket or to a contact (its active ticket on the connection, or a new one,
 * like a new outbound conversation). Media reuse the stored file; each copy is marked forwarded.
 */
export function forwardService(deps: {
  db: Db;
  media: MediaStore;
  messages: Pick<MessageService, 'deliver'>;
  tickets: Pick<TicketService, 'create'>;
}) {
  const { db } = deps;

  async function seeTicket(t: Tenant, row: TicketRow) {
    const viewer = await loadViewer(db, t);
    if (!canSeeTicket(viewer, await withContactOwner(db, viewer, row)))
      throw new AppError('ERR_NO_PERMISSION', 403);
  }

  async function ticketRow(t: Tenant, id: number): Promise<TicketRow> {
    const [row] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, id), eq(tickets.companyId, t.companyId)));
    if (!row) throw new AppError('ERR_NO_TICKET_FOUND', 404, 'ticketId: no such ticket');
    await seeTicket(t, row);
    return row;
  }

  /** The contact's active ticket on the connection, or a new open one of the user's. */
  async function ticketForContact(
    t: Tenant,
    contactId: number,
    whatsappId: number | undefined,
    queueHint: number | null,
  ): Promise<TicketRow> {
    const [contact] = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.id, contactId), eq(contacts.companyId, t.companyId)));
    if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND', 404, 'contactId: no such contact');
    const viewer = await loadViewer(db, t);
    if (!canSeeContact(viewer, contact)) throw new AppError('ERR_NO_PERMISSION', 403);
    const [w] = await db
      .select({ id: whatsapps.id })
      .from(whatsapps)
      .where(
        and(
          eq(whatsapps.companyId, t.companyId),
          whatsappId ? eq(whatsapps.id, whatsappId) : eq(whatsapps.isDefault, true),
        ),
      );
    if (!w) throw new AppError(whatsappId ? 'ERR_NO_WAPP_FOUND' : 'ERR_NO_DEF_WAPP_FOUND', 404);
    const [active] = await db
      .select()
      .from(tickets)
      .where(
        and(
          eq(tickets.companyId, t.companyId),
          eq(tickets.contactId, contact.id),
          eq(tickets.whatsappId, w.id),
          ne(tickets.status, 'closed'),
        ),
      );
    if (active) return active;
    // Like a new outbound conversation: an attendant opens it in one of their queues.
    const queueId = isTicketManager(viewer)
      ? (queueHint ?? undefined)
      : queueHint && viewer.queueIds.includes(queueHint)
        ? queueHint
        : viewer.queueIds[0];
    const view = await deps.tickets.create(t, {
      contactId: contact.id,
      whatsappId: w.id,
      queueId,
      status: 'open',
    });
    const [row] = await db.select().from(tickets).where(eq(tickets.id, view.id));
    return row!;
  }

  return {
    async forward(t: Tenant, input: ForwardInput): Promise<ForwardResult> {
      const ids = [...new Set(input.messageIds)];
      const rows = await db
        .select()
        .from(messages)
        .where(and(inArray(messages.id, ids), eq(messages.companyId, t.companyId)))
        .orderBy(asc(messages.createdAt), asc(messages.id));
      if (rows.length !== ids.length)
        throw new AppError('ERR_NOT_FOUND', 404, 'messageIds: a message was not found');
      const sources = [...new Set(rows.map((m) => m.ticketId))];
      const sourceRows = await db
        .select()
        .from(tickets)
        .where(and(inArray(tickets.id, sources), eq(tickets.companyId, t.companyId)));
      if (sourceRows.length !== sources.length)
        throw new AppError('ERR_NOT_FOUND', 404, 'messageIds: a message was not found');
      for (const s of sourceRows) await seeTicket(t, s);
      for (const m of rows) {
        if (m.isDeleted) throw new AppError('ERR_VALIDATION', 400, `messageIds: message ${m.id} was deleted`);
        if (m.mediaUrl && !deps.media.belongsTo(m.mediaUrl, t.companyId))
          throw new AppError('ERR_NOT_FOUND', 404, 'messageIds: a message was not found');
        if (!m.body.trim() && !m.mediaUrl)
          throw new AppError('ERR_VALIDATION', 400, `messageIds: message ${m.id} has nothing to forward`);
      }

      const target = input.ticketId
        ? await ticketRow(t, input.ticketId)
        : await ticketForContact(t, input.contactId!, input.whatsappId, sourceRows[0]?.queueId ?? null);
      // Like answering: a message goes out only on an open ticket (accept or reopen first).
      if (target.status !== 'open')
        throw new AppError('ERR_NO_PERMISSION', 403, 'ticketId: accept the ticket before sending to it');

      const sent: MessageView[] = [];
      for (const m of rows) {
        const filename = m.mediaName ?? 'file';
        sent.push(
          await deps.messages.deliver(t.companyId, target, {
            body: m.body,
            ...(m.mediaUrl
              ? {
                  stored: {
                    path: m.mediaUrl,
                    filename,
                    mimetype: mimeOf(filename, m.mediaType === 'image' ? 'image/jpeg' : undefined),
                  },
                }
              : {}),
            forwarded: true,
            userId: t.userId,
          }),
        );
      }
      return { ticket: (await ticketQueries.byId(db, t.companyId, target.id))!, messages: sent };
    },
  };
}
export type ForwardService = ReturnType<typeof forwardService>;
