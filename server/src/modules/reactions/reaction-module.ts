import type { AppModule } from '../app-module.js';
import { reactionRoutes } from './reaction-routes.js';
import type { ReactionService } from './reaction-service.js';

/** #33.7 Reactions to messages (docs/messaging.md "Reactions"). */
export const reactionModule = (service: ReactionService): AppModule => ({
  name: 'reactions',
  routes: [reactionRoutes(service)],
});
