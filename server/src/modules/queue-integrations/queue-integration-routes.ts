import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  MessageAnswer,
  QueueIntegration,
  QueueIntegrationInput,
  QueueIntegrationListQuery,
  QueueIntegrationTestSession,
  WebhookSecret,
  hasMoreOf,
} from '@recado/contracts';
import type { QueueIntegrationService } from './queue-integration-service.js';
import { access } from '../../http/access.js';

/** Queue integrations (docs/automation.md). */
export const queueIntegrationRoutes =
  (integrations: QueueIntegrationService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/queueIntegration',
      {
        config: access.plan('useIntegrations'),
        schema: {
          response: { 200: hasMoreOf('queueIntegrations', QueueIntegration) },
          querystring: QueueIntegrationListQuery,
        },
      },
      (req) => integrations.list(req.tenant, req.query),
    );
    app.get(
      '/queueIntegration/:id',
      {
        config: access.plan('useIntegrations'),
        schema: { response: { 200: QueueIntegration }, params: IdParam },
      },
      (req) => integrations.get(req.tenant, req.params.id),
    );
    app.post(
      '/queueIntegration',
      {
        config: access.plan('useIntegrations'),
        schema: { response: { 201: QueueIntegration }, body: QueueIntegrationInput },
      },
      async (req, reply) => reply.status(201).send(await integrations.create(req.tenant, req.body)),
    );
    app.post(
      '/queueIntegration/testSession',
      {
        config: access.plan('useIntegrations'),
        schema: {
          response: { 200: z.looseObject({ message: z.string(), reply: z.string() }) },
          body: QueueIntegrationTestSession,
        },
      },
      (req) => integrations.testSession(req.tenant, req.body),
    );
    app.get(
      '/queueIntegration/:id/secret',
      {
        config: access.plan('useIntegrations', 'admin'),
        schema: { response: { 200: WebhookSecret }, params: IdParam },
      },
      (req) => integrations.hookSecret(req.tenant, req.params.id),
    );
    app.post(
      '/queueIntegration/:id/secret',
      {
        config: access.plan('useIntegrations', 'admin'),
        schema: { noBody: true, response: { 200: WebhookSecret }, params: IdParam },
      },
      (req) => integrations.hookSecret(req.tenant, req.params.id, true),
    );
    app.put(
      '/queueIntegration/:id',
      {
        config: access.plan('useIntegrations'),
        schema: { response: { 200: QueueIntegration }, params: IdParam, body: QueueIntegrationInput },
      },
      (req) => integrations.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/queueIntegration/:id',
      {
        config: access.plan('useIntegrations'),
        schema: { response: { 200: MessageAnswer }, params: IdParam },
      },
      (req) => integrations.remove(req.tenant, req.params.id),
    );
  };
