import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParam, TicketPinInput, TicketPinResult } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { TicketPinService } from './pin-service.js';

export const ticketPinRoutes =
  (pins: TicketPinService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/tickets/:id/pin',
      { config: access.user, schema: { noBody: true, response: { 200: TicketPinResult }, params: IdParam } },
      (req) => pins.set(req.tenant, req.params.id, true),
    );
    app.delete(
      '/tickets/:id/pin',
      { config: access.user, schema: { response: { 200: TicketPinResult }, params: IdParam } },
      (req) => pins.set(req.tenant, req.params.id, false),
    );
    app.put(
      '/tickets/:id/pin',
      {
        config: access.user,
        schema: { response: { 200: TicketPinResult }, params: IdParam, body: TicketPinInput },
      },
      (req) => pins.set(req.tenant, req.params.id, req.body.pinned),
    );
  };
