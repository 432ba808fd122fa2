import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { rooms, type MessageSend } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { contacts, messages, tickets } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import { ChannelError, type MediaPayload } from '../../messaging/channel.js';
import { mediaTypeOf } from '../../messaging/channels/simulator-channel.js';
import { canSeeTicket, loadViewer, ticketQueries } from '../tickets/ticket-queries.js';
import { messagePage, toMessageView, withRelations, type MessageRow } from './message-queries.js';
import { voiceNotes, type VoiceNotes } from './voice-note.js';

type TicketRow = typeof tickets.$inferSelect;

export interface OutboundFile extends MediaPayload {
  asVoice?: boolean;
  /** A microphone recording from the web client: converted to a voice note before it is sent. */
  recording?: boolean;
}

/**
 * Messages of a ticket: reading them, and sending through the ticket's connection. An outbound message is
 * stored first (ack 0, a local id), then sent; the channel's id and ack 1 replace those when it answers,
 * so a failed send is visible on the screen instead of silently lost.
 */
export function messageService(deps: {
  db: Db;
  events: Events;
  media: MediaStore;
  sessions: () => SessionManager | undefined;
  /** Turns recordings into OGG/Opus voice notes (ffmpeg); by default ffmpeg from PATH. */
  voice?: VoiceNotes;
}) {
  const { db, events } = deps;
  const voice = deps.voice ?? voiceNotes();

  async function visibleTicket(t: Tenant, ticketId: number): Promise<TicketRow> {
    const [ticket] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, t.companyId)));
    if (!ticket) throw new AppError('ERR_NO_TICKET_FOUND', 404);
    const viewer = await loadViewer(db, t);
    if (!canSeeTicket(viewer, ticket)) throw new AppError('ERR_NO_PERMISSION', 403);
    return ticket;
  }

  async function emitMessage(
    companyId: number,
    ticket: TicketRow,
    action: 'create' | 'update',
    row: MessageRow,
  ) {
    const [message] = await withRelations(db, [row]);
    const view = await ticketQueries.byId(db, companyId, ticket.id);
    const payload = { action, message, ticket: view, contact: view?.contact };
    events.toRoom(
      action === 'create'
        ? [rooms.ticket(companyId, ticket.id), rooms.ticketStatus(companyId, ticket.status)]
        : rooms.ticket(companyId, ticket.id),
      companyId,
      'appMessage',
      payload,
    );
    return message!;
  }

  function channelFor(ticket: TicketRow) {
    const channel = ticket.whatsappId ? deps.sessions()?.get(ticket.whatsappId) : undefined;
    if (!channel) throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, 'The connection is not running');
    return channel;
  }

  /** Stores, sends and records one outbound message. `userId` null means the system (bot, greeting). */
  async function deliver(
    companyId: number,
    ticket: TicketRow,
    content: { body: string; file?: OutboundFile; quotedMsgId?: number | null; userId: number | null },
  ) {
    const channel = channelFor(ticket);
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
    if (!contact?.number) throw new AppError('ERR_WAPP_INVALID_CONTACT', 400);
    let mediaUrl: string | null = null;
    if (content.file) mediaUrl = await deps.media.save(companyId, content.file.data, content.file.filename);
    let quoted: MessageRow | undefined;
    if (content.quotedMsgId) {
      [quoted] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, content.quotedMsgId), eq(messages.ticketId, ticket.id)));
      if (!quoted) throw new AppError('ERR_VALIDATION', 400, 'quoted message not in this ticket');
    }
    const localId = `local-${randomUUID()}`;
    const preview = (content.body || (content.file ? `[${mediaTypeOf(content.file.mimetype)}]` : '')).slice(
      0,
      255,
    );
    const row = await db.transaction(async (tx) => {
      const [m] = await tx
        .insert(messages)
        .values({
          companyId,
          ticketId: ticket.id,
          contactId: ticket.contactId,
          whatsappId: ticket.whatsappId,
          providerId: localId,
          body: content.body,
          mediaType: content.file ? mediaTypeOf(content.file.mimetype) : null,
          mediaUrl,
          mediaName: content.file?.filename ?? null,
          fromMe: true,
          ack: 0,
          read: true,
          quotedMsgId: quoted?.id ?? null,
          userId: content.userId,
        })
        .returning();
      await tx
        .update(tickets)
        .set({ lastMessage: preview, lastMessageAt: new Date(), updatedAt: new Date() })
        .where(eq(tickets.id, ticket.id));
      return m!;
    });
    await emitMessage(companyId, ticket, 'create', row);
    try {
      const sent = content.file
        ? await channel.sendMedia(
            contact.number,
            { ...content.file, caption: content.body || undefined },
            { quotedProviderId: quoted?.providerId },
          )
        : await channel.sendText(contact.number, content.body, { quotedProviderId: quoted?.providerId });
      const [updated] = await db
        .update(messages)
        .set({ providerId: sent.providerId, ack: sql`greatest(${messages.ack}, 1)`, updatedAt: new Date() })
        .where(eq(messages.id, row.id))
        .returning();
      return emitMessage(companyId, ticket, 'update', updated!);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const [failed] = await db
        .update(messages)
        .set({ data: { error: reason }, updatedAt: new Date() })
        .where(eq(messages.id, row.id))
        .returning();
      await emitMessage(companyId, ticket, 'update', failed!);
      throw new AppError(err instanceof ChannelError ? err.code : 'ERR_SENDING_WAPP_MSG', 400, reason);
    }
  }

  return {
    deliver,

    async list(t: Tenant, ticketId: number, pageNumber: number) {
      const ticket = await visibleTicket(t, ticketId);
      const page = await messagePage(db, ticketId, pageNumber);
      return { ...page, ticket: await ticketQueries.byId(db, t.companyId, ticket.id) };
    },

    async send(t: Tenant, ticketId: number, input: MessageSend, files: OutboundFile[] = []) {
      const ticket = await visibleTicket(t, ticketId);
      // A message goes out only on an open ticket (accept or reopen first).
      if (ticket.status !== 'open')
        throw new AppError('ERR_NO_PERMISSION', 403, 'Accept the ticket before answering');
      const body = input.body.trim();
      if (!body && !files.length) throw new AppError('ERR_VALIDATION', 400, 'empty message');
      if (!files.length)
        return deliver(t.companyId, ticket, { body, quotedMsgId: input.quotedMsg?.id, userId: t.userId });
      const sent = [];
      // Several files: the caption goes with the first one.
      for (const [i, upload] of files.entries()) {
        const { recording, ...rest } = upload;
        const file: OutboundFile = recording ? await voice.prepare(rest) : { ...rest, asVoice: false };
        sent.push(
          await deliver(t.companyId, ticket, {
            body: i === 0 ? body : '',
            file,
            quotedMsgId: i === 0 ? input.quotedMsg?.id : null,
            userId: t.userId,
          }),
        );
      }
      return sent[sent.length - 1];
    },

    /** Only one's own messages can be deleted (core §4). */
    async remove(t: Tenant, messageId: number) {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m) throw new AppError('ERR_NOT_FOUND', 404, 'message not found');
      const ticket = await visibleTicket(t, m.ticketId);
      if (!m.fromMe || m.userId !== t.userId)
        throw new AppError('ERR_NO_PERMISSION', 403, 'Only your own messages');
      const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
      try {
        await channelFor(ticket).deleteMessage(contact?.number ?? '', m.providerId, true);
      } catch (err) {
        throw new AppError('ERR_DELETE_WAPP_MSG', 400, err instanceof Error ? err.message : undefined);
      }
      const [updated] = await db
        .update(messages)
        .set({ isDeleted: true, updatedAt: new Date() })
        .where(eq(messages.id, m.id))
        .returning();
      return emitMessage(t.companyId, ticket, 'update', updated!);
    },

    async edit(t: Tenant, messageId: number, body: string) {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m) throw new AppError('ERR_NOT_FOUND', 404, 'message not found');
      const ticket = await visibleTicket(t, m.ticketId);
      if (!m.fromMe || m.userId !== t.userId || m.isDeleted || m.mediaType)
        throw new AppError('ERR_NO_PERMISSION', 403);
      const channel = channelFor(ticket);
      if (!channel.editMessage)
        throw new AppError('ERR_SENDING_WAPP_MSG', 400, 'This channel cannot edit messages');
      const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
      await channel.editMessage(contact?.number ?? '', m.providerId, body);
      const [updated] = await db
        .update(messages)
        .set({ body, isEdited: true, updatedAt: new Date() })
        .where(eq(messages.id, m.id))
        .returning();
      return emitMessage(t.companyId, ticket, 'update', updated!);
    },

    /** The attendant opened the ticket: unread goes to 0 and the customer sees blue ticks. */
    async markRead(t: Tenant, ticketId: number) {
      const ticket = await visibleTicket(t, ticketId);
      const unread = await db
        .update(messages)
        .set({ read: true })
        .where(and(eq(messages.ticketId, ticket.id), eq(messages.fromMe, false), eq(messages.read, false)))
        .returning({ providerId: messages.providerId });
      await db.update(tickets).set({ unreadMessages: 0 }).where(eq(tickets.id, ticket.id));
      const channel = ticket.whatsappId ? deps.sessions()?.get(ticket.whatsappId) : undefined;
      if (channel && unread.length) {
        const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
        await channel
          .markRead(
            contact?.number ?? '',
            unread.map((u) => u.providerId),
          )
          .catch(() => undefined);
      }
      const view = await ticketQueries.byId(db, t.companyId, ticket.id);
      events.toRoom(rooms.ticketStatus(t.companyId, ticket.status), t.companyId, 'ticket', {
        action: 'updateUnread',
        ticketId: ticket.id,
        ticket: view,
      });
      return view;
    },

    async mediaFile(t: Tenant, messageId: number) {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m?.mediaUrl || m.isDeleted || !deps.media.belongsTo(m.mediaUrl, t.companyId))
        throw new AppError('ERR_NOT_FOUND', 404);
      await visibleTicket(t, m.ticketId);
      return {
        data: await deps.media.read(m.mediaUrl),
        filename: m.mediaName ?? 'file',
        mediaType: m.mediaType,
      };
    },
    toMessageView,
  };
}
export type MessageService = ReturnType<typeof messageService>;
