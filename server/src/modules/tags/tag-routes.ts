import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  KanbanQuery,
  KanbanTickets,
  MessageAnswer,
  Tag,
  TagInput,
  TagListQuery,
  TagSyncInput,
  TagUpdate,
  TicketIdParam,
  TicketTagParams,
  TicketView,
  hasMoreOf,
  listOf,
} from '@recado/contracts';
import type { TagService } from './tag-service.js';
import { access } from '../../http/access.js';

/** Tags (docs/team-tools.md "Tags and kanban"), the tags of a ticket, and the kanban board's tickets. */
export const tagRoutes =
  (tags: TagService): FastifyPluginAsyncZod =>
  async (app) => {
    // GET /tags and /tags/ (trailing slashes are ignored): the paged list.
    app.get(
      '/tags',
      {
        config: access.user,
        schema: { response: { 200: hasMoreOf('tags', Tag) }, querystring: TagListQuery },
      },
      (req) => tags.list(req.tenant, req.query),
    );
    app.get('/tags/list', { config: access.user, schema: { response: { 200: z.array(Tag) } } }, (req) =>
      tags.all(req.tenant),
    );
    app.get(
      '/tags/kanban',
      { config: access.plan('useKanban'), schema: { response: { 200: listOf('lista', Tag) } } },
      (req) => tags.kanbanLanes(req.tenant),
    );
    app.get(
      '/tags/:id',
      { config: access.user, schema: { response: { 200: Tag }, params: IdParam } },
      (req) => tags.get(req.tenant, req.params.id),
    );
    app.post(
      '/tags',
      { config: access.user, schema: { response: { 201: Tag }, body: TagInput } },
      async (req, reply) => reply.status(201).send(await tags.create(req.tenant, req.body)),
    );
    app.put(
      '/tags/:id',
      { config: access.user, schema: { response: { 200: Tag }, params: IdParam, body: TagUpdate } },
      (req) => tags.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/tags/:id',
      { config: access.user, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => tags.remove(req.tenant, req.params.id),
    );
    app.post(
      '/tags/sync',
      { config: access.user, schema: { response: { 200: TicketView }, body: TagSyncInput } },
      (req) => tags.sync(req.tenant, req.body),
    );

    app.get(
      '/ticket/kanban',
      {
        config: access.plan('useKanban'),
        schema: { response: { 200: KanbanTickets }, querystring: KanbanQuery },
      },
      (req) => tags.kanbanTickets(req.tenant, req.query),
    );
    app.put(
      '/ticket-tags/:ticketId/:tagId',
      { config: access.user, schema: { response: { 200: TicketView }, params: TicketTagParams } },
      (req) => tags.addToTicket(req.tenant, req.params.ticketId, req.params.tagId),
    );
    app.delete(
      '/ticket-tags/:ticketId/:tagId',
      { config: access.user, schema: { response: { 200: TicketView }, params: TicketTagParams } },
      (req) => tags.removeFromTicket(req.tenant, req.params.ticketId, req.params.tagId),
    );
    app.delete(
      '/ticket-tags/:ticketId',
      { config: access.user, schema: { response: { 200: TicketView }, params: TicketIdParam } },
      (req) => tags.clearKanban(req.tenant, req.params.ticketId),
    );
  };
