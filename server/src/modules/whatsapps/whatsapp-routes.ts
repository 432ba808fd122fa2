import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ConnectionToken, IdParam, WhatsappInput, WhatsappUpdate } from '@recado/contracts';
import type { WhatsappService } from './whatsapp-service.js';
import { patchSchema } from '../../http/patch-schema.js';

// Only what is sent changes: a rename must not reset the messages, queues or default flag.
const WhatsappPatch = patchSchema(WhatsappUpdate);

export const whatsappRoutes =
  (whatsapps: WhatsappService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/whatsapp', (req) => whatsapps.list(req.tenant));
    app.get('/whatsapp/:id', { schema: { params: IdParam } }, (req) =>
      whatsapps.get(req.tenant, req.params.id),
    );
    app.post('/whatsapp', { schema: { body: WhatsappInput } }, async (req, reply) =>
      reply.status(201).send(await whatsapps.create(req.tenant, req.body)),
    );
    app.put('/whatsapp/:id', { schema: { params: IdParam, body: WhatsappPatch } }, (req) =>
      whatsapps.update(req.tenant, req.params.id, req.body),
    );
    app.delete('/whatsapp/:id', { schema: { params: IdParam } }, (req) =>
      whatsapps.remove(req.tenant, req.params.id),
    );
    // Admins: customer messages given up after repeated failures (see inbound-pipeline's maxAttempts).
    app.get('/whatsapp/:id/inbound-failures', { schema: { params: IdParam } }, (req) =>
      whatsapps.inboundFailures(req.tenant, req.params.id),
    );
    // Admins: the external API token of the connection (docs/external-api.md).
    app.get(
      '/whatsapp/:id/token',
      { schema: { params: IdParam, response: { 200: ConnectionToken } } },
      (req) => whatsapps.revealToken(req.tenant, req.params.id),
    );
    app.post(
      '/whatsapp/:id/token',
      { schema: { params: IdParam, response: { 200: ConnectionToken } } },
      (req) => whatsapps.regenerateToken(req.tenant, req.params.id),
    );
    app.post('/whatsappsession/:id', { schema: { params: IdParam } }, (req) =>
      whatsapps.startSession(req.tenant, req.params.id),
    );
    app.put('/whatsappsession/:id', { schema: { params: IdParam } }, (req) =>
      whatsapps.renewSession(req.tenant, req.params.id),
    );
    app.delete('/whatsappsession/:id', { schema: { params: IdParam } }, (req) =>
      whatsapps.stopSession(req.tenant, req.params.id),
    );
  };
