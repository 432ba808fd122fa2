import { and, eq, sql } from 'drizzle-orm';
import {
  REACTION_CHANNELS,
  reactionsOf,
  rooms,
  type MessageView,
  type ReactionInput,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { contacts, messages, whatsapps, type OutboundJob } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import type { Events } from '../../realtime/events.js';
import type { MessageService } from '../messages/message-service.js';
import { withRelations, type MessageRow } from '../messages/message-queries.js';
import { visibleTicketRow } from '../tickets/ticket-queries.js';

/**
 * #33.7 Reactions (docs/messaging.md "Reactions"). An attendant's reaction to a message of a ticket they can
 * see is stored on the message (`data.myReaction`) together with an outbox row in one transaction, then sent
 * through the ticket's connection like any reply (at once where its session runs, else by its owner). The
 * same reaction again is a no-op (nothing sent); '' removes it. The customer's reactions arrive through the
 * inbound pipeline (`data.reaction`).
 */
export function reactionService(deps: {
  db: Db;
  events: Events;
  sessions: () => SessionManager | undefined;
  messages: Pick<MessageService, 'outbound'>;
}) {
  const { db, events } = deps;

  async function announce(companyId: number, row: MessageRow): Promise<MessageView> {
    const [view] = await withRelations(db, [row]);
    events.toRoom(rooms.ticket(companyId, row.ticketId), companyId, 'appMessage', {
      action: 'update',
      message: view!,
    });
    return view!;
  }

  return {
    async react(t: Tenant, messageId: number, input: ReactionInput): Promise<MessageView> {
      const emoji = input.emoji;
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m) throw new AppError('ERR_NOT_FOUND', 404, 'message not found');
      const ticket = await visibleTicketRow(db, t, m.ticketId);
      if (ticket.status !== 'open')
        throw new AppError('ERR_NO_PERMISSION', 403, 'Accept the ticket before reacting');
      if (m.isDeleted) throw new AppError('ERR_VALIDATION', 400, 'A deleted message takes no reaction');
      if (!m.providerId || m.providerId.startsWith('local-'))
        throw new AppError('ERR_VALIDATION', 400, 'The message has not been sent yet');
      const whatsappId = m.whatsappId ?? ticket.whatsappId;
      if (!whatsappId) throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, 'The ticket has no connection');
      const [w] = await db
        .select({ channel: whatsapps.channel, status: whatsapps.status })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, t.companyId)));
      if (!w || w.status === 'DISCONNECTED')
        throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, 'The connection is not running');
      if (!REACTION_CHANNELS.includes(w.channel))
        throw new AppError('ERR_VALIDATION', 400, 'This connection cannot send reactions');
      // Idempotent: the reaction the message already has (and that went out) is not sent again.
      const current = reactionsOf(m.data);
      if (current.company === emoji && !current.error) return (await withRelations(db, [m]))[0]!;

      const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
      const to = contact?.number || contact?.lid || '';
      if (!to) throw new AppError('ERR_WAPP_INVALID_CONTACT', 400);
      const job: OutboundJob = {
        to,
        body: '',
        reaction: { emoji, targetProviderId: m.providerId, targetFromMe: m.fromMe },
      };
      const here = Boolean(deps.sessions()?.get(whatsappId));
      const { row, queueId } = await db.transaction(async (tx) => {
        const [updated] = await tx
          .update(messages)
          .set({
            data: sql`(coalesce(${messages.data}, '{}'::jsonb) - 'myReactionError') || ${JSON.stringify({ myReaction: emoji })}::jsonb`,
            updatedAt: new Date(),
          })
          .where(eq(messages.id, m.id))
          .returning();
        const queueId = await deps.messages.outbound.enqueue(
          tx,
          { messageId: m.id, companyId: t.companyId, whatsappId, job },
          here,
        );
        return { row: updated!, queueId };
      });
      const view = await announce(t.companyId, row);
      if (!here) return view;
      const outcome = await deps.messages.outbound.sendNow(queueId, { messageId: m.id, whatsappId, job });
      const after = { ...row, ...(outcome.message ? { data: outcome.message.data } : {}) };
      const sent = await announce(t.companyId, after);
      if (!outcome.ok) throw new AppError('ERR_SENDING_WAPP_MSG', 400, outcome.reason);
      return sent;
    },
  };
}
export type ReactionService = ReturnType<typeof reactionService>;
