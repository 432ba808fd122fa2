import type { DomainBus } from '../../events/domain-events.js';
import type { CustomerMessages } from '../customer-messages/customer-messages.js';
import type { RatingService } from './rating-service.js';

/**
 * Closing a ticket: with `userRating` on (and an attendant), the rating question goes first and its answer
 * brings the completion message (rating-service `take`); otherwise the completion message goes now.
 */
export function ratingListeners(
  bus: DomainBus,
  deps: { ratings: Pick<RatingService, 'request'>; customerMessages: Pick<CustomerMessages, 'completion'> },
) {
  bus.on(
    'ticket.changed',
    async ({ companyId, after, action }) => {
      if (action !== 'close') return;
      if (await deps.ratings.request(companyId, after)) return;
      await deps.customerMessages.completion(companyId, after);
    },
    'ratings',
  );
}
