import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  MessageAnswer,
  Queue,
  QueueInput,
  QueueListQuery,
  QueueOption,
  QueueOptionInput,
  QueueOptionListQuery,
  QueueOptionUpdate,
} from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { QueueService } from './queue-service.js';
import type { QueueOptionService } from './queue-option-service.js';
import { access } from '../../http/access.js';

// Only what is sent changes: a rename must not reset the schedules to the default week.
const QueuePatch = patchSchema(QueueInput);

export const queueRoutes =
  (queues: QueueService, options: QueueOptionService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/queue',
      { config: access.user, schema: { response: { 200: z.array(Queue) }, querystring: QueueListQuery } },
      (req) => queues.list(req.tenant, req.query.companyId),
    );
    app.get(
      '/queue/:id',
      { config: access.user, schema: { response: { 200: Queue }, params: IdParam } },
      (req) => queues.get(req.tenant, req.params.id),
    );
    app.post(
      '/queue',
      { config: access.admin, schema: { response: { 201: Queue }, body: QueueInput } },
      async (req, reply) => reply.status(201).send(await queues.create(req.tenant, req.body)),
    );
    app.put(
      '/queue/:id',
      { config: access.admin, schema: { response: { 200: Queue }, params: IdParam, body: QueuePatch } },
      (req) => queues.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/queue/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => queues.remove(req.tenant, req.params.id),
    );

    app.get(
      '/queue-options',
      {
        config: access.user,
        schema: { response: { 200: z.array(QueueOption) }, querystring: QueueOptionListQuery },
      },
      (req) => options.list(req.tenant, req.query),
    );
    app.get(
      '/queue-options/:id',
      { config: access.user, schema: { response: { 200: QueueOption }, params: IdParam } },
      (req) => options.get(req.tenant, req.params.id),
    );
    app.post(
      '/queue-options',
      { config: access.user, schema: { response: { 201: QueueOption }, body: QueueOptionInput } },
      async (req, reply) => reply.status(201).send(await options.create(req.tenant, req.body)),
    );
    app.put(
      '/queue-options/:id',
      {
        config: access.user,
        schema: { response: { 200: QueueOption }, params: IdParam, body: QueueOptionUpdate },
      },
      (req) => options.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/queue-options/:id',
      { config: access.user, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => options.remove(req.tenant, req.params.id),
    );
  };
