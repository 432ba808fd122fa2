import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { z } from 'zod';
import {
  APP_VERSION,
  ERROR_CODES,
  ErrorResponse,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_EVENTS,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookPayloadSchema,
} from '@recado/contracts';
import { describeAccess, markPublic, type Access } from './access.js';

/** The content types a body is documented in. */
type BodyType = 'application/json' | 'multipart/form-data';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The body of a route that reads it itself (multipart uploads, JSON parsed by hand to answer its own
     * error): documented in the OpenAPI document, one schema per content type, never validated by Fastify.
     */
    documentedBody?: Partial<Record<BodyType, ZodType>>;
    /** The route takes no body (an action named by its path): the document's check needs to be told. */
    noBody?: true;
  }
}

/** A file part of a multipart body. */
export const UploadedFilePart = z.string().meta({ format: 'binary', description: 'a file' });

/** A multipart body: its text fields (a zod object's shape) and its file fields. */
export const multipartBody = (fields: z.ZodRawShape, files: Record<string, 'one' | 'many'>) =>
  z.object({
    ...fields,
    ...Object.fromEntries(
      Object.entries(files).map(([name, n]) => [
        name,
        n === 'one' ? UploadedFilePart : z.array(UploadedFilePart),
      ]),
    ),
  });

/** The body of the routes that take one file (any field name; `file` documented). */
export const ONE_FILE_BODY = { 'multipart/form-data': multipartBody({}, { file: 'one' }) };

/**
 * `operationId` for client generators: the method and the path, camel-cased, path parameters as `By<Name>`
 * (`POST /api/messages/{ticketId}` → `postMessagesByTicketId`). Unique because method + path is.
 */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api\//, '')
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => {
      const param = /^[:{](\w+)}?$/.exec(seg);
      return param ? ['by', ...param[1]!.split(/(?=[A-Z])/)] : seg.split(/[^a-zA-Z0-9]+/);
    })
    .filter(Boolean);
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return method.toLowerCase() + words.map(cap).join('');
}

/** Security schemes of the document: a signed-in user's access token, a connection's token, an API token. */
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
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A personal or company API token (rec_pat_…, made on /tokens): every route a signed-in user may call, ' +
      "under the owner's permissions and the token's scope (read: GET; write: any method; admin: admin routes too).",
  },
} as const;

/** Signed-in routes take either a session's access token or an API token (docs/api.md "API tokens"). */
const securityOf = (a: Access | undefined) =>
  a === 'public'
    ? []
    : a === 'connection'
      ? [{ connectionToken: [] }]
      : [{ userToken: [] }, { apiToken: [] }];

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
      const { documentedBody, noBody, ...rest } = schema ?? {};
      const method = [route.method].flat()[0] ?? 'get';
      const withErrors = {
        ...rest,
        tags: schema?.tags ?? [tag],
        operationId: schema?.operationId ?? operationIdOf(method, url),
        security: securityOf(accessRule),
        description: [
          schema?.description,
          `Access: ${describeAccess(accessRule)}.`,
          noBody && 'Takes no body.',
        ]
          .filter(Boolean)
          .join('\n\n'),
        response: { ...(schema?.response as object), '4XX': ErrorResponse, '5XX': ErrorResponse },
      };
      const out = jsonSchemaTransform({ ...input, schema: withErrors as typeof schema });
      if (!documentedBody) return out;
      // Each content type's zod schema through the same converter (components by $ref, input side).
      const content = Object.fromEntries(
        Object.entries(documentedBody).map(([type, zod]) => [
          type,
          { schema: jsonSchemaTransform({ ...input, schema: { body: zod } }).schema.body },
        ]),
      );
      return { ...out, schema: { ...out.schema, body: { content } } };
    },
    // The document, plus the events Recado sends out (OpenAPI 3.1 `webhooks`).
    transformObject: (input) =>
      ({ ...jsonSchemaTransformObject(input), webhooks: webhooksSection(input) }) as ReturnType<
        typeof jsonSchemaTransformObject
      >,
  });
}

/** The outgoing webhook events (OpenAPI 3.1 `webhooks`), each payload from contracts/src/webhooks.ts. */
function webhooksSection(input: Parameters<typeof jsonSchemaTransformObject>[0]) {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description,
  });
  const parameters = [
    header(
      WEBHOOK_SIGNATURE_HEADER,
      "`sha256=<hex>`: HMAC-SHA256 with the webhook's secret over the raw body (docs/webhooks.md).",
    ),
    header(WEBHOOK_TIMESTAMP_HEADER, 'Unix seconds of this attempt; reject old ones.'),
    header(WEBHOOK_EVENT_HEADER, 'The event name.'),
    header(WEBHOOK_DELIVERY_HEADER, "The delivery's id in the webhook's log."),
  ];
  // The answer side of the converter: what Recado sends, with registered views as component $refs.
  const asJson = (zod: ZodType) =>
    (
      jsonSchemaTransform({
        ...input,
        url: '/webhook',
        route: { method: 'POST', url: '/webhook' },
        schema: { response: { 200: zod } },
      } as unknown as Parameters<typeof jsonSchemaTransform>[0]).schema.response as Record<string, unknown>
    )[200];
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `webhook${operationIdOf('', event.replace('.', '/'))}`,
          tags: ['webhook events'],
          summary: `${event}: sent to the webhooks subscribed to it`,
          description:
            'Recado POSTs this JSON to your URL. Answer 2xx within 10 s; anything else is retried with ' +
            'back-off (docs/webhooks.md).',
          parameters,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: asJson(webhookPayloadSchema(event)) } },
          },
          responses: { '2XX': { description: 'Received.' } },
        },
      },
    ]),
  );
}

/** The document and its UI, as routes of the /api prefix (public, hidden from the document itself). */
export async function openApiRoutes(api: FastifyInstance): Promise<void> {
  api.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, () => api.swagger());
  await api.register(async (docs) => {
    docs.addHook('onRoute', markPublic);
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // Its HTML names its files by absolute path: without the plugin's /api prefix they would be the SPA's
      // index.html, and the browser refuses HTML as a script (a blank page).
      indexPrefix: api.prefix,
      // The UI fetches the document from the route above; its own files are served from 'self' (helmet's CSP).
      uiConfig: { url: '/api/openapi.json', deepLinking: true },
      staticCSP: false,
    });
  });
}
