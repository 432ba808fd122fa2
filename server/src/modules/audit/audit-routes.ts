import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AuditLogPage, AuditLogQuery, FileAnswer } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { AuditService } from './audit-service.js';

/** The audit log (docs/audit.md): admins read their company's; super users also the platform's (?scope=platform). */
export const auditRoutes =
  (audit: AuditService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/audit-log',
      { config: access.admin, schema: { querystring: AuditLogQuery, response: { 200: AuditLogPage } } },
      (req) => audit.list(req.tenant, req.query),
    );
    app.get(
      '/audit-log.csv',
      { config: access.admin, schema: { querystring: AuditLogQuery, response: { 200: FileAnswer } } },
      async (req, reply) => {
        const { filename, csv } = await audit.csv(req.tenant, req.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .send(csv);
      },
    );
  };
