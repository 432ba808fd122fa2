import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PushSubscriptionInput, PushUnsubscribeInput } from '@recado/contracts';
import type { PushService } from './push-service.js';

/** A browser's Web Push subscription (docs/push.md): the public key, subscribe, status, unsubscribe, test. */
export const pushRoutes =
  (push: PushService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/push/public-key', () => push.publicKey());
    app.post('/push/subscriptions', { schema: { body: PushSubscriptionInput } }, async (req, reply) =>
      reply.status(201).send(await push.subscribe(req.tenant, req.body)),
    );
    app.post('/push/subscriptions/status', { schema: { body: PushUnsubscribeInput } }, (req) =>
      push.status(req.tenant, req.body.endpoint),
    );
    app.post('/push/unsubscribe', { schema: { body: PushUnsubscribeInput } }, (req) =>
      push.unsubscribe(req.tenant, req.body.endpoint),
    );
    app.post('/push/test', (req) => push.test(req.tenant));
  };
