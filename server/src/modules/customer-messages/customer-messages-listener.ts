import type { DomainBus } from '../../events/domain-events.js';
import type { CustomerMessages } from './customer-messages.js';

/**
 * The greeting when an attendant accepts a ticket and the notice when it is transferred. (The completion
 * message on close waits for the rating question: modules/ratings/rating-listener.ts.)
 */
export function customerMessageListeners(bus: DomainBus, texts: CustomerMessages) {
  bus.on(
    'ticket.changed',
    async ({ companyId, after, action, by }) => {
      if (action === 'accept') await texts.greeting(companyId, after, by);
      else if (action === 'transfer') await texts.transferNotice(companyId, after);
    },
    'customer-messages',
  );
}
