import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CheckoutInput,
  hasMoreOf,
  Invoice,
  InvoiceListQuery,
  JsonObject,
  PaymentLink,
  PixCharge,
  ProviderSubscription,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import { WebhookBody as AsaasWebhookBody, type BillingService } from './billing-service.js';

/** Billing routes stay open to a blocked company: paying is how it gets unblocked (docs/billing.md). */
const billing = { billing: true, ...access.admin } as const;

export const billingRoutes =
  (service: BillingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/invoices/all',
      {
        schema: { querystring: InvoiceListQuery, response: { 200: hasMoreOf('records', Invoice) } },
        config: billing,
      },
      (req) => service.list(req.tenant, req.query.searchParam, req.query.pageNumber),
    );
    app.post(
      '/subscription',
      { schema: { body: CheckoutInput, response: { 200: PixCharge } }, config: billing },
      (req) => service.checkout(req.tenant, req.body),
    );
    app.post(
      '/asaas/subscriptions',
      { config: billing, schema: { noBody: true, response: { 200: ProviderSubscription } } },
      (req) => service.subscribe(req.tenant),
    );
    app.get(
      '/asaas/subscriptions/link',
      { config: billing, schema: { response: { 200: PaymentLink } } },
      (req) => service.paymentLink(req.tenant),
    );
  };

/** Asaas's webhook: no user token, the `asaas-access-token` header instead (docs/billing.md). */
export const billingWebhookRoutes =
  (service: BillingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/webhooks/asaas',
      {
        bodyLimit: 256 * 1024,
        config: access.public,
        // Parsed by the service (a malformed event is logged and ignored, never an error to Asaas).
        schema: {
          documentedBody: { 'application/json': AsaasWebhookBody },
          response: { 200: JsonObject, 401: JsonObject },
        },
      },
      async (req, reply) => {
        const token = req.headers['asaas-access-token'];
        if (!service.tokenMatches(typeof token === 'string' ? token : undefined))
          return reply.status(401).send({ error: 'ERR_NO_PERMISSION', message: 'Invalid webhook token' });
        const outcome = await service.webhook(req.body);
        return { received: true, outcome };
      },
    );
  };
