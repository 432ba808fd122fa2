import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AutomationAlertList, IdParam, TicketView } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { AutomationService } from './automation-service.js';

/** The hand-off engine's calls (docs/automation.md): the later hand-off, and the admins' incident list. */
export const automationRoutes =
  (automation: AutomationService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/tickets/:id/handoff',
      { config: access.user, schema: { noBody: true, params: IdParam, response: { 200: TicketView } } },
      (req) => automation.handoff(req.tenant, req.params.id),
    );
    app.get(
      '/automation/alerts',
      { config: access.admin, schema: { response: { 200: AutomationAlertList } } },
      (req) => automation.alerts(req.tenant.companyId),
    );
  };
