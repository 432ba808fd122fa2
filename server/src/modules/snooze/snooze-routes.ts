import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParam, TicketSnooze, TicketView } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { SnoozeService } from './snooze-service.js';

/** POST /tickets/{id}/snooze {until?, untilReply?} and DELETE /tickets/{id}/snooze (docs/routing.md "Snooze"). */
export const snoozeRoutes =
  (snooze: SnoozeService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/tickets/:id/snooze',
      { config: access.user, schema: { params: IdParam, body: TicketSnooze, response: { 200: TicketView } } },
      (req) => snooze.snooze(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/tickets/:id/snooze',
      { config: access.user, schema: { params: IdParam, response: { 200: TicketView } } },
      (req) => snooze.unsnooze(req.tenant, req.params.id),
    );
  };
