import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  FileAnswer,
  IdParam,
  MessageAnswer,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookInput,
  WebhookSecret,
  WebhookUpdate,
} from '@recado/contracts';
import type { WebhookService } from './webhook-service.js';
import { patchSchema } from '../../http/patch-schema.js';
import { access } from '../../http/access.js';
import { sendStoredFile } from '../../http/stored-file.js';

const DeliveryParam = z.object({
  id: z.coerce.number().int().positive().max(2147483647),
  deliveryId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

/** Settings → Webhooks (admins; docs/webhooks.md). */
export const webhookRoutes =
  (webhooks: WebhookService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/webhooks', { config: access.admin, schema: { response: { 200: z.array(Webhook) } } }, (req) =>
      webhooks.list(req.tenant),
    );
    app.get(
      '/webhooks/:id',
      { config: access.admin, schema: { response: { 200: Webhook }, params: IdParam } },
      (req) => webhooks.get(req.tenant, req.params.id),
    );
    app.post(
      '/webhooks',
      {
        config: access.admin,
        schema: { response: { 201: Webhook.extend(WebhookSecret.shape) }, body: WebhookInput },
      },
      async (req, reply) => reply.status(201).send(await webhooks.create(req.tenant, req.body)),
    );
    app.put(
      '/webhooks/:id',
      {
        config: access.admin,
        schema: { response: { 200: Webhook }, params: IdParam, body: patchSchema(WebhookUpdate) },
      },
      (req) => webhooks.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/webhooks/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => webhooks.remove(req.tenant, req.params.id),
    );
    app.get(
      '/webhooks/:id/secret',
      { config: access.admin, schema: { response: { 200: WebhookSecret }, params: IdParam } },
      (req) => webhooks.revealSecret(req.tenant, req.params.id),
    );
    app.post(
      '/webhooks/:id/secret',
      { config: access.admin, schema: { noBody: true, response: { 200: WebhookSecret }, params: IdParam } },
      (req) => webhooks.regenerateSecret(req.tenant, req.params.id),
    );
    app.get(
      '/webhooks/:id/deliveries',
      {
        config: access.admin,
        schema: {
          response: { 200: WebhookDeliveryPage },
          params: IdParam,
          querystring: WebhookDeliveryQuery,
        },
      },
      (req) => webhooks.deliveries(req.tenant, req.params.id, req.query.pageNumber),
    );
    app.post(
      '/webhooks/:id/deliveries/:deliveryId/resend',
      {
        config: access.admin,
        schema: { noBody: true, response: { 200: WebhookDelivery }, params: DeliveryParam },
      },
      (req) => webhooks.resend(req.tenant, req.params.id, req.params.deliveryId),
    );
  };

const MediaLinkQuery = z.object({
  expires: z.coerce.number().int().positive().max(1e11),
  signature: z.string().min(1).max(100),
});

/**
 * The file of a `message.created` webhook, behind its signed, expiring link (docs/webhooks.md#files): no
 * sign-in, the link's HMAC and expiry are the credential. A short private cache (the link may be shared).
 */
export const webhookMediaRoutes =
  (webhooks: WebhookService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/webhook-media/:id',
      {
        config: access.public,
        schema: { response: { 200: FileAnswer }, params: IdParam, querystring: MediaLinkQuery },
      },
      async (req, reply) =>
        sendStoredFile(
          reply,
          await webhooks.mediaFile(req.params.id, req.query.expires, req.query.signature),
          300,
        ),
    );
  };
