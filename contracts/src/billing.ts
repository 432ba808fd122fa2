import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';
import type { ResourceSpec } from './resources.js';
import { EXPIRY_GRACE_DAYS, RECURRENCE_MONTHS, type Recurrence } from './constants.js';

/** Billing (docs/billing.md): invoices, the Pix checkout, subscription blocking. */

/** docs/billing.md: the checkout's default custom plan, 3 users and 3 connections for R$ 49. */
export const CUSTOM_PLAN = { users: 3, connections: 3, price: 49 } as const;
/** Seats a custom plan may have (each of users and connections). */
export const CUSTOM_PLAN_MAX = 500;
/**
 * A custom plan's monthly price (docs/billing.md): the default plan's price per seat (users plus connections),
 * so 3 + 3 is R$ 49 and each seat more or less moves it by R$ 8.17. Computed here for both the review step
 * and the charge: the server never takes a price from the browser.
 */
export const customPlanPrice = (users: number, connections: number): number =>
  Math.round(
    (CUSTOM_PLAN.price * (users + connections) * 100) / (CUSTOM_PLAN.users + CUSTOM_PLAN.connections),
  ) / 100;

/** `review`: a payment of less than the invoice's value arrived and waits for the super user (docs/billing.md). */
export const INVOICE_STATUSES = ['open', 'paid', 'expired', 'review'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const Invoice = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    /** Shown to the super user, who sees every company's invoices. */
    companyName: z.string().optional(),
    detail: z.string(),
    value: z.number(),
    dueDate: Timestamp,
    status: oneOf(INVOICE_STATUSES),
    paidAt: Timestamp.nullable(),
    /** What a payment held for review paid (less than `value`); null otherwise. */
    heldValue: z.number().nullable().optional(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Invoice' });
export type Invoice = Wire<typeof Invoice>;

export const InvoiceListQuery = z.object({
  searchParam: z.string().trim().toLowerCase().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});

/** Checkout payload (docs/billing.md). Card fields are accepted and ignored: the charge is a Pix one. */
export const CheckoutInput = z.object({
  firstName: z.string().trim().min(1).max(100),
  lastName: z.string().trim().max(100).optional().default(''),
  address2: z.string().trim().max(200).optional().default(''),
  city: z.string().trim().max(100).optional().default(''),
  state: z.string().trim().max(100).optional().default(''),
  zipcode: z.string().trim().max(20).optional().default(''),
  country: z.string().trim().max(50).optional().default(''),
  useAddressForPaymentDetails: z.boolean().optional(),
  nameOnCard: z.string().max(100).optional(),
  cardNumber: z.string().max(30).optional(),
  cvv: z.string().max(5).optional(),
  /** Serialized plan (price, users, connections; planId when a listed plan was chosen). */
  plan: z.string().max(2000).optional(),
  price: z.coerce.number().min(0).max(1_000_000).optional(),
  users: z.coerce.number().int().min(0).max(10000).optional(),
  connections: z.coerce.number().int().min(0).max(10000).optional(),
  /** Pay this invoice; without it the charge is the company's current billing period. */
  invoiceId: z.coerce.number().int().positive().max(2147483647).optional(),
  /** CPF/CNPJ of the payer, which Asaas requires to create a customer. */
  document: z.string().trim().max(20).optional(),
});
export type CheckoutInput = z.infer<typeof CheckoutInput>;

/** The Pix data answered by POST /subscription (docs/billing.md). */
export const PixCharge = z
  .looseObject({
    invoiceId: z.number(),
    paymentId: z.string(),
    qrcode: z.looseObject({
      qrcode: z.string(),
      encodedImage: z.string(),
      expirationDate: z.string().nullable(),
    }),
    valor: z.looseObject({
      original: z.string(),
    }),
    dueDate: Timestamp,
  })
  .meta({ id: 'PixCharge' });
export type PixCharge = Wire<typeof PixCharge>;

/** The payment event (`company-{id}-payment`). */
export interface PaymentEvent {
  /** HELD: a payment of less than the invoice arrived and is held for review (the invoice stays unpaid). */
  action: 'CONCLUIDA' | 'OVERDUE' | 'REFUNDED' | 'DELETED' | 'HELD';
  invoiceId: number;
  company?: { id: number; dueDate: string | null; trialPeriod: boolean };
}

export type BlockReason = 'trial_expired' | 'subscription_expired';

/** POST /asaas/subscriptions: the provider's recurring subscription. */
export const ProviderSubscription = z
  .looseObject({ id: z.string(), value: z.number(), cycle: z.string(), nextDueDate: z.string() })
  .meta({ id: 'ProviderSubscription' });
/** GET /asaas/subscriptions/link: the trial upgrade's payment page. */
export const PaymentLink = z.looseObject({ paymentLink: z.string() }).meta({ id: 'PaymentLink' });

export const SubscriptionState = z
  .looseObject({
    blocked: z.boolean(),
    reason: z.enum(['trial_expired', 'subscription_expired']).nullable(),
    /** Whole days since dueDate (0 = due today or not yet due). */
    daysOverdue: z.number(),
    /** Whole days until dueDate (negative once past). */
    daysLeft: z.number().nullable(),
  })
  .meta({ id: 'SubscriptionState' });
export type SubscriptionState = Wire<typeof SubscriptionState>;

const DAY = 86_400_000;

/** The wall-clock parts of an instant in a time zone (an unknown zone reads as UTC). */
function zonedParts(t: number, timeZone: string) {
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return zonedParts(t, 'UTC');
  }
  const p = Object.fromEntries(f.formatToParts(t).map((x) => [x.type, Number(x.value)]));
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, min: p.minute!, s: p.second! };
}
/** The zone's offset from UTC at an instant, in ms. */
const zoneOffset = (t: number, timeZone: string) => {
  const p = zonedParts(t, timeZone);
  return Date.UTC(p.y, p.m - 1, p.d, p.h, p.min, p.s) - Math.floor(t / 1000) * 1000;
};
/** The instant a date (YYYY-MM-DD) begins in a time zone. */
function zonedMidnight(date: string, timeZone: string): number {
  const guess = Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
  const first = guess - zoneOffset(guess, timeZone);
  return guess - zoneOffset(first, timeZone);
}
/** The date (YYYY-MM-DD) an instant falls on in a time zone. */
export function zonedDate(now: Date, timeZone: string): string {
  const p = zonedParts(now.getTime(), timeZone);
  return new Date(Date.UTC(p.y, p.m - 1, p.d)).toISOString().slice(0, 10);
}

/**
 * The instant after which a company due on `dueDate` is blocked (subscriptionState's `blocked`: now is later
 * than this), on its calendar; null: no dueDate, never blocked. A send path may keep this number and compare
 * the clock with it instead of computing the zone's calendar on every call.
 */
export function blockedAfter(dueDate: string | null, timeZone = 'UTC'): number | null {
  if (!dueDate) return null;
  const graceEnds = new Date(
    Date.parse(`${dueDate.slice(0, 10)}T00:00:00Z`) + EXPIRY_GRACE_DAYS * DAY,
  ).toISOString();
  return zonedMidnight(graceEnds, timeZone);
}

/**
 * docs/product.md#errors, docs/billing.md: the app is blocked once now is past dueDate plus one day, and the
 * days left or overdue are counted, on the company's calendar (its `timezone` setting; UTC when not given).
 */
export function subscriptionState(
  company: { dueDate: string | null; trialPeriod: boolean },
  now: Date,
  timeZone = 'UTC',
): SubscriptionState {
  if (!company.dueDate) return { blocked: false, reason: null, daysOverdue: 0, daysLeft: null };
  const due = company.dueDate.slice(0, 10);
  const today = zonedDate(now, timeZone);
  const daysLeft = Math.round((Date.parse(`${due}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY);
  const blocked = now.getTime() > blockedAfter(company.dueDate, timeZone)!;
  return {
    blocked,
    reason: blocked ? (company.trialPeriod ? 'trial_expired' : 'subscription_expired') : null,
    daysOverdue: Math.max(0, -daysLeft),
    daysLeft,
  };
}

/** dueDate (YYYY-MM-DD) plus the recurrence's months, the day clamped to the month's end. */
export function addRecurrence(dueDate: string, recurrence: string): string {
  const months = RECURRENCE_MONTHS[recurrence as Recurrence] ?? 1;
  const [y, m, d] = dueDate.slice(0, 10).split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, last))).toISOString().slice(0, 10);
}

/**
 * The invoices list for the web's resource kit. Not in RESOURCES: invoices are made by the server (no
 * POST); `company-{id}-payment` carries payment actions (CONCLUIDA, OVERDUE…), after which lists refetch.
 */
export const INVOICE_RESOURCE: ResourceSpec = {
  path: '/invoices/all',
  listField: 'records',
  entity: 'payment',
  recordField: 'invoice',
  deleteIdField: 'invoiceId',
};
