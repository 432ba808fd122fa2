import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FileAnswer, SimulatorCustomer, SimulatorInbound, SimulatorMessageView } from '@recado/contracts';
import type { SimulatorService } from './simulator-service.js';
import { access } from '../../http/access.js';
import { sendStoredFile } from '../../http/stored-file.js';

const Params = z.object({ whatsappId: z.coerce.number().int().positive().max(2147483647) });
const NumberParams = Params.extend({
  number: z
    .string()
    .trim()
    .regex(/^\+?\d{6,20}$/, 'phone number'),
});

export const simulatorRoutes =
  (simulator: SimulatorService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/simulator/:whatsappId/inbound',
      {
        // The customer's side: what they write is cleaned where it is stored, never refused.
        config: { ...access.user, customerText: true },
        schema: {
          response: { 202: z.looseObject({ id: z.string() }) },
          params: Params,
          body: SimulatorInbound,
        },
        bodyLimit: 30 * 1024 * 1024,
      },
      async (req, reply) => {
        const { id } = await simulator.inbound(req.tenant, req.params.whatsappId, req.body);
        return reply.status(202).send({ id });
      },
    );
    app.get(
      '/simulator/:whatsappId/conversations',
      { config: access.user, schema: { response: { 200: z.array(SimulatorCustomer) }, params: Params } },
      (req) => simulator.customers(req.tenant, req.params.whatsappId),
    );
    app.get(
      '/simulator/:whatsappId/conversations/:number',
      {
        config: access.user,
        schema: { response: { 200: z.array(SimulatorMessageView) }, params: NumberParams },
      },
      (req) => simulator.conversation(req.tenant, req.params.whatsappId, req.params.number),
    );
    app.post(
      '/simulator/:whatsappId/read/:number',
      {
        config: access.user,
        schema: {
          noBody: true,
          response: { 200: z.looseObject({ read: z.number() }) },
          params: NumberParams,
        },
      },
      (req) => simulator.read(req.tenant, req.params.whatsappId, req.params.number),
    );
    app.get(
      '/simulator/:whatsappId/media/:providerId',
      {
        config: access.user,
        schema: {
          response: { 200: FileAnswer },
          params: Params.extend({ providerId: z.string().min(1).max(128) }),
        },
      },
      async (req, reply) => {
        const file = await simulator.media(req.tenant, req.params.whatsappId, req.params.providerId);
        return sendStoredFile(reply, { ...file, type: file.mimetype }, 3600);
      },
    );
  };
