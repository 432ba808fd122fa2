import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  LANGUAGES,
  LanguageParam,
  ListQuery,
  MessageAnswer,
  UserInput,
  UserUpdate,
  UserView,
  hasMoreOf,
} from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { UserService } from './user-service.js';
import { access } from '../../http/access.js';

const UserPatch = patchSchema(UserUpdate);

export const userRoutes =
  (users: UserService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/users/',
      {
        config: access.user,
        schema: { response: { 200: hasMoreOf('users', UserView) }, querystring: ListQuery },
      },
      (req) => users.page(req.tenant, req.query.searchParam, req.query.pageNumber),
    );
    app.get('/users/list', { config: access.user, schema: { response: { 200: z.array(UserView) } } }, (req) =>
      users.list(req.tenant),
    );
    app.get(
      '/users/:id',
      { config: access.user, schema: { response: { 200: UserView }, params: IdParam } },
      (req) => users.get(req.tenant, req.params.id),
    );
    app.post(
      '/users',
      { config: access.admin, schema: { response: { 201: UserView }, body: UserInput } },
      async (req, reply) => reply.status(201).send(await users.create(req.tenant, req.body)),
    );
    app.put(
      '/users/:id',
      { config: access.user, schema: { response: { 200: UserView }, params: IdParam, body: UserPatch } },
      (req) => users.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/users/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => users.remove(req.tenant, req.params.id),
    );
    app.post(
      '/users/set-language/:lang',
      {
        config: access.user,
        schema: {
          noBody: true,
          response: { 200: z.looseObject({ language: z.enum(LANGUAGES) }) },
          params: LanguageParam,
        },
      },
      (req) => users.setLanguage(req.tenant, req.params.lang),
    );
  };
