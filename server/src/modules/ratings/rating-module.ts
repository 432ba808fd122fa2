import type { CustomerMessages } from '../customer-messages/customer-messages.js';
import type { AppModule } from '../app-module.js';
import { ratingListeners } from './rating-listener.js';
import type { RatingService } from './rating-service.js';

export const ratingModule = (ratings: RatingService, customerMessages: CustomerMessages): AppModule => ({
  name: 'ratings',
  listeners: (bus) => ratingListeners(bus, { ratings, customerMessages }),
  jobs: Object.values(ratings.jobs),
});
