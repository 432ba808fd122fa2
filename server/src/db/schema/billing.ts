import {
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
    /** open | paid | expired */
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
