import { createHash, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, isNull, ne, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  CUSTOM_PLAN_MAX,
  customPlanPrice,
  PAGE_SIZE,
  SETTING_DEFAULTS,
  addRecurrence,
  blockedAfter,
  subscriptionState,
  type CheckoutInput,
  type Invoice,
  type InvoiceStatus,
  type PaymentEvent,
  type PixCharge,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import {
  billingCustomers,
  billingEvents,
  billingPayments,
  companies,
  invoices,
  plans,
  settings,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, noPayload, type JobDefinition, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import { ttlCache } from '../../lib/ttl-cache.js';
import type { SecretBox } from '../../lib/crypto.js';
import { containsText, isDbId } from '../../lib/sql.js';
import type { Events } from '../../realtime/events.js';
import { readSetting } from '../settings/setting-service.js';
import { ASAAS_CYCLES, AsaasError, asaasClient, type AsaasClient } from './asaas-client.js';

/** How long the send path keeps a company's blocking instant (sendBlocked): other processes' changes wait this. */
export const SEND_CHECK_TTL_MS = 5_000;

/** Invoices are created this many days ahead of the company's dueDate. */
export const INVOICE_LEAD_DAYS = 10;
/** A paused job (campaign, schedule) of a blocked company looks again after this. */
export const PAUSE_RETRY_MS = 60_000;
const DAY = 86_400_000;

type InvoiceRow = typeof invoices.$inferSelect;
type PaymentRow = typeof billingPayments.$inferSelect;
type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

const today = (now: Date) => now.toISOString().slice(0, 10);
const plusDays = (now: Date, n: number) => new Date(now.getTime() + n * DAY).toISOString().slice(0, 10);
const later = (a: string, b: string) => (a > b ? a : b);
const dayNumber = (d: string) => Date.parse(`${d.slice(0, 10)}T00:00:00Z`) / DAY;
const shiftDays = (d: string, n: number) => new Date((dayNumber(d) + n) * DAY).toISOString().slice(0, 10);
/** Money compared in cents, never as floats. */
const cents = (v: number) => Math.round(v * 100);

/** Display status (docs/billing.md): an unpaid invoice past its dueDate is expired. */
const displayStatus = (r: InvoiceRow, now: Date): InvoiceStatus =>
  r.status === 'open' && r.dueDate < today(now) ? 'expired' : (r.status as InvoiceStatus);

const toInvoice = (r: InvoiceRow, now: Date, companyName?: string, heldValue?: number | null): Invoice => ({
  id: r.id,
  companyId: r.companyId,
  ...(companyName !== undefined ? { companyName } : {}),
  detail: r.detail,
  value: r.value,
  dueDate: r.dueDate,
  status: displayStatus(r, now),
  paidAt: r.paidAt?.toISOString() ?? null,
  heldValue: heldValue ?? null,
  createdAt: r.createdAt.toISOString(),
});

/** The webhook body Asaas posts: `{ id, event, payment: { id, customer, externalReference, … } }`. */
export const WebhookBody = z.object({
  id: z.string().min(1).max(200),
  event: z.string().min(1).max(100),
  payment: z
    .object({
      id: z.string().min(1).max(100),
      customer: z.string().max(100).nullish(),
      externalReference: z.string().max(200).nullish(),
      value: z.coerce.number().finite().nonnegative().max(1e10).optional().catch(undefined),
    })
    .passthrough()
    .optional(),
});

const PAID_EVENTS = new Set(['PAYMENT_RECEIVED', 'PAYMENT_CONFIRMED']);
/** Events that take the money back: what the payment granted is reverted (docs/billing.md). */
const REVERT_EVENTS = new Set([
  'PAYMENT_REFUNDED',
  'PAYMENT_CHARGEBACK_REQUESTED',
  'PAYMENT_CHARGEBACK_DISPUTE',
  'PAYMENT_RECEIVED_IN_CASH_UNDONE',
]);
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/** A plan id inside the checkout's serialized plan (`{"planId":7,…}` or `{"id":7,…}`), if any. */
function chosenPlanId(input: CheckoutInput): number | undefined {
  if (!input.plan) return undefined;
  try {
    const p = JSON.parse(input.plan) as { planId?: unknown; id?: unknown };
    const id = Number(p.planId ?? p.id);
    return isDbId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The checkout chose "customise": users and connections, no listed plan. */
const isCustom = (input: CheckoutInput) =>
  input.users !== undefined &&
  input.connections !== undefined &&
  [input.users, input.connections].every((n) => Number.isInteger(n) && n >= 1 && n <= CUSTOM_PLAN_MAX);

export function billingService(deps: {
  db: Db;
  events: Events;
  clock: Clock;
  box: SecretBox;
  jobs: JobQueue;
  asaasApiUrl: string;
  webhookToken?: string;
  log: Log;
}) {
  const { db, events, clock, box, log } = deps;

  // ---- blocking (docs/billing.md) --------------------------------------------------------------------

  /** Blocked or not, days left or overdue: on the company's calendar (its `timezone` setting). */
  async function state(companyId: number) {
    const [c] = await db
      .select({
        dueDate: companies.dueDate,
        trialPeriod: companies.trialPeriod,
        timezone: sql<string | null>`(select s.value from ${settings} s
          where s.company_id = ${companies.id} and s.key = 'timezone')`,
      })
      .from(companies)
      .where(eq(companies.id, companyId));
    return subscriptionState(
      c ?? { dueDate: null, trialPeriod: false },
      clock.now(),
      c?.timezone || SETTING_DEFAULTS.timezone,
    );
  }
  const isBlocked = async (companyId: number) => (await state(companyId)).blocked;

  /**
   * The send path's check (every message deliver stores asks it): the instant after which the company is
   * blocked, kept per company for SEND_CHECK_TTL_MS of real time, so a send costs a comparison, not a
   * statement and a calendar computation. The instant itself does not age (the clock crossing it blocks at
   * once); what the TTL bounds is a change of dueDate, trial or timezone: this module's own writes (a payment,
   * a refund), the companies module's and the timezone setting's in this process forget the entry at once
   * (`forgetSendCheck`); another process's writes are seen within the TTL. The HTTP guard and the paused jobs
   * keep reading the database (`isBlocked`).
   */
  const sendChecks = ttlCache(SEND_CHECK_TTL_MS, (companyId: number) =>
    db
      .select({
        dueDate: companies.dueDate,
        timezone: sql<string | null>`(select s.value from ${settings} s
          where s.company_id = ${companies.id} and s.key = 'timezone')`,
      })
      .from(companies)
      .where(eq(companies.id, companyId))
      .then(([c]) => blockedAfter(c?.dueDate ?? null, c?.timezone || SETTING_DEFAULTS.timezone)),
  );
  async function sendBlocked(companyId: number): Promise<boolean> {
    const after = await sendChecks.get(companyId);
    return after !== null && clock.now().getTime() > after;
  }
  /** This process changed the company's dueDate, trial or timezone: the next send reads them again. */
  const forgetSendCheck = (companyId: number) => sendChecks.forget(companyId);

  /**
   * Jobs of a blocked company (campaign sends, schedules) wait instead of running: the run puts itself
   * back PAUSE_RETRY_MS later with the same key and payload, so it resumes on its own after payment.
   */
  function pausedWhileBlocked(definitions: JobDefinition[]): JobDefinition[] {
    return definitions.map((def) => ({
      ...def,
      handler: async (job) => {
        if (job.companyId && (await isBlocked(job.companyId))) {
          await deps.jobs.schedule(def, {
            key: job.key ?? undefined,
            runAt: new Date(clock.now().getTime() + PAUSE_RETRY_MS),
            payload: job.payload,
            companyId: job.companyId,
          });
          return;
        }
        return def.handler(job);
      },
    }));
  }

  // ---- invoices -------------------------------------------------------------------------------------

  /** One invoice per company whose dueDate is near, for that dueDate (idempotent: the unique index). */
  async function generateInvoices() {
    const horizon = plusDays(clock.now(), INVOICE_LEAD_DAYS);
    const result = await db.execute(sql`
      insert into invoices (company_id, detail, value, due_date, plan_id)
      select c.id, p.name, p.value, c.due_date, p.id
      from companies c join plans p on p.id = c.plan_id
      where c.status and c.due_date is not null and c.due_date <= ${horizon} and p.value > 0
        and not exists (select 1 from users u where u.company_id = c.id and u.super)
      on conflict do nothing
      returning id`);
    const rows = (result as unknown as { rows?: unknown[] }).rows ?? (result as unknown as unknown[]);
    if (rows.length) log.info({ created: rows.length }, 'invoices created');
    return rows.length;
  }

  const invoiceJob = defineJob({
    kind: 'billing.invoices',
    payload: noPayload,
    handler: async () => void (await generateInvoices()),
    options: { every: DAY },
  });

  /** The company and its plan. */
  async function companyPlan(h: Db, companyId: number) {
    const [c] = await h
      .select({ company: companies, plan: plans })
      .from(companies)
      .innerJoin(plans, eq(plans.id, companies.planId))
      .where(eq(companies.id, companyId));
    if (!c) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
    return c;
  }

  /** The company's invoice for its current dueDate, if the daily job (or a checkout) made it. */
  async function currentPeriodInvoice(companyId: number): Promise<InvoiceRow | undefined> {
    const { company } = await companyPlan(db, companyId);
    const [row] = await db
      .select()
      .from(invoices)
      .where(
        and(eq(invoices.companyId, companyId), eq(invoices.dueDate, company.dueDate ?? today(clock.now()))),
      );
    return row;
  }

  /**
   * The company's invoice for its current dueDate, created when the daily job has not yet (`created`). `h` is
   * the transaction when called inside one: the outer handle there would wait for it forever on PGlite.
   */
  async function currentInvoice(h: Db, companyId: number): Promise<{ row: InvoiceRow; created: boolean }> {
    const c = await companyPlan(h, companyId);
    const dueDate = c.company.dueDate ?? today(clock.now());
    const [inserted] = await h
      .insert(invoices)
      .values({ companyId, detail: c.plan.name, value: c.plan.value, dueDate, planId: c.plan.id })
      .onConflictDoNothing()
      .returning();
    if (inserted) return { row: inserted, created: true };
    const [row] = await h
      .select()
      .from(invoices)
      .where(and(eq(invoices.companyId, companyId), eq(invoices.dueDate, dueDate)));
    return { row: row!, created: false };
  }

  async function loadInvoice(t: Tenant, id: number): Promise<InvoiceRow> {
    const [row] = isDbId(id)
      ? await db
          .select()
          .from(invoices)
          .where(and(eq(invoices.id, id), eq(invoices.companyId, t.companyId)))
      : [];
    if (!row) throw new AppError('ERR_NO_INVOICE_FOUND', 404);
    return row;
  }

  // ---- the payment provider -------------------------------------------------------------------------

  /** The platform's Asaas key: the `asaas` setting of the super user's company, sealed at rest. */
  async function client(): Promise<AsaasClient> {
    const [p] = await db
      .select({ companyId: users.companyId })
      .from(users)
      .where(eq(users.super, true))
      .orderBy(users.id)
      .limit(1);
    const sealed = p ? await readSetting(db, p.companyId, 'asaas') : '';
    let apiKey = '';
    if (sealed) {
      try {
        apiKey = box.open(sealed);
      } catch {
        apiKey = '';
      }
    }
    if (!apiKey)
      throw new AppError('ERR_PAYMENT_NOT_CONFIGURED', 503, 'The payment provider is not configured');
    return asaasClient({ baseUrl: deps.asaasApiUrl, apiKey });
  }

  /** Provider failures are a 502 with the provider's description, never a 500. */
  async function provider<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AppError) throw err;
      const description = err instanceof AsaasError ? err.description : (err as Error).message;
      log.warn({ err: description }, 'payment provider call failed');
      throw new AppError('ERR_PAYMENT_PROVIDER', 502, description);
    }
  }

  /**
   * The private plan of a custom checkout: the company's current plan's features with the chosen seats, at
   * customPlanPrice. One plan per company and seat count (reused by a second checkout), never public.
   */
  async function customPlan(companyId: number, users: number, connections: number) {
    const [c] = await db
      .select({ plan: plans })
      .from(companies)
      .innerJoin(plans, eq(plans.id, companies.planId))
      .where(eq(companies.id, companyId));
    if (!c) throw new AppError('ERR_NO_PLAN_FOUND', 404);
    const name = `Personalizado #${companyId}: ${users}/${connections}`;
    const { id: _id, name: _name, createdAt: _c, updatedAt: _u, ...features } = c.plan;
    await db
      .insert(plans)
      .values({
        ...features,
        name,
        users,
        connections,
        value: customPlanPrice(users, connections),
        isPublic: false,
      })
      .onConflictDoNothing({ target: plans.name });
    const [p] = await db.select().from(plans).where(eq(plans.name, name));
    return p!;
  }

  async function customerFor(api: AsaasClient, companyId: number, input?: CheckoutInput): Promise<string> {
    const [known] = await db
      .select({ id: billingCustomers.providerCustomerId })
      .from(billingCustomers)
      .where(eq(billingCustomers.companyId, companyId));
    if (known) return known.id;
    const [c] = await db.select().from(companies).where(eq(companies.id, companyId));
    if (!c) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
    const name = input ? `${input.firstName} ${input.lastName}`.trim() : c.billingName || c.name;
    const created = await api.createCustomer({
      name: name || c.name,
      cpfCnpj: (input?.document || c.document || '').replace(/\D/g, '') || undefined,
      email: c.email || undefined,
      mobilePhone: c.phone.replace(/\D/g, '') || undefined,
      postalCode: (input?.zipcode || c.addressZipCode || '').replace(/\D/g, '') || undefined,
      address: input?.address2 || c.addressStreet || undefined,
      province: c.addressDistrict || undefined,
      externalReference: `company:${companyId}`,
    });
    // Two checkouts at once: the first stored customer wins, both charges stay valid.
    await db
      .insert(billingCustomers)
      .values({ companyId, providerCustomerId: created.id })
      .onConflictDoNothing();
    const [stored] = await db
      .select({ id: billingCustomers.providerCustomerId })
      .from(billingCustomers)
      .where(eq(billingCustomers.companyId, companyId));
    return stored!.id;
  }

  // ---- the webhook ----------------------------------------------------------------------------------

  /**
   * The invoice a provider payment pays: by the charge id, then by `externalReference` (`invoice:<id>`,
   * `company:<id>`), then by the Asaas customer — for a company reference, its oldest unpaid invoice or (with
   * `create`) its current period's. Always on the transaction's handle `tx`.
   */
  async function invoiceForPayment(
    tx: Db,
    payment: { id: string; customer?: string | null; externalReference?: string | null },
    create: boolean,
  ): Promise<{ invoice?: InvoiceRow; companyId?: number }> {
    const [byCharge] = await tx.select().from(invoices).where(eq(invoices.providerPaymentId, payment.id));
    if (byCharge) return { invoice: byCharge, companyId: byCharge.companyId };
    const ref = /^invoice:(\d+)$/.exec(payment.externalReference ?? '');
    if (ref) {
      const id = Number(ref[1]);
      const [byRef] = isDbId(id) ? await tx.select().from(invoices).where(eq(invoices.id, id)) : [];
      return { invoice: byRef, companyId: byRef?.companyId };
    }
    // A charge made by Asaas itself (a subscription, a payment link): the customer's company's current invoice.
    const company = /^company:(\d+)$/.exec(payment.externalReference ?? '');
    let companyId = company ? Number(company[1]) : undefined;
    if (!companyId && payment.customer) {
      const [c] = await tx
        .select({ companyId: billingCustomers.companyId })
        .from(billingCustomers)
        .where(eq(billingCustomers.providerCustomerId, payment.customer));
      companyId = c?.companyId;
    }
    if (!companyId || !isDbId(companyId)) return {};
    const [exists] = await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId));
    if (!exists) return {};
    const [open] = await tx
      .select()
      .from(invoices)
      .where(and(eq(invoices.companyId, companyId), ne(invoices.status, 'paid')))
      .orderBy(invoices.dueDate)
      .limit(1);
    if (open) return { invoice: open, companyId };
    return { invoice: create ? (await currentInvoice(tx, companyId)).row : undefined, companyId };
  }

  type Emit = { companyId: number; payload: PaymentEvent };

  /** RECEIVED / CONFIRMED: pays the invoice and grants one period, once per payment, if the value covers it. */
  async function receive(
    tx: Db,
    payment: z.infer<typeof WebhookBody>['payment'] & object,
    known: PaymentRow | undefined,
    emits: Emit[],
  ): Promise<'processed' | 'duplicate' | 'ignored' | 'held'> {
    // Granted, held or reverted already: one payment is decided once (a refund seen first stays a refund).
    if (known) return 'duplicate';
    const { invoice } = await invoiceForPayment(tx, payment, true);
    if (!invoice) return 'ignored';
    const now = clock.now();
    const record = { providerPaymentId: payment.id, companyId: invoice.companyId, invoiceId: invoice.id };
    const short = payment.value === undefined || cents(payment.value) < cents(invoice.value);
    if (short || invoice.status === 'paid') {
      // Less than the invoice (or an invoice another payment already paid): nothing granted, the super user
      // sees it in the invoices list (status review, heldValue) and settles it with the customer.
      await tx.insert(billingPayments).values({ ...record, value: payment.value ?? null, status: 'held' });
      if (invoice.status !== 'paid')
        await tx
          .update(invoices)
          .set({ status: 'review', updatedAt: now })
          .where(and(eq(invoices.id, invoice.id), ne(invoices.status, 'paid')));
      log.warn(
        { paymentId: payment.id, invoiceId: invoice.id, paid: payment.value ?? null, due: invoice.value },
        'asaas webhook: payment held for review',
      );
      emits.push({ companyId: invoice.companyId, payload: { action: 'HELD', invoiceId: invoice.id } });
      return 'held';
    }
    const [paid] = await tx
      .update(invoices)
      .set({ status: 'paid', paidAt: now, providerPaymentId: payment.id, updatedAt: now })
      .where(and(eq(invoices.id, invoice.id), ne(invoices.status, 'paid')))
      .returning();
    if (!paid) return 'duplicate';
    const [c] = await tx.select().from(companies).where(eq(companies.id, paid.companyId));
    if (!c) return 'ignored';
    const dueDate = addRecurrence(later(today(now), c.dueDate ?? today(now)), c.recurrence);
    const planId = paid.planId ?? c.planId;
    await tx
      .update(companies)
      .set({ dueDate, trialPeriod: false, planId, updatedAt: now })
      .where(eq(companies.id, c.id));
    await tx.insert(billingPayments).values({
      ...record,
      value: payment.value ?? null,
      status: 'granted',
      dueBefore: c.dueDate,
      dueAfter: dueDate,
      planBefore: c.planId,
      planAfter: planId,
      trialBefore: c.trialPeriod,
    });
    emits.push({
      companyId: c.id,
      payload: {
        action: 'CONCLUIDA',
        invoiceId: paid.id,
        company: { id: c.id, dueDate, trialPeriod: false },
      },
    });
    return 'processed';
  }

  /** REFUNDED / chargeback: reverts what the payment granted; seen before its RECEIVED, it bars the grant. */
  async function revert(
    tx: Db,
    payment: z.infer<typeof WebhookBody>['payment'] & object,
    known: PaymentRow | undefined,
    emits: Emit[],
  ): Promise<'processed' | 'duplicate' | 'ignored'> {
    const now = clock.now();
    if (!known) {
      const { invoice, companyId } = await invoiceForPayment(tx, payment, false);
      if (!companyId) return 'ignored';
      await tx.insert(billingPayments).values({
        providerPaymentId: payment.id,
        companyId,
        invoiceId: invoice?.id ?? null,
        value: payment.value ?? null,
        status: 'reverted',
      });
      return 'processed';
    }
    if (known.status === 'reverted') return 'duplicate';
    await tx
      .update(billingPayments)
      .set({ status: 'reverted', updatedAt: now })
      .where(eq(billingPayments.providerPaymentId, known.providerPaymentId));
    let company: PaymentEvent['company'];
    if (known.status === 'held') {
      if (known.invoiceId)
        await tx
          .update(invoices)
          .set({ status: 'open', updatedAt: now })
          .where(and(eq(invoices.id, known.invoiceId), eq(invoices.status, 'review')));
    } else {
      if (known.invoiceId)
        await tx
          .update(invoices)
          .set({ status: 'open', paidAt: null, updatedAt: now })
          .where(
            and(eq(invoices.id, known.invoiceId), eq(invoices.providerPaymentId, known.providerPaymentId)),
          );
      const [c] = await tx.select().from(companies).where(eq(companies.id, known.companyId));
      if (c?.dueDate) {
        // Take back the days this payment added (from a later dueDate too, if other payments came since);
        // a payment recorded before the days were (migration 0029) takes back one recurrence.
        const dueDate =
          known.dueAfter && known.dueBefore !== null
            ? shiftDays(c.dueDate, -(dayNumber(known.dueAfter) - dayNumber(known.dueBefore)))
            : shiftDays(
                c.dueDate,
                -(dayNumber(addRecurrence(c.dueDate, c.recurrence)) - dayNumber(c.dueDate)),
              );
        const planId =
          known.planAfter !== null && known.planBefore !== null && c.planId === known.planAfter
            ? known.planBefore
            : c.planId;
        const trialPeriod = known.trialBefore ?? c.trialPeriod;
        await tx
          .update(companies)
          .set({ dueDate, planId, trialPeriod, updatedAt: now })
          .where(eq(companies.id, c.id));
        company = { id: c.id, dueDate, trialPeriod };
      }
    }
    emits.push({
      companyId: known.companyId,
      payload: { action: 'REFUNDED', invoiceId: known.invoiceId ?? 0, ...(company ? { company } : {}) },
    });
    return 'processed';
  }

  return {
    jobs: { invoices: invoiceJob },
    state,
    isBlocked,
    sendBlocked,
    forgetSendCheck,
    pausedWhileBlocked,
    generateInvoices,

    async list(t: Tenant, search: string, pageNumber: number) {
      const now = clock.now();
      const where = and(
        t.super ? undefined : eq(invoices.companyId, t.companyId),
        search
          ? or(
              containsText(invoices.detail, search),
              containsText(invoices.status, search),
              sql`${invoices.dueDate}::text like ${`%${search}%`}`,
              t.super ? containsText(companies.name, search) : undefined,
            )
          : undefined,
      );
      const rows = await db
        .select({
          invoice: invoices,
          companyName: companies.name,
          // What the payment held for review paid (one a period; the latest if several).
          heldValue: sql<string | null>`(select bp.value from ${billingPayments} bp
            where bp.invoice_id = ${invoices.id} and bp.status = 'held'
            order by bp.created_at desc limit 1)`,
        })
        .from(invoices)
        .innerJoin(companies, eq(companies.id, invoices.companyId))
        .where(where)
        .orderBy(desc(invoices.dueDate), desc(invoices.id))
        .limit(PAGE_SIZE + 1)
        .offset((pageNumber - 1) * PAGE_SIZE);
      return {
        records: rows
          .slice(0, PAGE_SIZE)
          .map((r) =>
            toInvoice(
              r.invoice,
              now,
              t.super ? r.companyName : undefined,
              r.invoice.status === 'review' && r.heldValue !== null ? Number(r.heldValue) : null,
            ),
          ),
        hasMore: rows.length > PAGE_SIZE,
      };
    },

    /**
     * POST /subscription: a Pix charge for the invoice (or the current period) and its QR code. Nothing payable
     * is left behind when it fails: the provider's key is checked before anything is written, and an invoice this
     * checkout created (or re-priced) is removed (or restored) when the provider refuses the charge.
     */
    async checkout(t: Tenant, input: CheckoutInput): Promise<PixCharge> {
      const existing = input.invoiceId
        ? await loadInvoice(t, input.invoiceId)
        : await currentPeriodInvoice(t.companyId);
      if (existing?.status === 'paid') throw new AppError('ERR_INVOICE_ALREADY_PAID', 409);
      // The price is the plan's, never the one the browser sends.
      const planId = chosenPlanId(input);
      let chosen: { id: number; name: string; value: number } | undefined;
      if (planId && !input.invoiceId) {
        const [p] = await db
          .select()
          .from(plans)
          .where(and(eq(plans.id, planId), eq(plans.isPublic, true)));
        if (!p) throw new AppError('ERR_NO_PLAN_FOUND', 404);
        chosen = p;
      } else if (!input.invoiceId && isCustom(input)) {
        // A custom plan: its price computed here (contracts' customPlanPrice), its limits on a private plan
        // that becomes the company's when this invoice is paid, never before.
        chosen = await customPlan(t.companyId, input.users!, input.connections!);
      }
      const value = chosen?.value ?? existing?.value ?? (await companyPlan(db, t.companyId)).plan.value;
      if (!(value > 0)) throw new AppError('ERR_VALIDATION', 400, 'Nothing to pay');
      const api = await client();

      const { invoice: charged, undo } = await db.transaction(async (t0) => {
        const tx = t0 as unknown as Db;
        const had = existing
          ? (await tx.select().from(invoices).where(eq(invoices.id, existing.id)))[0]
          : undefined;
        const { row, created } = had ? { row: had, created: false } : await currentInvoice(tx, t.companyId);
        if (row.status === 'paid') throw new AppError('ERR_INVOICE_ALREADY_PAID', 409);
        if (!chosen) return { invoice: row, undo: created ? { delete: row.id } : undefined };
        const [changed] = await tx
          .update(invoices)
          .set({ planId: chosen.id, value: chosen.value, detail: chosen.name, updatedAt: new Date() })
          .where(and(eq(invoices.id, row.id), ne(invoices.status, 'paid')))
          .returning();
        if (!changed) throw new AppError('ERR_INVOICE_ALREADY_PAID', 409);
        return {
          invoice: changed,
          undo: created
            ? { delete: row.id }
            : { restore: { id: row.id, planId: row.planId, value: row.value, detail: row.detail } },
        };
      });
      let payment: Awaited<ReturnType<AsaasClient['createPixPayment']>>;
      let qr: Awaited<ReturnType<AsaasClient['pixQrCode']>>;
      try {
        ({ payment, qr } = await provider(async () => {
          const customer = await customerFor(api, t.companyId, input);
          const payment = await api.createPixPayment({
            customer,
            value: charged.value,
            dueDate: later(today(clock.now()), charged.dueDate),
            description: charged.detail,
            externalReference: `invoice:${charged.id}`,
          });
          return { payment, qr: await api.pixQrCode(payment.id) };
        }));
      } catch (err) {
        // The provider refused: no invoice of this checkout stays payable, none keeps a plan not chosen.
        if (undo?.delete)
          await db
            .delete(invoices)
            .where(
              and(
                eq(invoices.id, undo.delete),
                isNull(invoices.providerPaymentId),
                ne(invoices.status, 'paid'),
              ),
            );
        else if (undo?.restore) {
          const { id, ...before } = undo.restore;
          await db
            .update(invoices)
            .set({ ...before, updatedAt: new Date() })
            .where(and(eq(invoices.id, id), ne(invoices.status, 'paid')));
        }
        throw err;
      }
      await db
        .update(invoices)
        .set({ providerPaymentId: payment.id, updatedAt: new Date() })
        .where(eq(invoices.id, charged.id));
      return {
        invoiceId: charged.id,
        paymentId: payment.id,
        qrcode: {
          qrcode: qr.payload,
          encodedImage: qr.encodedImage,
          expirationDate: qr.expirationDate ?? null,
        },
        valor: { original: charged.value.toFixed(2) },
        dueDate: payment.dueDate,
      };
    },

    /** POST /asaas/subscriptions: a recurring Pix subscription at the company's plan and recurrence. */
    async subscribe(t: Tenant) {
      const [c] = await db
        .select({ company: companies, plan: plans })
        .from(companies)
        .innerJoin(plans, eq(plans.id, companies.planId))
        .where(eq(companies.id, t.companyId));
      if (!c) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
      const api = await client();
      return provider(async () => {
        const customer = await customerFor(api, t.companyId);
        const s = await api.createSubscription({
          customer,
          value: c.plan.value,
          nextDueDate: later(today(clock.now()), c.company.dueDate ?? today(clock.now())),
          cycle: ASAAS_CYCLES[c.company.recurrence] ?? 'MONTHLY',
          description: c.plan.name,
          externalReference: `company:${t.companyId}`,
        });
        return { id: s.id, value: s.value, cycle: s.cycle, nextDueDate: s.nextDueDate };
      });
    },

    /** GET /asaas/subscriptions/link: the trial upgrade's payment link (opened in a new tab). */
    async paymentLink(t: Tenant) {
      const [c] = await db
        .select({ company: companies, plan: plans })
        .from(companies)
        .innerJoin(plans, eq(plans.id, companies.planId))
        .where(eq(companies.id, t.companyId));
      if (!c) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
      const api = await client();
      const link = await provider(() =>
        api.createPaymentLink({
          name: `${c.plan.name} — ${c.company.name}`.slice(0, 100),
          value: c.plan.value,
          subscriptionCycle: ASAAS_CYCLES[c.company.recurrence] ?? 'MONTHLY',
          externalReference: `company:${t.companyId}`,
        }),
      );
      return { paymentLink: link.url };
    },

    /** Token check for `POST /api/webhooks/asaas` (constant time; no token configured refuses all). */
    tokenMatches(token: string | undefined) {
      return Boolean(deps.webhookToken && token && sameSecret(token, deps.webhookToken));
    },

    /**
     * One webhook event, processed once (its id is recorded in the same transaction as its effect).
     * Answers what happened, for the log and tests; unknown or malformed events are logged and ignored.
     */
    async webhook(body: unknown): Promise<'processed' | 'duplicate' | 'ignored' | 'held'> {
      const parsed = WebhookBody.safeParse(body);
      if (!parsed.success) {
        log.warn({ issues: parsed.error.issues.length }, 'asaas webhook: malformed event ignored');
        return 'ignored';
      }
      const { id, event, payment } = parsed.data;
      const emits: Emit[] = [];
      const outcome = await db.transaction(async (t) => {
        // Everything below goes through the transaction's handle (the guard in db/client.ts throws otherwise).
        const tx = t as unknown as Db;
        const [fresh] = await tx
          .insert(billingEvents)
          .values({ id, event, paymentId: payment?.id ?? null })
          .onConflictDoNothing()
          .returning({ id: billingEvents.id });
        if (!fresh) return 'duplicate' as const;
        if (!payment) return 'ignored' as const;
        // Two events of one payment at once are decided one after the other: a lock on the payment's id (its
        // row may not exist yet, when CONFIRMED and RECEIVED of a new payment arrive together), then its row.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`asaas-payment:${payment.id}`}))`);
        const [known] = await tx
          .select()
          .from(billingPayments)
          .where(eq(billingPayments.providerPaymentId, payment.id))
          .for('update');
        if (PAID_EVENTS.has(event)) return receive(tx, payment, known, emits);
        if (REVERT_EVENTS.has(event)) return revert(tx, payment, known, emits);
        const action = ({ PAYMENT_OVERDUE: 'OVERDUE', PAYMENT_DELETED: 'DELETED' } as const)[
          event as 'PAYMENT_OVERDUE' | 'PAYMENT_DELETED'
        ];
        if (!action) return 'ignored' as const;
        const { invoice } = await invoiceForPayment(tx, payment, false);
        if (!invoice) return 'ignored' as const;
        const now = clock.now();
        if (action === 'OVERDUE')
          await tx
            .update(invoices)
            .set({ status: 'expired', updatedAt: now })
            .where(and(eq(invoices.id, invoice.id), eq(invoices.status, 'open')));
        // A deleted charge is forgotten: the next checkout makes a new one.
        else
          await tx
            .update(invoices)
            .set({ providerPaymentId: null, updatedAt: now })
            .where(and(eq(invoices.id, invoice.id), eq(invoices.providerPaymentId, payment.id)));
        emits.push({ companyId: invoice.companyId, payload: { action, invoiceId: invoice.id } });
        return 'processed' as const;
      });
      if (outcome === 'ignored') log.warn({ event, paymentId: payment?.id }, 'asaas webhook: event ignored');
      // A payment or refund moved the dueDate (after its commit: a send in between may have read the old one).
      for (const e of emits) forgetSendCheck(e.companyId);
      for (const e of emits) events.toCompany(e.companyId, 'payment', e.payload);
      log.info({ event, eventId: id, outcome }, 'asaas webhook');
      return outcome;
    },
  };
}
export type BillingService = ReturnType<typeof billingService>;
