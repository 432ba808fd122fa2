import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { APP_VERSION, ERROR_CODES, ErrorResponse } from '@recado/contracts';
import { describeAccess, markPublic, type Access } from './access.js';

/** Security schemes of the document: a signed-in user's access token, and a connection's API token. */
export const SECURITY_SCHEMES = {
  userToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The access token from POST /api/auth/login (refreshed by POST /api/auth/refresh_token).',
  },
  connectionToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A connection's API token (shown to admins on the connection dialog): the external messaging API.",
  },
} as const;

const securityOf = (a: Access | undefined) =>
  a === 'public' ? [] : a === 'connection' ? [{ connectionToken: [] }] : [{ userToken: [] }];

/**
 * OpenAPI 3.1 generated from the routes' zod schemas (docs/api.md): `/api/openapi.json` and a browsable
 * reference at `/api/docs`. Each operation carries its access (security scheme and a line in the
 * description) and the shared error answer for 4xx/5xx. Register before the routes (it listens to onRoute).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Recado API',
        version: APP_VERSION,
        description:
          'Every route of the Recado server. Failures answer `{ error, message }` with one of the ERR_* codes ' +
          `listed in the ErrorResponse schema (${ERROR_CODES.length} codes).`,
      },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: (input) => {
      const { schema, url, route } = input;
      const accessRule = route.config?.access as Access | undefined;
      const tag = url.replace(/^\/api\//, '').split('/')[0] || 'api';
      const withErrors = {
        ...schema,
        tags: schema?.tags ?? [tag],
        security: securityOf(accessRule),
        description: [schema?.description, `Access: ${describeAccess(accessRule)}.`]
          .filter(Boolean)
          .join('\n\n'),
        response: { ...(schema?.response as object), '4XX': ErrorResponse, '5XX': ErrorResponse },
      };
      return jsonSchemaTransform({ ...input, schema: withErrors as typeof schema });
    },
    transformObject: jsonSchemaTransformObject,
  });
}

/** The document and its UI, as routes of the /api prefix (public, hidden from the document itself). */
export async function openApiRoutes(api: FastifyInstance): Promise<void> {
  api.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, () => api.swagger());
  await api.register(async (docs) => {
    docs.addHook('onRoute', markPublic);
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // The UI fetches the document from the route above; its own files are served from 'self' (helmet's CSP).
      uiConfig: { url: '/api/openapi.json', deepLinking: true },
      staticCSP: false,
    });
  });
}
