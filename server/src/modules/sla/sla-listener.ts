import type { DomainBus } from '../../events/domain-events.js';
import type { SlaService } from './sla-service.js';

/**
 * The SLA clocks follow the tickets from the bus (docs/metrics.md "SLA"), never from inside the ticket
 * service: every announced change (created, queue or priority changed, accepted, resolved, reopened, snoozed,
 * woken) re-syncs the ticket's clocks; a customer's message may start a next-response cycle; a person's
 * message meets the first and next response. The bus runs one ticket's events in order.
 */
export function slaListeners(bus: DomainBus, sla: Pick<SlaService, 'handle'>) {
  bus.on('ticket.announced', (e) => sla.handle(e.companyId, e.ticket.id, { type: 'sync' }), 'sla');
  bus.on('ticket.created', (e) => sla.handle(e.companyId, e.ticketId, { type: 'sync' }), 'sla');
  bus.on(
    'message.stored',
    (e) =>
      sla.handle(e.ref.companyId, e.ticket.id, e.message.fromMe ? { type: 'sync' } : { type: 'customer' }),
    'sla',
  );
  bus.on(
    'message.sent',
    (e) =>
      e.message.userId != null
        ? sla.handle(e.companyId, e.ticketId, { type: 'agent', userId: e.message.userId })
        : undefined,
    'sla',
  );
}
