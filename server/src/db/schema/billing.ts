import {
  boolean,
  date,
  index,
  integer,
  numeric,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { companies, plans, timestamps } from './platform.js';

/** One invoice per company per billing period (docs/billing.md): the period is the dueDate it pays. */
export const invoices = pgTable(
  'invoices',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    detail: text('detail').notNull(),
    value: numeric('value', { precision: 12, scale: 2, mode: 'number' }).notNull(),
    dueDate: date('due_date', { mode: 'string' }).notNull(),
    /** open | paid | expired | review (a short payment held for the super user's review) */
    status: text('status').notNull().default('open'),
    /** The plan this invoice pays for; a paid invoice moves the company to it. */
    planId: integer('plan_id').references(() => plans.id, { onDelete: 'set null' }),
    /** The provider's charge (Asaas payment id) of the latest checkout. */
    providerPaymentId: text('provider_payment_id'),
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('invoices_company_due_uq').on(t.companyId, t.dueDate),
    uniqueIndex('invoices_provider_payment_uq').on(t.providerPaymentId),
    index('invoices_company_idx').on(t.companyId, t.dueDate),
  ],
);

/** The company's customer at the payment provider, created once and reused. */
export const billingCustomers = pgTable('billing_customers', {
  companyId: integer('company_id')
    .primaryKey()
    .references(() => companies.id, { onDelete: 'cascade' }),
  providerCustomerId: text('provider_customer_id').notNull(),
  ...timestamps,
});

/** Provider webhook events already processed: Asaas delivers at least once. */
export const billingEvents = pgTable('billing_events', {
  id: text('id').primaryKey(),
  event: text('event').notNull(),
  paymentId: text('payment_id'),
  receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Each provider payment (charge) and what it granted (docs/billing.md): one payment grants at most one period,
 * whatever the order of its events. `granted` moved the company's dueDate from `dueBefore` to `dueAfter` (and
 * its plan from `planBefore` to `planAfter`); `held` paid less than its invoice and waits for review; `reverted`
 * was refunded or charged back (what it granted taken back) and never grants again.
 */
export const billingPayments = pgTable(
  'billing_payments',
  {
    providerPaymentId: text('provider_payment_id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    invoiceId: integer('invoice_id').references(() => invoices.id, { onDelete: 'set null' }),
    /** The value the provider says was paid (null when its event did not say). */
    value: numeric('value', { precision: 12, scale: 2, mode: 'number' }),
    /** granted | held | reverted */
    status: text('status').notNull(),
    dueBefore: date('due_before', { mode: 'string' }),
    dueAfter: date('due_after', { mode: 'string' }),
    planBefore: integer('plan_before'),
    planAfter: integer('plan_after'),
    trialBefore: boolean('trial_before'),
    ...timestamps,
  },
  (t) => [
    index('billing_payments_company_idx').on(t.companyId),
    index('billing_payments_invoice_idx').on(t.invoiceId),
  ],
);
