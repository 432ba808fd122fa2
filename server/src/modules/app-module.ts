import type { FastifyPluginAsync } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DomainBus } from '../events/domain-events.js';
import type { JobDefinition } from '../jobs/job-queue.js';
import type { AckClaim, AckIntercept } from '../messaging/inbound-events.js';
import type { RoomGuards } from '../realtime/room-policy.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- plugins of either type provider
export type RoutePlugin = FastifyPluginAsyncZod | FastifyPluginAsync<any>;

/**
 * What one module adds to the application, in one entry (`xModule(...)` beside the module's code); app.ts
 * composes the list (docs/architecture.md). Every part is optional; the order of the list is the order of
 * registration: routes as declared, listeners in list order (it matters for the same event: see app.ts).
 */
export interface AppModule {
  name: string;
  /** Routes that authenticate on their own (sign-in, public lists, webhooks, API tokens), under /api. */
  openRoutes?: RoutePlugin[];
  /** Routes behind a signed-in user (requireAuth, then the subscription block), under /api. */
  routes?: RoutePlugin[];
  /** Subscribes the module's listeners to the domain bus (docs/events.md). */
  listeners?: (bus: DomainBus) => void;
  /** The durable jobs it runs (server/src/jobs/README.md). */
  jobs?: JobDefinition[];
  /** Who may join the module's socket rooms (realtime/room-policy.ts). */
  rooms?: RoomGuards;
  /** Acks of messages the module sent without a message row (campaigns), checked before the pipeline. */
  ackIntercepts?: AckIntercept[];
  /** The same, run inside the pipeline's ack statement (one statement per ack): preferred. */
  ackClaims?: AckClaim[];
}
