import type { DomainBus } from '../../events/domain-events.js';
import type { SnoozeService } from './snooze-service.js';

/**
 * Snooze's listeners (#30.7): a customer's message wakes a snoozed ticket; a ticket that leaves "open"
 * (closed, returned to the line, transferred) ends its snooze with it.
 */
export function snoozeListeners(bus: DomainBus, snooze: Pick<SnoozeService, 'onCustomerMessage' | 'clear'>) {
  bus.on(
    'message.stored',
    async ({ ref, ticket, message }) => {
      if (message.fromMe || !ticket.snoozedAt) return;
      await snooze.onCustomerMessage(ref.companyId, ticket.id);
    },
    'snooze',
  );
  bus.on(
    'ticket.changed',
    async ({ companyId, before, after }) => {
      if (!before.snoozedAt || after.status === 'open') return;
      await snooze.clear(companyId, after.id);
    },
    'snooze',
  );
}
