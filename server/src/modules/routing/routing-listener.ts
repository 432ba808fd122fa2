import type { EventBus } from '../../events/bus.js';
import type { DomainBus } from '../../events/domain-events.js';
import type { RoutingService } from './routing-service.js';

/** The presence module's event (#30.2), as routing reads it. */
interface PresenceEvents {
  'user.presence': { companyId: number; userId: number; presence: string; previous?: string | null };
}

const waiting = (t: { status: string; userId: number | null; queueId: number | null }) =>
  t.status === 'pending' && t.userId === null && t.queueId !== null;

/**
 * When routing runs (docs/routing.md#the-engine): a ticket entered a queue's line, a place freed (a ticket
 * of an attendant was resolved, returned, moved away or snoozed), an attendant came online, a queue's policy
 * or capacity changed, a user's maxTickets or queues changed. Each runs the affected queues at once in this
 * process; the durable sweep covers what a crash or another process left behind.
 */
export function routingListeners(bus: DomainBus, routing: RoutingService) {
  bus.on(
    'ticket.announced',
    async ({ companyId, ticket, change }) => {
      const before = change.before;
      const work: Promise<void>[] = [];
      if (before?.status === 'pending' && !waiting(ticket)) work.push(routing.leftLine(companyId, ticket.id));
      if (waiting(ticket)) work.push(routing.route(companyId, ticket.queueId!));
      // The attendant who had it has a place again.
      const had = before?.userId;
      if (had && (ticket.userId !== had || ticket.status !== 'open'))
        work.push(routing.routeUser(companyId, had));
      await Promise.all(work);
    },
    'routing',
  );
  // A new inbound ticket straight into a queue (a connection with one queue) is announced by the pipeline.
  bus.on(
    'message.stored',
    async ({ ref, ticket, ticketCreated }) => {
      if (ticketCreated && waiting(ticket)) await routing.route(ref.companyId, ticket.queueId!);
    },
    'routing',
  );
  // Snoozed: it no longer counts against its attendant's capacity (docs/routing.md#capacity).
  bus.on(
    'ticket.snoozed',
    ({ companyId, ticketId }) => routing.routeTicketUser(companyId, ticketId),
    'routing',
  );
  bus.on('queue.changed', ({ companyId, queueId }) => routing.route(companyId, queueId), 'routing');
  bus.on('user.changed', ({ companyId, userId }) => routing.routeUser(companyId, userId), 'routing');
  (bus as unknown as EventBus<PresenceEvents>).on(
    'user.presence',
    async ({ companyId, userId, presence }) => {
      if (presence === 'online') await routing.routeUser(companyId, userId);
    },
    'routing',
  );
}
