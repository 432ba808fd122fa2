import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  Flow,
  FlowImportInput,
  FlowInput,
  FlowListQuery,
  FlowRunView,
  FlowSummary,
  FlowTryAnswer,
  FlowTryInput,
  FlowUpdate,
  FlowValidation,
  FlowVersion,
  FileAnswer,
  IdParam,
  TicketFlowInput,
  pageOf,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import type { FlowService } from './flow-service.js';

/**
 * The graph is read as it comes and checked by the service, so a schema failure names the NODE
 * (400 ERR_FLOW_INVALID with issues), not only a JSON path; its shape is FlowGraph (contracts/flows.ts).
 */
const Graph = z
  .unknown()
  .meta({ description: 'A FlowGraph (contracts/src/flows.ts); checked by the service.' });
const CreateBody = FlowInput.extend({ graph: Graph.optional() });
const UpdateBody = FlowUpdate.extend({ graph: Graph.optional() });
const read = access.plan('useFlows');
const write = access.plan('useFlows', 'admin');

export const flowRoutes =
  (flows: FlowService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/flows',
      view: Flow,
      read,
      write,
      list: {
        query: FlowListQuery,
        answer: pageOf('flows', FlowSummary),
        run: (req) => flows.list(req.tenant, req.query),
      },
      all: { answer: z.array(FlowSummary), run: (req) => flows.all(req.tenant) },
      collection: (api) =>
        api.post(
          '/flows/import',
          { config: write, schema: { body: FlowImportInput, response: { 201: Flow } } },
          async (req, reply) => reply.status(201).send(await flows.importFile(req.tenant, req.body)),
        ),
      show: { run: (req) => flows.get(req.tenant, req.params.id) },
      create: { body: CreateBody, run: (req) => flows.create(req.tenant, req.body) },
      update: { body: UpdateBody, run: (req) => flows.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => flows.remove(req.tenant, req.params.id) },
    });
    app.post(
      '/flows/:id/validate',
      {
        config: read,
        schema: {
          params: IdParam,
          body: z.object({ graph: Graph.optional() }).optional(),
          response: { 200: FlowValidation },
        },
      },
      (req) => flows.validate(req.tenant, req.params.id, req.body?.graph),
    );
    app.post(
      '/flows/:id/publish',
      { config: write, schema: { noBody: true, params: IdParam, response: { 200: Flow } } },
      (req) => flows.publish(req.tenant, req.params.id),
    );
    app.get(
      '/flows/:id/versions/:version',
      {
        config: read,
        schema: {
          params: IdParam.extend({ version: z.coerce.number().int().min(1).max(1_000_000) }),
          response: { 200: FlowVersion },
        },
      },
      (req) => flows.version(req.tenant, req.params.id, req.params.version),
    );
    app.get(
      '/flows/:id/export',
      { config: read, schema: { params: IdParam, response: { 200: FileAnswer } } },
      async (req, reply) => {
        const { file, filename } = await flows.exportFile(req.tenant, req.params.id);
        return reply
          .header('content-type', 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .send(JSON.stringify(file, null, 2));
      },
    );
    app.post(
      '/flows/:id/try',
      {
        config: write,
        schema: { params: IdParam, body: FlowTryInput.optional(), response: { 201: FlowTryAnswer } },
      },
      async (req, reply) =>
        reply.status(201).send(await flows.tryDraft(req.tenant, req.params.id, req.body ?? {})),
    );
    app.post(
      '/tickets/:id/flow',
      { config: read, schema: { params: IdParam, body: TicketFlowInput, response: { 200: FlowRunView } } },
      (req) => flows.sendTicket(req.tenant, req.params.id, req.body.flowId),
    );
  };
