import type { AppModule } from '../app-module.js';
import { auditRoutes } from './audit-routes.js';
import type { AuditService } from './audit-service.js';

/** #32.6 The audit log: its routes and the daily retention purge (docs/audit.md). The hook is app.ts's (installAudit). */
export const auditModule = (service: AuditService): AppModule => ({
  name: 'audit',
  routes: [auditRoutes(service)],
  jobs: Object.values(service.jobs),
});
