import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiTokenCreated, ApiTokenInput, ApiTokenList, IdParam, MessageAnswer } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { ApiTokenService } from './api-token-service.js';

/**
 * Personal API tokens (any signed-in user, their own) and company tokens (admins): docs/api.md "API tokens".
 * The token itself is in the creation answer only.
 */
export const apiTokenRoutes =
  (tokens: ApiTokenService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/api-tokens', { config: access.user, schema: { response: { 200: ApiTokenList } } }, (req) =>
      tokens.listMine(req.tenant),
    );
    app.post(
      '/api-tokens',
      { config: access.user, schema: { body: ApiTokenInput, response: { 201: ApiTokenCreated } } },
      async (req, reply) => reply.status(201).send(await tokens.createMine(req.tenant, req.body)),
    );
    app.delete(
      '/api-tokens/:id',
      { config: access.user, schema: { params: IdParam, response: { 200: MessageAnswer } } },
      (req) => tokens.revokeMine(req.tenant, req.params.id),
    );
    app.get(
      '/api-tokens/company',
      { config: access.admin, schema: { response: { 200: ApiTokenList } } },
      (req) => tokens.listCompany(req.tenant),
    );
    app.post(
      '/api-tokens/company',
      { config: access.admin, schema: { body: ApiTokenInput, response: { 201: ApiTokenCreated } } },
      async (req, reply) => reply.status(201).send(await tokens.createCompany(req.tenant, req.body)),
    );
    app.delete(
      '/api-tokens/company/:id',
      { config: access.admin, schema: { params: IdParam, response: { 200: MessageAnswer } } },
      (req) => tokens.revokeCompany(req.tenant, req.params.id),
    );
  };
