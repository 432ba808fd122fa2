import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  FileAnswer,
  WidgetConfigView,
  WidgetMessageInput,
  WidgetMessageView,
  WidgetVisitorAnswer,
  WidgetVisitorInput,
} from '@recado/contracts';
import { access } from '../../../http/access.js';
import { multipartBody } from '../../../http/openapi.js';
import { sendStoredFile } from '../../../http/stored-file.js';
import { readOneFile } from '../../../http/uploads.js';
import { WIDGET_FILE_TYPES, WIDGET_LIMITS, type Widget, type WidgetService } from './webchat-service.js';

const Params = z.object({ publicId: z.string().max(60) });
const FileParams = Params.extend({ id: z.string().max(100) });
const Ok = z.object({ ok: z.boolean() });

const originOf = (req: FastifyRequest) => {
  const o = req.headers.origin;
  return typeof o === 'string' && o !== 'null' ? o : undefined;
};
const tokenOf = (req: FastifyRequest) => {
  const h = req.headers.authorization;
  return typeof h === 'string' ? h.replace(/^Bearer\s+/i, '') : undefined;
};

/**
 * #34.1 The widget's HTTP API (docs/channels.md "Website chat"), under /api, public: each call names its
 * widget; an Origin not on the widget's list is refused before anything is read or answered; calls of a
 * visitor carry its token (`Authorization: Bearer`). CORS answers only the widget's allowed origins.
 */
export const webchatRoutes =
  (widgets: WidgetService): FastifyPluginAsyncZod =>
  async (app) => {
    const widgetOf = new WeakMap<FastifyRequest, Widget>();

    // The origin check and CORS for every route here, preflights included.
    app.addHook('onRequest', async (req, reply) => {
      const publicId = (req.params as { publicId?: string }).publicId ?? '';
      const origin = originOf(req);
      const w = await widgets.widgetFor(publicId, origin);
      widgetOf.set(req, w);
      if (origin) {
        void reply.header('access-control-allow-origin', origin);
        void reply.header('vary', 'Origin');
      }
    });
    const widget = (req: FastifyRequest) => widgetOf.get(req)!;
    const visitor = (req: FastifyRequest) => widgets.visitorOf(widget(req), tokenOf(req));

    app.options(
      '/widget/:publicId/*',
      { config: access.public, schema: { hide: true, params: Params.extend({ '*': z.string() }) } },
      async (_req, reply: FastifyReply) =>
        reply
          .status(204)
          .header('access-control-allow-methods', 'GET, POST')
          .header('access-control-allow-headers', 'authorization, content-type')
          .header('access-control-max-age', '600')
          .send(),
    );

    app.get(
      '/widget/:publicId/config',
      { config: access.public, schema: { params: Params, response: { 200: WidgetConfigView } } },
      async (req) => widgets.configView(widget(req)),
    );

    app.post(
      '/widget/:publicId/visitors',
      {
        // Visitors a minute from one address.
        config: { ...access.public, customerText: true, rateLimit: { max: 20, timeWindow: '1 minute' } },
        schema: { params: Params, body: WidgetVisitorInput, response: { 201: WidgetVisitorAnswer } },
      },
      async (req, reply) => reply.status(201).send(await widgets.createVisitor(widget(req), req.body)),
    );

    app.get(
      '/widget/:publicId/messages',
      { config: access.public, schema: { params: Params, response: { 200: z.array(WidgetMessageView) } } },
      async (req) => widgets.history(widget(req), await visitor(req)),
    );

    app.post(
      '/widget/:publicId/messages',
      {
        config: { ...access.public, customerText: true },
        schema: { params: Params, body: WidgetMessageInput, response: { 201: WidgetMessageView } },
      },
      async (req, reply) =>
        reply.status(201).send(await widgets.sendText(widget(req), await visitor(req), req.body.body)),
    );

    app.post(
      '/widget/:publicId/files',
      {
        config: access.public,
        schema: {
          params: Params,
          documentedBody: { 'multipart/form-data': multipartBody({}, { file: 'one' }) },
          response: { 201: WidgetMessageView },
        },
      },
      async (req, reply) => {
        const w = widget(req);
        const v = await visitor(req);
        const { file } = await readOneFile(req, {
          maxBytes: WIDGET_LIMITS.fileBytes,
          accept: (f) => WIDGET_FILE_TYPES.test(f.mimetype),
        });
        return reply.status(201).send(await widgets.sendFile(w, v, file));
      },
    );

    app.get(
      '/widget/:publicId/files/:id',
      { config: access.public, schema: { params: FileParams, response: { 200: FileAnswer } } },
      async (req, reply) => {
        const f = await widgets.file(widget(req), await visitor(req), req.params.id);
        return sendStoredFile(reply, { filename: f.filename, type: f.mimetype, data: f.data }, 0);
      },
    );

    app.post(
      '/widget/:publicId/seen',
      { config: access.public, schema: { params: Params, noBody: true, response: { 200: Ok } } },
      async (req) => {
        await widgets.seen(widget(req), await visitor(req));
        return { ok: true };
      },
    );

    app.post(
      '/widget/:publicId/typing',
      {
        config: access.public,
        schema: { params: Params, body: z.object({ typing: z.boolean() }), response: { 200: Ok } },
      },
      async (req) => {
        await widgets.typing(widget(req), await visitor(req), req.body.typing);
        return { ok: true };
      },
    );
  };
