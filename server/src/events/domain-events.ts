import type { TicketView } from '@recado/contracts';
import type { contacts, tickets } from '../db/schema/index.js';
import type { InboundMessage } from '../messaging/channel.js';
import type { ConnectionRef } from '../messaging/session-manager.js';
import type { MessageRow } from '../modules/messages/message-queries.js';
import { eventBus, type EventBus } from './bus.js';

export type TicketRow = typeof tickets.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;

/** What a ticket change did (also the history entry's action). */
export type TicketAction = 'update' | 'accept' | 'reopen' | 'return' | 'close' | 'transfer';

/**
 * Every domain event, name → payload, in one place (docs/events.md). Emitted after the change committed;
 * listeners subscribe in their module's `*-listener.ts`.
 */
export interface DomainEvents {
  /** A ticket was changed by a user (accept, transfer, return, close, reopen, …). */
  'ticket.changed': {
    companyId: number;
    before: TicketRow;
    after: TicketRow;
    action: TicketAction;
    /** The user who changed it. */
    by: number;
  };
  /** An inbound (or own-phone) message was stored on a ticket by the pipeline and announced to agents. */
  'message.stored': {
    ref: ConnectionRef;
    ticket: TicketView;
    message: MessageRow;
    /** This message opened the ticket (the first of a new ticket in its delivery). */
    ticketCreated?: boolean;
  };
  /** A message from the company (an attendant, the bot, a schedule, the external API) was stored for sending. */
  'message.sent': { companyId: number; ticketId: number; message: MessageRow };
  /** A message's ack moved forward (1 sent, 2 delivered, 3 read, 4 played). */
  'message.acked': { companyId: number; message: MessageRow };
  /** A ticket was opened by a user, a schedule or the external API (inbound ones: message.stored's ticketCreated). */
  'ticket.created': { companyId: number; ticketId: number };
  /** A campaign sent its last message (FINALIZADA). */
  'campaign.finished': { companyId: number; campaignId: number };
  /**
   * A delivery of a channel went through the pipeline (whatever it decided: stored, duplicate, taken by an
   * interceptor): once per batch, so a listener can answer a whole batch with one statement.
   */
  'inbound.received': { ref: ConnectionRef; messages: InboundMessage[] };
  /** A contact was created by a user (form or import) or the external API; inbound messages' contacts are not. */
  'contact.created': {
    companyId: number;
    contact: ContactRow;
    /** null: the external API. */ by: number | null;
  };
  /** An internal chat message was stored (recipientIds: the chat's members except the sender). */
  'chat.message': {
    companyId: number;
    chatId: number;
    messageId: number;
    senderId: number;
    recipientIds: number[];
    title: string;
    body: string;
  };
}

export type DomainBus = EventBus<DomainEvents>;

/** The application's bus: a ticket's events are handled one after another, in order. */
export function domainBus(log: { warn(o: object, m: string): void }): DomainBus {
  return eventBus<DomainEvents>({
    log,
    keyOf: {
      'ticket.changed': (e) => `ticket:${e.after.id}`,
      'message.stored': (e) => `ticket:${e.ticket.id}`,
      'message.sent': (e) => `ticket:${e.ticketId}`,
      'message.acked': (e) => `ticket:${e.message.ticketId}`,
      'ticket.created': (e) => `ticket:${e.ticketId}`,
      'inbound.received': (e) => `connection:${e.ref.id}`,
    },
  });
}
