import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  MessageAnswer,
  TicketHistory,
  TicketNote,
  TicketPage,
  TicketView,
  TicketCreate,
  TicketListQuery,
  TicketNoteInput,
  TicketNoteListQuery,
  TicketUpdate,
  UuidParam,
} from '@recado/contracts';
import type { TicketService } from './ticket-service.js';
import { access } from '../../http/access.js';

export const ticketRoutes =
  (tickets: TicketService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/tickets',
      { config: access.user, schema: { response: { 200: TicketPage }, querystring: TicketListQuery } },
      (req) => tickets.list(req.tenant, req.query),
    );
    app.get(
      '/tickets/u/:ticketId',
      { config: access.user, schema: { response: { 200: TicketView }, params: UuidParam } },
      (req) => tickets.getByUuid(req.tenant, req.params.ticketId),
    );
    app.get(
      '/tickets/:id',
      { config: access.user, schema: { response: { 200: TicketView }, params: IdParam } },
      (req) => tickets.get(req.tenant, req.params.id),
    );
    app.post(
      '/tickets',
      { config: access.user, schema: { response: { 201: TicketView }, body: TicketCreate } },
      async (req, reply) => reply.status(201).send(await tickets.create(req.tenant, req.body)),
    );
    app.put(
      '/tickets/:id',
      { config: access.user, schema: { response: { 200: TicketView }, params: IdParam, body: TicketUpdate } },
      (req) => tickets.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/tickets/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => tickets.remove(req.tenant, req.params.id),
    );
    app.get(
      '/ticket/:id/histories',
      { config: access.user, schema: { response: { 200: z.array(TicketHistory) }, params: IdParam } },
      (req) => tickets.histories(req.tenant, req.params.id),
    );

    app.post(
      '/ticket-notes',
      { config: access.user, schema: { response: { 201: TicketNote }, body: TicketNoteInput } },
      async (req, reply) => reply.status(201).send(await tickets.addNote(req.tenant, req.body)),
    );
    app.get(
      '/ticket-notes/list',
      {
        config: access.user,
        schema: { response: { 200: z.array(TicketNote) }, querystring: TicketNoteListQuery },
      },
      (req) => tickets.listNotes(req.tenant, req.query),
    );
    app.delete(
      '/ticket-notes/:id',
      { config: access.user, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => tickets.removeNote(req.tenant, req.params.id),
    );
  };
