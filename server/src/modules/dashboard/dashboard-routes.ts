import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ClosingStats,
  DashboardCounters,
  DashboardQuery,
  DashboardRangeQuery,
  FileAnswer,
  SourceTrackingList,
  TicketsPerChannel,
  TicketsPerDay,
  TicketsPerUser,
} from '@recado/contracts';
import type { DashboardService } from './dashboard-service.js';
import { access } from '../../http/access.js';

/** The dashboard (docs/metrics.md "Dashboard"): admins only, one company's figures, definitions in docs/metrics.md. */
export const dashboardRoutes =
  (dashboard: DashboardService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/dashboard',
      { config: access.admin, schema: { response: { 200: DashboardCounters }, querystring: DashboardQuery } },
      (req) => dashboard.counters(req.tenant, req.query),
    );
    app.get(
      '/dashboard/ticketsUsers',
      {
        config: access.admin,
        schema: { response: { 200: z.array(TicketsPerUser) }, querystring: DashboardRangeQuery },
      },
      (req) => dashboard.ticketsUsers(req.tenant, req.query),
    );
    app.get(
      '/dashboard/ticketsDay',
      {
        config: access.admin,
        schema: { response: { 200: z.array(TicketsPerDay) }, querystring: DashboardRangeQuery },
      },
      (req) => dashboard.ticketsDay(req.tenant, req.query),
    );
    app.get(
      '/dashboard/ticketsChannel',
      {
        config: access.admin,
        schema: { response: { 200: z.array(TicketsPerChannel) }, querystring: DashboardRangeQuery },
      },
      (req) => dashboard.ticketsChannel(req.tenant, req.query),
    );
    app.get(
      '/dashboard/closing',
      {
        config: access.admin,
        schema: { response: { 200: ClosingStats }, querystring: DashboardRangeQuery },
      },
      (req) => dashboard.closingStats(req.tenant, req.query),
    );
    app.get(
      '/dashboard/sourceTracking',
      {
        config: access.admin,
        schema: { response: { 200: SourceTrackingList }, querystring: DashboardRangeQuery },
      },
      (req) => dashboard.sourceTracking(req.tenant, req.query),
    );
    app.get(
      '/dashboard/export',
      { config: access.admin, schema: { response: { 200: FileAnswer }, querystring: DashboardRangeQuery } },
      async (req, reply) => {
        const { filename, csv } = await dashboard.exportCsv(req.tenant, req.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .send(csv);
      },
    );
  };
