import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  TicketCreate,
  TicketListQuery,
  TicketNoteInput,
  TicketNoteListQuery,
  TicketUpdate,
  UuidParam,
} from '@recado/contracts';
import type { TicketService } from './ticket-service.js';

export const ticketRoutes =
  (tickets: TicketService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/tickets', { schema: { querystring: TicketListQuery } }, (req) =>
      tickets.list(req.tenant, req.query),
    );
    app.get('/tickets/u/:ticketId', { schema: { params: UuidParam } }, (req) =>
      tickets.getByUuid(req.tenant, req.params.ticketId),
    );
    app.get('/tickets/:id', { schema: { params: IdParam } }, (req) => tickets.get(req.tenant, req.params.id));
    app.post('/tickets', { schema: { body: TicketCreate } }, async (req, reply) =>
      reply.status(201).send(await tickets.create(req.tenant, req.body)),
    );
    app.put('/tickets/:id', { schema: { params: IdParam, body: TicketUpdate } }, (req) =>
      tickets.update(req.tenant, req.params.id, req.body),
    );
    app.delete('/tickets/:id', { schema: { params: IdParam } }, (req) =>
      tickets.remove(req.tenant, req.params.id),
    );
    app.get('/ticket/:id/histories', { schema: { params: IdParam } }, (req) =>
      tickets.histories(req.tenant, req.params.id),
    );

    app.post('/ticket-notes', { schema: { body: TicketNoteInput } }, async (req, reply) =>
      reply.status(201).send(await tickets.addNote(req.tenant, req.body)),
    );
    app.get('/ticket-notes/list', { schema: { querystring: TicketNoteListQuery } }, (req) =>
      tickets.listNotes(req.tenant, req.query),
    );
    app.delete('/ticket-notes/:id', { schema: { params: IdParam } }, (req) =>
      tickets.removeNote(req.tenant, req.params.id),
    );
  };
