import type { FastifyRequest } from 'fastify';
import { access } from '../../http/access.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ApiCheckInput,
  ApiCheckResult,
  ApiMessageStatus,
  ApiScheduleInput,
  ApiScheduleResult,
  ApiSendInput,
  ApiSendResult,
  IdParam,
} from '@recado/contracts';
import { AppError } from '../../http/errors.js';
import { MAX_UPLOAD_BYTES, MESSAGE_MEDIA, readUpload } from '../../http/uploads.js';
import { multipartBody } from '../../http/openapi.js';
import { hashApiToken } from './api-token.js';
import type { ApiCaller, ExternalApiService } from './external-api-service.js';

/** The files a multipart send may carry (field `medias`). */
const MAX_FILES = 10;

const fieldsError = (error: z.ZodError) =>
  new AppError(
    'ERR_VALIDATION',
    400,
    error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    { fields: error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  );

/**
 * The external API (docs/external-api.md), authenticated by a connection token rather than a user session;
 * registered outside the signed-in routes. Every call is limited per token (API_RATE_LIMIT a minute).
 */
export const externalApiRoutes =
  (api: ExternalApiService, opts: { rateLimit: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const callers = new WeakMap<FastifyRequest, ApiCaller>();
    const caller = (req: FastifyRequest) => callers.get(req)!;
    const config = {
      ...access.connection,
      rateLimit: {
        max: opts.rateLimit,
        timeWindow: 60_000,
        // Per token (hashed: the limiter's store never holds one); no token shares the address's bucket.
        keyGenerator: (req: FastifyRequest) => {
          const h = req.headers.authorization;
          return h ? `api:${hashApiToken(h)}` : `api-ip:${req.ip}`;
        },
      },
    };
    // The token is checked before the body is read: a wrong one costs no upload.
    app.addHook('onRequest', async (req) => {
      const c = await api.authenticate(req.headers.authorization);
      callers.set(req, c);
      // The company's subscription decides what it may write (http/subscription-block.ts).
      req.credentialCompanyId = c.companyId;
    });

    app.post(
      '/messages/send',
      {
        config,
        schema: {
          // Parsed below (JSON, or form data with the files), to answer the fields' errors in one shape.
          documentedBody: {
            'application/json': ApiSendInput,
            'multipart/form-data': multipartBody(ApiSendInput.shape, { medias: 'many' }),
          },
          response: { 201: ApiSendResult },
        },
      },
      async (req, reply) => {
        let input: ApiSendInput;
        let files: { mimetype: string; filename: string; data: Buffer }[] = [];
        if (req.isMultipart()) {
          // Form data: number, body, medias (several files), externalKey, quotedMsgId.
          const upload = await readUpload(req, {
            maxBytes: MAX_UPLOAD_BYTES,
            maxFiles: MAX_FILES,
            requireFile: false,
            accept: (f) => MESSAGE_MEDIA.test(f.mimetype),
          });
          const parsed = ApiSendInput.safeParse(upload.fields);
          if (!parsed.success) throw fieldsError(parsed.error);
          input = parsed.data;
          files = upload.files
            .filter((f) => f.data.length)
            .map(({ mimetype, filename, data }) => ({ mimetype, filename, data }));
        } else {
          const parsed = ApiSendInput.safeParse(req.body ?? {});
          if (!parsed.success) throw fieldsError(parsed.error);
          input = parsed.data;
        }
        const result = await api.send(caller(req), input, files);
        // The same externalKey again answers the first result (same status, `duplicate: true`).
        return reply.status(201).send(result);
      },
    );
    app.post(
      '/messages/schedule',
      { config, schema: { body: ApiScheduleInput, response: { 201: ApiScheduleResult } } },
      async (req, reply) => reply.status(201).send(await api.schedule(caller(req), req.body)),
    );
    app.get(
      '/messages/status/:id',
      { config, schema: { params: IdParam, response: { 200: ApiMessageStatus } } },
      (req) => api.status(caller(req), req.params.id),
    );
    app.post(
      '/contacts/check',
      { config, schema: { body: ApiCheckInput, response: { 200: ApiCheckResult } } },
      (req) => api.check(caller(req), req.body.number),
    );
  };
