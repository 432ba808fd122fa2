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

/** Who made a ticket change (contracts' WEBHOOK_TICKET_ACTORS). */
export type TicketActor =
  | 'user'
  | 'bot'
  | 'ai'
  | 'integration'
  | 'timer'
  | 'schedule'
  | 'api'
  /** #30 the routing engine gave it to an attendant (docs/routing.md). */
  | 'routing';

/** What integrators follow of a ticket: a `ticket.updated` webhook goes when one of these changed. */
export interface TicketState {
  status: string;
  queueId: number | null;
  userId: number | null;
  tagIds: number[];
}

/**
 * A change of a ticket as its announcer (`emitTicket`, tickets/ticket-service.ts) receives it: every path that
 * creates or changes a ticket goes through that one function, which sends it to the screens and to the bus.
 */
export interface TicketChange {
  actor: TicketActor;
  /** The state before: null when the ticket was just created; fields left out were not changed. */
  before: Partial<TicketState> | null;
  /** The user who made it (actor 'user'). */
  by?: number | null;
  /** A user's action; the others say what they did with 'transfer', 'close', 'update'. */
  action?: TicketAction;
  /** #32.5 The change wrote its own timeline entry (recordTicketEvent): the timeline listener leaves it. */
  recorded?: boolean;
}

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
  /**
   * A ticket was created or changed by anyone (a user, the bot, an AI prompt or integration, a timer, a
   * schedule, the external API, a tag change) and its new view was sent to the agents: emitted by `emitTicket`
   * only, so no path that announces a ticket can leave it out. Inbound tickets: message.stored's ticketCreated.
   */
  'ticket.announced': { companyId: number; ticket: TicketView; change: TicketChange };
  /** An inbound (or own-phone) message was stored on a ticket by the pipeline and announced to agents. */
  'message.stored': {
    ref: ConnectionRef;
    ticket: TicketView;
    message: MessageRow;
    /** This message opened the ticket (the first of a new ticket in its delivery). */
    ticketCreated?: boolean;
    /**
     * #33.3 Recovered after an outage (or a group's, a call's line): stored and announced to people, but no
     * greeting, bot, flow, AI or rating answers it as if it were new (docs/messaging.md).
     */
    quiet?: boolean;
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
  /**
   * A user snoozed an open ticket (docs/routing.md "Snooze"): it left the open lists until `until` (null: no
   * time) or, with untilReply, until the customer writes. SLA clocks pause from `at`.
   */
  'ticket.snoozed': {
    companyId: number;
    ticketId: number;
    until: Date | null;
    untilReply: boolean;
    at: Date;
    by: number;
  };
  /**
   * A snoozed ticket woke, exactly once per snooze: its time came (the durable job), the customer wrote, or a
   * user woke it by hand (`by`). It is back in its attendant's open list.
   */
  'ticket.woken': {
    companyId: number;
    ticketId: number;
    reason: 'time' | 'reply' | 'manual';
    snoozedAt: Date;
    at: Date;
    by: number | null;
  };
  /** A queue was created or changed (routing: its policy, capacity or line may free places). */
  'queue.changed': { companyId: number; queueId: number };
  /** A user was changed by an admin or themselves (routing: maxTickets, queues). */
  'user.changed': { companyId: number; userId: number };
  /**
   * Routing gave a waiting ticket to an attendant (docs/routing.md), after the ticket's own announcement:
   * the `ticket.assigned` webhook. policy: the queue's; reason: 'policy', 'owner' or 'skip'.
   */
  'ticket.assigned': {
    companyId: number;
    ticket: TicketView;
    userId: number;
    policy: string;
    reason: 'policy' | 'owner' | 'skip';
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
  /**
   * An AI prompt's or integration's hold of a ticket ended (automation-service.ts `finish`): handoff (it gave
   * the conversation back), error (it failed; people have the ticket), accepted / transferred / closed. A
   * flow whose ai_prompt / typebot / n8n node handed it over continues from here (flow-nodes).
   */
  'automation.ended': {
    companyId: number;
    ticketId: number;
    kind: string;
    /** queue | connection | flow: who handed the ticket to it. */
    level: string;
    reason: 'handoff' | 'accepted' | 'transferred' | 'closed' | 'error';
    /** error: why (no secret, no message body). */
    error?: string;
  };
  /**
   * #30.2 An attendant's presence changed (docs/routing.md "Presence"): the switch, idleness, a socket
   * opening, or the last socket closing (after the grace period, in any process). Routing listens for
   * 'online' to hand waiting tickets out; the live view pushes its update.
   */
  'user.presence': {
    companyId: number;
    userId: number;
    presence: 'online' | 'away' | 'offline';
    previous: 'online' | 'away' | 'offline';
  };
  /**
   * A flow run moved (docs/flows.md#runtime), once per handled message / timer / start, after it committed:
   * the nodes entered and left (and by which exit) in order. Flow analytics count these.
   */
  'flow.steps': {
    companyId: number;
    flowId: number;
    runId: number;
    ticketId: number;
    isTry: boolean;
    steps: { nodeId: string; kind: 'start' | 'enter' | 'exit' | 'end'; exit?: string }[];
  };
  /**
   * A real run completed or failed, with the ticket as it is now (flow-nodes' listener on flow.ended): the
   * `flow.completed` / `flow.failed` webhooks.
   */
  'flow.outcome': {
    companyId: number;
    status: 'completed' | 'failed';
    flow: { id: number; name: string; version: number | null };
    runId: number;
    ticket: TicketView;
    nodeId: string | null;
    variables: Record<string, unknown>;
    error: string | null;
  };
  /** A flow run ended: completed (incl. a transfer), failed (the node and why), or cancelled. */
  'flow.ended': {
    companyId: number;
    flowId: number;
    runId: number;
    ticketId: number;
    version: number | null;
    isTry: boolean;
    status: 'completed' | 'failed' | 'cancelled';
    nodeId: string | null;
    variables: Record<string, unknown>;
    error?: string;
  };
}

export interface DomainEvents {
  /**
   * #30.5 A ticket missed an SLA target (modules/sla), once per due time, after the breach was stored: the
   * `sla.breached` webhook.
   */
  'sla.breached': {
    companyId: number;
    ticket: TicketView;
    kind: 'first_response' | 'next_response' | 'resolution';
    policyId: number | null;
    dueAt: Date;
    breachedAt: Date;
  };
}

export interface DomainEvents {
  /** #33.4 A WhatsApp call reached a connection (the pipeline, after the call's line was stored if any). */
  'call.received': {
    companyId: number;
    whatsappId: number;
    providerId: string;
    from: string;
    isVideo: boolean;
    isGroup: boolean;
    at: Date;
    rejected: boolean;
    ticketId: number | null;
    contactId: number | null;
  };
}

export type DomainBus = EventBus<DomainEvents>;

/** The application's bus: a ticket's events are handled one after another, in order. */
export function domainBus(log: { warn(o: object, m: string): void }): DomainBus {
  return eventBus<DomainEvents>({
    log,
    keyOf: {
      'ticket.changed': (e) => `ticket:${e.after.id}`,
      'ticket.announced': (e) => `ticket:${e.ticket.id}`,
      'message.stored': (e) => `ticket:${e.ticket.id}`,
      'message.sent': (e) => `ticket:${e.ticketId}`,
      'message.acked': (e) => `ticket:${e.message.ticketId}`,
      'ticket.created': (e) => `ticket:${e.ticketId}`,
      'ticket.snoozed': (e) => `ticket:${e.ticketId}`,
      'ticket.woken': (e) => `ticket:${e.ticketId}`,
      'automation.ended': (e) => `ticket:${e.ticketId}`,
      'ticket.assigned': (e) => `ticket:${e.ticket.id}`,
      'flow.steps': (e) => `ticket:${e.ticketId}`,
      'flow.ended': (e) => `ticket:${e.ticketId}`,
      'flow.outcome': (e) => `ticket:${e.ticket.id}`,
      'inbound.received': (e) => `connection:${e.ref.id}`,
      'sla.breached': (e) => `ticket:${e.ticket.id}`,
      'call.received': (e) => `connection:${e.whatsappId}`,
    },
  });
}
