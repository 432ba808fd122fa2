import type { AppModule } from '../app-module.js';
import { flowRoutes } from './flow-routes.js';
import type { FlowRuntime } from './flow-runtime.js';
import type { FlowService } from './flow-service.js';

/** A Cloud API button or list reply's id (the webhook stores `data.reply.id`), or null. */
const replyIdOf = (data: unknown): string | null => {
  const id = (data as { reply?: { id?: unknown } } | null)?.reply?.id;
  return typeof id === 'string' ? id : null;
};

/**
 * Flows (docs/flows.md): routes, the inbound listener (registered BEFORE the queue bot in app.ts, so a
 * message a flow takes gets no queue menu), a person taking the ticket ends its run, the durable timer job
 * and the try room's guard.
 */
export const flowModule = (service: FlowService, runtime: FlowRuntime): AppModule => ({
  name: 'flows',
  routes: [flowRoutes(service)],
  listeners: (bus) => {
    bus.on(
      'message.stored',
      // #33.3 Recovered (or group, call) messages start or advance no flow.
      ({ ref, ticket, message, quiet }) =>
        quiet
          ? undefined
          : runtime.onStored(ref, ticket.id, {
              id: message.id,
              body: message.body ?? '',
              mediaType: message.mediaType ?? null,
              replyId: replyIdOf(message.data),
              fromMe: message.fromMe,
            }),
      'flows',
    );
    bus.on(
      'ticket.changed',
      async ({ companyId, after }) => {
        // A person took the ticket (accepted, transferred to someone, closed): its flow is over.
        if (after.userId !== null || after.status !== 'pending')
          await runtime.cancelTicket(companyId, after.id);
      },
      'flows',
    );
  },
  jobs: Object.values(runtime.jobs),
  rooms: { flowTry: (t, flowId) => service.mayWatch(t, flowId) },
});
