import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PushPublicKey, PushSubscriptionState } from '@recado/contracts';
import { access } from '../../http/access.js';
import { PushSubscriptionInput, PushUnsubscribeInput } from '@recado/contracts';
import type { PushService } from './push-service.js';

/** A browser's Web Push subscription (docs/push.md): the public key, subscribe, status, unsubscribe, test. */
export const pushRoutes =
  (push: PushService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/push/public-key', { config: access.user, schema: { response: { 200: PushPublicKey } } }, () =>
      push.publicKey(),
    );
    app.post(
      '/push/subscriptions',
      {
        config: access.user,
        schema: { response: { 201: PushSubscriptionState }, body: PushSubscriptionInput },
      },
      async (req, reply) => reply.status(201).send(await push.subscribe(req.tenant, req.body)),
    );
    app.post(
      '/push/subscriptions/status',
      {
        config: access.user,
        schema: { response: { 200: PushSubscriptionState }, body: PushUnsubscribeInput },
      },
      (req) => push.status(req.tenant, req.body.endpoint),
    );
    app.post(
      '/push/unsubscribe',
      {
        config: access.user,
        schema: { response: { 200: PushSubscriptionState }, body: PushUnsubscribeInput },
      },
      (req) => push.unsubscribe(req.tenant, req.body.endpoint),
    );
    app.post(
      '/push/test',
      {
        config: access.user,
        schema: { noBody: true, response: { 200: z.looseObject({ queued: z.boolean() }) } },
      },
      (req) => push.test(req.tenant),
    );
  };
