import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  KanbanQuery,
  TagInput,
  TagListQuery,
  TagSyncInput,
  TagUpdate,
  TicketIdParam,
  TicketTagParams,
} from '@recado/contracts';
import type { TagService } from './tag-service.js';

/** Tags (operations §7 "Tags and kanban"), the tags of a ticket, and the kanban board's tickets. */
export const tagRoutes =
  (tags: TagService): FastifyPluginAsyncZod =>
  async (app) => {
    // GET /tags and /tags/ (trailing slashes are ignored): the paged list.
    app.get('/tags', { schema: { querystring: TagListQuery } }, (req) => tags.list(req.tenant, req.query));
    app.get('/tags/list', (req) => tags.all(req.tenant));
    app.get('/tags/kanban', (req) => tags.kanbanLanes(req.tenant));
    app.get('/tags/:id', { schema: { params: IdParam } }, (req) => tags.get(req.tenant, req.params.id));
    app.post('/tags', { schema: { body: TagInput } }, async (req, reply) =>
      reply.status(201).send(await tags.create(req.tenant, req.body)),
    );
    app.put('/tags/:id', { schema: { params: IdParam, body: TagUpdate } }, (req) =>
      tags.update(req.tenant, req.params.id, req.body),
    );
    app.delete('/tags/:id', { schema: { params: IdParam } }, (req) => tags.remove(req.tenant, req.params.id));
    app.post('/tags/sync', { schema: { body: TagSyncInput } }, (req) => tags.sync(req.tenant, req.body));

    app.get('/ticket/kanban', { schema: { querystring: KanbanQuery } }, (req) =>
      tags.kanbanTickets(req.tenant, req.query),
    );
    app.put('/ticket-tags/:ticketId/:tagId', { schema: { params: TicketTagParams } }, (req) =>
      tags.addToTicket(req.tenant, req.params.ticketId, req.params.tagId),
    );
    app.delete('/ticket-tags/:ticketId/:tagId', { schema: { params: TicketTagParams } }, (req) =>
      tags.removeFromTicket(req.tenant, req.params.ticketId, req.params.tagId),
    );
    app.delete('/ticket-tags/:ticketId', { schema: { params: TicketIdParam } }, (req) =>
      tags.clearKanban(req.tenant, req.params.ticketId),
    );
  };
