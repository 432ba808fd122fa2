import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  KanbanQuery,
  KanbanTickets,
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
import { resourceRoutes } from '../../http/route-kit.js';

/** Tags (docs/team-tools.md "Tags and kanban"), the tags of a ticket, and the kanban board's tickets. */
export const tagRoutes =
  (tags: TagService): FastifyPluginAsyncZod =>
  async (app) => {
    // GET /tags and /tags/ (trailing slashes are ignored): the paged list.
    resourceRoutes(app, {
      base: '/tags',
      view: Tag,
      read: access.user,
      write: access.user,
      list: {
        query: TagListQuery,
        answer: hasMoreOf('tags', Tag),
        run: (req) => tags.list(req.tenant, req.query),
      },
      all: { answer: z.array(Tag), run: (req) => tags.all(req.tenant) },
      collection: (app) => {
        app.get(
          '/tags/kanban',
          { config: access.plan('useKanban'), schema: { response: { 200: listOf('lista', Tag) } } },
          (req) => tags.kanbanLanes(req.tenant),
        );
      },
      show: { run: (req) => tags.get(req.tenant, req.params.id) },
      create: { body: TagInput, run: (req) => tags.create(req.tenant, req.body) },
      update: { body: TagUpdate, run: (req) => tags.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => tags.remove(req.tenant, req.params.id) },
    });
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
      {
        config: access.user,
        schema: { noBody: true, response: { 200: TicketView }, params: TicketTagParams },
      },
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
