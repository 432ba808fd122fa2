import type { AppModule } from '../app-module.js';
import { billingRoutes, billingWebhookRoutes } from './billing-routes.js';
import type { BillingService } from './billing-service.js';

/** Invoices and payment (docs/billing.md); Asaas's webhook carries its own token header, no user token. */
export const billingModule = (billing: BillingService): AppModule => ({
  name: 'billing',
  openRoutes: [billingWebhookRoutes(billing)],
  routes: [billingRoutes(billing)],
  jobs: Object.values(billing.jobs),
});
