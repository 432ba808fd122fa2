import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ConnectionToken,
  IdParam,
  InboundFailureList,
  MessageAnswer,
  Whatsapp,
  WhatsappInput,
  WhatsappUpdate,
} from '@recado/contracts';
import type { WhatsappService } from './whatsapp-service.js';
import { patchSchema } from '../../http/patch-schema.js';
import { access } from '../../http/access.js';

// Only what is sent changes: a rename must not reset the messages, queues or default flag.
const WhatsappPatch = patchSchema(WhatsappUpdate);

export const whatsappRoutes =
  (whatsapps: WhatsappService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/whatsapp', { config: access.user, schema: { response: { 200: z.array(Whatsapp) } } }, (req) =>
      whatsapps.list(req.tenant),
    );
    app.get(
      '/whatsapp/:id',
      { config: access.user, schema: { response: { 200: Whatsapp }, params: IdParam } },
      (req) => whatsapps.get(req.tenant, req.params.id),
    );
    app.post(
      '/whatsapp',
      { config: access.admin, schema: { response: { 201: Whatsapp }, body: WhatsappInput } },
      async (req, reply) => reply.status(201).send(await whatsapps.create(req.tenant, req.body)),
    );
    app.put(
      '/whatsapp/:id',
      {
        config: access.admin,
        schema: { response: { 200: Whatsapp }, params: IdParam, body: WhatsappPatch },
      },
      (req) => whatsapps.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/whatsapp/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => whatsapps.remove(req.tenant, req.params.id),
    );
    // Admins: customer messages given up after repeated failures (see inbound-pipeline's maxAttempts).
    app.get(
      '/whatsapp/:id/inbound-failures',
      { config: access.admin, schema: { response: { 200: InboundFailureList }, params: IdParam } },
      (req) => whatsapps.inboundFailures(req.tenant, req.params.id),
    );
    // Admins: the external API token of the connection (docs/external-api.md).
    app.get(
      '/whatsapp/:id/token',
      { config: access.admin, schema: { params: IdParam, response: { 200: ConnectionToken } } },
      (req) => whatsapps.revealToken(req.tenant, req.params.id),
    );
    app.post(
      '/whatsapp/:id/token',
      { config: access.admin, schema: { noBody: true, params: IdParam, response: { 200: ConnectionToken } } },
      (req) => whatsapps.regenerateToken(req.tenant, req.params.id),
    );
    app.post(
      '/whatsappsession/:id',
      { config: access.admin, schema: { noBody: true, response: { 200: Whatsapp }, params: IdParam } },
      (req) => whatsapps.startSession(req.tenant, req.params.id),
    );
    app.put(
      '/whatsappsession/:id',
      { config: access.admin, schema: { noBody: true, response: { 200: Whatsapp }, params: IdParam } },
      (req) => whatsapps.renewSession(req.tenant, req.params.id),
    );
    app.delete(
      '/whatsappsession/:id',
      { config: access.admin, schema: { response: { 200: Whatsapp }, params: IdParam } },
      (req) => whatsapps.stopSession(req.tenant, req.params.id),
    );
  };
