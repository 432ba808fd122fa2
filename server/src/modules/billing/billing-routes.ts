import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CheckoutInput, InvoiceListQuery } from '@recado/contracts';
import type { BillingService } from './billing-service.js';

/** Billing routes stay open to a blocked company: paying is how it gets unblocked (operations §4). */
const billing = { billing: true } as const;

export const billingRoutes =
  (service: BillingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/invoices/all', { schema: { querystring: InvoiceListQuery }, config: billing }, (req) =>
      service.list(req.tenant, req.query.searchParam, req.query.pageNumber),
    );
    app.post('/subscription', { schema: { body: CheckoutInput }, config: billing }, (req) =>
      service.checkout(req.tenant, req.body),
    );
    app.post('/asaas/subscriptions', { config: billing }, (req) => service.subscribe(req.tenant));
    app.get('/asaas/subscriptions/link', { config: billing }, (req) => service.paymentLink(req.tenant));
  };

/** Asaas's webhook: no user token, the `asaas-access-token` header instead (docs/billing.md). */
export const billingWebhookRoutes =
  (service: BillingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post('/webhooks/asaas', { bodyLimit: 256 * 1024 }, async (req, reply) => {
      const token = req.headers['asaas-access-token'];
      if (!service.tokenMatches(typeof token === 'string' ? token : undefined))
        return reply.status(401).send({ error: 'ERR_NO_PERMISSION', message: 'Invalid webhook token' });
      const outcome = await service.webhook(req.body);
      return { received: true, outcome };
    });
  };
