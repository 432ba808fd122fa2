import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineJob } from '../../jobs/job-queue.js';
import { SECRET_MASK, addRecurrence, customPlanPrice, subscriptionState, zonedDate } from '@recado/contracts';
import { manualClock } from '../../lib/clock.js';
import { billingEvents, companies, invoices, plans, settings } from '../../db/schema/index.js';
import { asaasFake, type AsaasFake } from '../../../test/asaas-fake.js';
import {
  collectEvents,
  expectError,
  nextEvent,
  testApp,
  unique,
  waitFor,
  type Session,
} from '../../../test/helpers.js';

const MIN = 60_000;
const DAY = 86_400_000;
const WEBHOOK_TOKEN = 'whk_test_0123456789abcdef0123456789abcdef';
const fake: AsaasFake = await asaasFake();
afterAll(() => fake.close());
const clock = manualClock(new Date());
const t = await testApp({
  env: { ASAAS_API_URL: fake.url, ASAAS_WEBHOOK_TOKEN: WEBHOOK_TOKEN },
  deps: { clock, jobs: { autoStart: false } },
});
fake.webhook = { url: `${t.url}/api/webhooks/asaas`, token: WEBHOOK_TOKEN };
const db = t.database.db;
const jobs = t.app.services.jobs;
const dayOffset = (n: number) => new Date(clock.now().getTime() + n * DAY).toISOString().slice(0, 10);

const checkoutBody = (extra: Record<string, unknown> = {}) => ({
  firstName: 'Maria',
  lastName: 'Souza',
  address2: 'Rua das Flores, 10',
  city: 'Recife',
  state: 'PE',
  zipcode: '50000-000',
  country: 'BR',
  document: '24971563792',
  ...extra,
});

/** A company on trial (plan "Teste grátis"), due in `dueIn` days. */
async function trialCompany(name: string, dueIn = 3) {
  const c = await t.company(name, { planId: 7 });
  const su = await t.superuser();
  const res = await t.as(su).put(`/companies/${c.id}`, { dueDate: dayOffset(dueIn), trialPeriod: true });
  expect(res.status, await res.clone().text()).toBe(200);
  return c;
}
const setDue = async (companyId: number, dueIn: number) =>
  db
    .update(companies)
    .set({ dueDate: dayOffset(dueIn) })
    .where(eq(companies.id, companyId));

beforeAll(async () => {
  const su = await t.superuser();
  const res = await t.as(su).put('/settings/asaas', { value: fake.apiKey });
  expect(res.status).toBe(200);
});

describe('the asaas setting', () => {
  test('is sealed at rest and answered only as the mask', async () => {
    const su = await t.superuser();
    const rows = await db.select().from(settings).where(eq(settings.key, 'asaas'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.value).not.toContain(fake.apiKey);
    expect(t.app.services.box.open(rows[0]!.value)).toBe(fake.apiKey);
    expect((await (await t.as(su).get('/settings/asaas')).json()).value).toBe(SECRET_MASK);
    expect(JSON.stringify(await (await t.as(su).get('/settings')).json())).not.toContain(fake.apiKey);
    expect(JSON.stringify(await (await t.as(su).get('/auth/me')).json())).not.toContain(fake.apiKey);
    // Sending the mask back keeps the key.
    expect((await t.as(su).put('/settings/asaas', { value: SECRET_MASK })).status).toBe(200);
    const [after] = await db.select().from(settings).where(eq(settings.key, 'asaas'));
    expect(t.app.services.box.open(after!.value)).toBe(fake.apiKey);
  });
});

describe('invoices', () => {
  test('the daily job makes one invoice per company per period, ahead of dueDate', async () => {
    const c = await t.company('Inv', { planId: 1 });
    await setDue(c.id, 5);
    const far = await t.company('Far', { planId: 1 });
    await setDue(far.id, 40);
    await t.app.services.billing.generateInvoices();
    await t.app.services.billing.generateInvoices();
    const mine = await db.select().from(invoices).where(eq(invoices.companyId, c.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ value: 49, dueDate: dayOffset(5), status: 'open', detail: 'Bronze' });
    expect(await db.select().from(invoices).where(eq(invoices.companyId, far.id))).toHaveLength(0);
    // The registered recurring job does the same when due.
    clock.advance(2 * MIN);
    await jobs.runDue();

    const list = await (await t.as(c.admin).get('/invoices/all')).json();
    expect(list.hasMore).toBe(false);
    expect(list.records).toEqual([expect.objectContaining({ id: mine[0]!.id, value: 49, status: 'open' })]);
    expect(list.records[0].companyName).toBeUndefined();
    const found = await (await t.as(c.admin).get('/invoices/all?searchParam=bronze')).json();
    expect(found.records).toHaveLength(1);
    expect((await (await t.as(c.admin).get('/invoices/all?searchParam=zzz')).json()).records).toEqual([]);

    // A plain user may not read them; the super user sees every company's, with the company's name.
    const user = await t.user(c.admin, 'user');
    await expectError(await t.as(user).get('/invoices/all'), 403, 'ERR_NO_PERMISSION');
    const all = await (await t.as(await t.superuser()).get('/invoices/all?searchParam=inv')).json();
    expect(all.records.map((r: { id: number }) => r.id)).toContain(mine[0]!.id);
    expect(all.records.find((r: { id: number }) => r.id === mine[0]!.id).companyName).toMatch(/^Inv/);
  });

  test('an unpaid invoice past its dueDate reads as expired', async () => {
    const c = await t.company('Late', { planId: 1 });
    await setDue(c.id, -2);
    await t.app.services.billing.generateInvoices();
    const list = await (await t.as(c.admin).get('/invoices/all')).json();
    expect(list.records[0]).toMatchObject({ status: 'expired', dueDate: dayOffset(-2) });
  });
});

describe('checkout and payment', () => {
  let trial: { id: number; admin: Session };

  test('a trial company checks out: a Pix charge for the chosen plan, the customer created once', async () => {
    trial = await trialCompany('Trial');
    const res = await t
      .as(trial.admin)
      .post(
        '/subscription',
        checkoutBody({ plan: JSON.stringify({ planId: 3, price: 1, users: 99 }), price: 1 }),
      );
    expect(res.status, await res.clone().text()).toBe(200);
    const pix = await res.json();
    // The plan's price, never the browser's.
    expect(pix.valor.original).toBe('97.00');
    expect(pix.qrcode.qrcode).toMatch(/^000201/);
    expect(pix.qrcode.encodedImage).toBeTruthy();
    const payment = fake.payments.get(pix.paymentId)!;
    expect(payment).toMatchObject({
      billingType: 'PIX',
      value: 97,
      externalReference: `invoice:${pix.invoiceId}`,
    });
    expect(fake.calls.every((c) => c.token === fake.apiKey)).toBe(true);

    const again = await (
      await t.as(trial.admin).post('/subscription', checkoutBody({ invoiceId: pix.invoiceId }))
    ).json();
    expect(again.invoiceId).toBe(pix.invoiceId);
    expect(fake.customers.size).toBe(1);
    expect(fake.payments.get(again.paymentId)!.customer).toBe(payment.customer);
  });

  test('PAYMENT_CONFIRMED twice: paid once, dueDate advanced once, the browser told once', async () => {
    const before = (await db.select().from(companies).where(eq(companies.id, trial.id)))[0]!;
    const pix = await (await t.as(trial.admin).post('/subscription', checkoutBody())).json();
    const socket = await t.socket(trial.admin.token);
    const paid = nextEvent<{ action: string; company: { dueDate: string } }>(
      socket,
      `company-${trial.id}-payment`,
      5000,
    );
    const eventId = 'evt_confirmed_once_1';
    expect(await fake.send('PAYMENT_CONFIRMED', pix.paymentId, { eventId })).toBe(200);
    const expectedDue = addRecurrence(before.dueDate!, 'MENSAL');
    expect(await paid).toMatchObject({ action: 'CONCLUIDA', company: { dueDate: expectedDue } });

    const extra = collectEvents(socket, `company-${trial.id}-payment`, 500);
    // Asaas redelivers the same event, then sends RECEIVED for the same charge.
    expect(await fake.send('PAYMENT_CONFIRMED', pix.paymentId, { eventId })).toBe(200);
    expect(await fake.send('PAYMENT_RECEIVED', pix.paymentId)).toBe(200);
    expect(await extra).toEqual([]);

    const [after] = await db.select().from(companies).where(eq(companies.id, trial.id));
    expect(after).toMatchObject({ dueDate: expectedDue, trialPeriod: false, planId: 3 });
    const [inv] = await db.select().from(invoices).where(eq(invoices.id, pix.invoiceId));
    expect(inv!.status).toBe('paid');
    expect(await db.select().from(billingEvents).where(eq(billingEvents.id, eventId))).toHaveLength(1);
    // A paid invoice is not charged again.
    await expectError(
      await t.as(trial.admin).post('/subscription', checkoutBody({ invoiceId: pix.invoiceId })),
      409,
      'ERR_INVOICE_ALREADY_PAID',
    );
  });

  test('a custom plan is priced by the server per seat; its limits apply once paid, never before', async () => {
    const c = await trialCompany('Custom');
    const [before] = await db.select().from(companies).where(eq(companies.id, c.id));
    // 5 users + 4 connections at the default plan's R$ 49 per 3 + 3 seats; the browser's price is ignored.
    const body = checkoutBody({ plan: JSON.stringify({ users: 5, connections: 4, price: 1 }), price: 1 });
    const res = await t.as(c.admin).post('/subscription', { ...body, users: 5, connections: 4 });
    expect(res.status, await res.clone().text()).toBe(200);
    const pix = await res.json();
    expect(customPlanPrice(5, 4)).toBe(73.5);
    expect(pix.valor.original).toBe('73.50');
    expect(fake.payments.get(pix.paymentId)!.value).toBe(73.5);
    // Not paid yet: the company keeps its plan; the custom one is private (not offered at signup).
    expect((await db.select().from(companies).where(eq(companies.id, c.id)))[0]!.planId).toBe(before!.planId);
    const listed = await (await t.request('GET', '/plans/list')).json();
    expect(JSON.stringify(listed)).not.toContain('Personalizado');

    expect(await fake.send('PAYMENT_CONFIRMED', pix.paymentId)).toBe(200);
    const [after] = await db.select().from(companies).where(eq(companies.id, c.id));
    const [plan] = await db.select().from(plans).where(eq(plans.id, after!.planId!));
    expect(plan).toMatchObject({ users: 5, connections: 4, value: 73.5, isPublic: false });
    // Out-of-range seats are refused by the schema, never charged at some other price.
    await expectError(
      await t.as(c.admin).post('/subscription', { ...checkoutBody(), users: -1, connections: 4 }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('a webhook with a wrong or missing token is refused and changes nothing', async () => {
    const c = await trialCompany('Forged');
    const pix = await (
      await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":3}' }))
    ).json();
    expect(await fake.send('PAYMENT_RECEIVED', pix.paymentId, { token: 'wrong' })).toBe(401);
    const res = await fetch(`${t.url}/api/webhooks/asaas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'evt_x', event: 'PAYMENT_RECEIVED', payment: { id: pix.paymentId } }),
    });
    expect(res.status).toBe(401);
    const [inv] = await db.select().from(invoices).where(eq(invoices.id, pix.invoiceId));
    expect(inv!.status).toBe('open');
  });

  test('unknown and malformed events answer 200 and change nothing', async () => {
    const post = (body: string) =>
      fetch(`${t.url}/api/webhooks/asaas`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'asaas-access-token': WEBHOOK_TOKEN },
        body,
      });
    expect((await post('{"hello":1}')).status).toBe(200);
    expect((await post('{"id":"evt_u1","event":"SOMETHING_NEW"}')).status).toBe(200);
    expect(
      (await post('{"id":"evt_u2","event":"PAYMENT_RECEIVED","payment":{"id":"pay_nobody"}}')).status,
    ).toBe(200);
    expect((await post('[1,2,3]')).status).toBe(200);
  });

  test('overdue, refunded and deleted update the invoice and tell the company', async () => {
    const c = await trialCompany('Events');
    const pix = await (
      await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":2}' }))
    ).json();
    const socket = await t.socket(c.admin.token);
    const overdue = nextEvent<{ action: string }>(socket, `company-${c.id}-payment`);
    expect(await fake.send('PAYMENT_OVERDUE', pix.paymentId)).toBe(200);
    expect((await overdue).action).toBe('OVERDUE');
    expect((await db.select().from(invoices).where(eq(invoices.id, pix.invoiceId)))[0]!.status).toBe(
      'expired',
    );
    const deleted = nextEvent<{ action: string }>(socket, `company-${c.id}-payment`);
    expect(await fake.send('PAYMENT_DELETED', pix.paymentId)).toBe(200);
    expect((await deleted).action).toBe('DELETED');
    expect(
      (await db.select().from(invoices).where(eq(invoices.id, pix.invoiceId)))[0]!.providerPaymentId,
    ).toBe(null);
  });

  test('the trial upgrade gets a payment link; a subscription is created at the plan and recurrence', async () => {
    const c = await trialCompany('Link');
    const link = await (await t.as(c.admin).get('/asaas/subscriptions/link')).json();
    expect(link.paymentLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v3\/c\/link_/);
    const sub = await t.as(c.admin).post('/asaas/subscriptions');
    expect(sub.status, await sub.clone().text()).toBe(200);
    expect((await sub.json()).cycle).toBe('MONTHLY');
    const user = await t.user(c.admin, 'user');
    await expectError(await t.as(user).get('/asaas/subscriptions/link'), 403, 'ERR_NO_PERMISSION');
  });
});

describe('payments: amount, refunds and order (docs/billing.md)', () => {
  const webhook = (body: unknown) =>
    fetch(`${t.url}/api/webhooks/asaas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'asaas-access-token': WEBHOOK_TOKEN },
      body: JSON.stringify(body),
      // A webhook that never answers is the failure this guards against.
      signal: AbortSignal.timeout(10_000),
    });
  const company = async (id: number) => (await db.select().from(companies).where(eq(companies.id, id)))[0]!;
  const invoiceOf = async (id: number) => (await db.select().from(invoices).where(eq(invoices.id, id)))[0]!;

  test('a company:<id> payment with no open invoice answers at once and the server stays responsive', async () => {
    const c = await t.company('NoInvoice', { planId: 1 });
    await setDue(c.id, 4);
    expect(await db.select().from(invoices).where(eq(invoices.companyId, c.id))).toEqual([]);
    // The exact body (no value): answered, held for review, nothing granted.
    const bare = await webhook({
      id: unique('evt_bare_'),
      event: 'PAYMENT_RECEIVED',
      payment: { id: unique('pay_bare_'), externalReference: `company:${c.id}` },
    });
    expect(bare.status).toBe(200);
    expect((await bare.json()).outcome).toBe('held');
    expect((await company(c.id)).dueDate).toBe(dayOffset(4));
    // Readiness and logins still answer.
    expect((await fetch(`${t.url}/api/ready`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
    await t.login(c.adminEmail, 'Admin@123');

    // The same kind of charge paying the plan's value: the period's invoice made, paid, one month granted.
    const res = await webhook({
      id: unique('evt_sub_'),
      event: 'PAYMENT_RECEIVED',
      payment: { id: unique('pay_sub_'), externalReference: `company:${c.id}`, value: 49 },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).outcome).toBe('processed');
    const mine = await db.select().from(invoices).where(eq(invoices.companyId, c.id));
    expect(mine).toEqual([expect.objectContaining({ status: 'paid', value: 49, dueDate: dayOffset(4) })]);
    expect((await company(c.id)).dueDate).toBe(addRecurrence(dayOffset(4), 'MENSAL'));
  });

  test('CONFIRMED and RECEIVED of a new payment at the same moment: both answered 200, one period granted', async () => {
    const cs = await Promise.all([1, 2, 3, 4].map((n) => t.company(`Together${n}`, { planId: 1 })));
    await Promise.all(cs.map((c) => setDue(c.id, 4)));
    const answers = await Promise.all(
      cs.flatMap((c) => {
        const payment = { id: unique('pay_both_'), externalReference: `company:${c.id}`, value: 49 };
        return ['PAYMENT_CONFIRMED', 'PAYMENT_RECEIVED'].map((event) =>
          webhook({ id: unique('evt_both_'), event, payment }),
        );
      }),
    );
    // No key conflict between the two (a 500 the provider would retry).
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    for (const c of cs) {
      expect((await company(c.id)).dueDate).toBe(addRecurrence(dayOffset(4), 'MENSAL'));
      expect(await db.select().from(invoices).where(eq(invoices.companyId, c.id))).toEqual([
        expect.objectContaining({ status: 'paid', value: 49 }),
      ]);
    }
  });

  test('a short payment is held for review: nothing granted, the super user sees what was paid', async () => {
    const c = await t.company('Short', { planId: 1 });
    await setDue(c.id, 3);
    const pix = await (await t.as(c.admin).post('/subscription', checkoutBody())).json();
    expect(pix.valor.original).toBe('49.00');
    expect(await fake.send('PAYMENT_RECEIVED', pix.paymentId, { payment: { value: 0.01 } })).toBe(200);
    expect((await company(c.id)).dueDate).toBe(dayOffset(3));
    expect((await invoiceOf(pix.invoiceId)).status).toBe('review');
    const all = await (await t.as(await t.superuser()).get('/invoices/all?searchParam=short')).json();
    expect(all.records.find((r: { id: number }) => r.id === pix.invoiceId)).toMatchObject({
      status: 'review',
      heldValue: 0.01,
      value: 49,
    });
    // Its CONFIRMED later decides nothing more; the company pays the invoice in full with a new charge.
    expect(await fake.send('PAYMENT_CONFIRMED', pix.paymentId, { payment: { value: 0.01 } })).toBe(200);
    expect((await invoiceOf(pix.invoiceId)).status).toBe('review');
    const again = await (
      await t.as(c.admin).post('/subscription', checkoutBody({ invoiceId: pix.invoiceId }))
    ).json();
    expect(await fake.pay(again.paymentId)).toBe(200);
    expect((await invoiceOf(pix.invoiceId)).status).toBe('paid');
    expect((await company(c.id)).dueDate).toBe(addRecurrence(dayOffset(3), 'MENSAL'));
  });

  test('a refund takes back what its payment granted, and the payment never grants again', async () => {
    const c = await trialCompany('Refund', 5);
    const before = await company(c.id);
    const pix = await (
      await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":2}' }))
    ).json();
    expect(await fake.pay(pix.paymentId)).toBe(200);
    expect(await company(c.id)).toMatchObject({
      dueDate: addRecurrence(dayOffset(5), 'MENSAL'),
      planId: 2,
      trialPeriod: false,
    });
    const socket = await t.socket(c.admin.token);
    const refunded = nextEvent<{ action: string; company: { dueDate: string } }>(
      socket,
      `company-${c.id}-payment`,
    );
    expect(await fake.send('PAYMENT_REFUNDED', pix.paymentId)).toBe(200);
    expect(await refunded).toMatchObject({ action: 'REFUNDED', company: { dueDate: dayOffset(5) } });
    expect(await company(c.id)).toMatchObject({
      dueDate: before.dueDate,
      planId: before.planId,
      trialPeriod: true,
    });
    expect((await invoiceOf(pix.invoiceId)).status).toBe('open');
    // A new RECEIVED (another event id) for the refunded payment adds nothing.
    expect(await fake.send('PAYMENT_RECEIVED', pix.paymentId)).toBe(200);
    expect(await company(c.id)).toMatchObject({ dueDate: before.dueDate, planId: before.planId });
    // A chargeback of it changes nothing more either.
    expect(await fake.send('PAYMENT_CHARGEBACK_REQUESTED', pix.paymentId)).toBe(200);
    expect((await company(c.id)).dueDate).toBe(before.dueDate);
  });

  test('events out of order: a chargeback before its RECEIVED grants nothing; CONFIRMED then RECEIVED, one period', async () => {
    const c = await t.company('Order', { planId: 1 });
    await setDue(c.id, 2);
    const first = await (await t.as(c.admin).post('/subscription', checkoutBody())).json();
    expect(await fake.send('PAYMENT_CHARGEBACK_REQUESTED', first.paymentId)).toBe(200);
    expect(await fake.send('PAYMENT_RECEIVED', first.paymentId)).toBe(200);
    expect((await company(c.id)).dueDate).toBe(dayOffset(2));
    expect((await invoiceOf(first.invoiceId)).status).not.toBe('paid');

    const second = await (
      await t.as(c.admin).post('/subscription', checkoutBody({ invoiceId: first.invoiceId }))
    ).json();
    expect(await fake.send('PAYMENT_CONFIRMED', second.paymentId)).toBe(200);
    expect(await fake.send('PAYMENT_RECEIVED', second.paymentId)).toBe(200);
    expect((await company(c.id)).dueDate).toBe(addRecurrence(dayOffset(2), 'MENSAL'));
  });

  test('a failed checkout leaves no payable invoice behind', async () => {
    const su = await t.superuser();
    const c = await trialCompany('Failed', 5);
    const mine = () => db.select().from(invoices).where(eq(invoices.companyId, c.id));
    // The provider refuses the charge (502): the invoice made for it goes, the plan chosen is not kept.
    fake.failing = { method: 'POST', path: '/payments', status: 503 };
    try {
      await expectError(
        await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":3}' })),
        502,
        'ERR_PAYMENT_PROVIDER',
      );
    } finally {
      fake.failing = undefined;
    }
    expect(await mine()).toEqual([]);
    // No key configured (503): nothing written either, not even an invoice for the trial plan.
    expect((await t.as(su).put('/settings/asaas', { value: '' })).status).toBe(200);
    try {
      await expectError(
        await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":3}' })),
        503,
        'ERR_PAYMENT_NOT_CONFIGURED',
      );
      await expectError(await t.as(c.admin).post('/subscription', checkoutBody()), 400, 'ERR_VALIDATION');
    } finally {
      expect((await t.as(su).put('/settings/asaas', { value: fake.apiKey })).status).toBe(200);
    }
    expect(await mine()).toEqual([]);
    // An invoice that existed before keeps its plan and value when the provider fails.
    const pix = await (
      await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":1}' }))
    ).json();
    fake.failing = { method: 'POST', path: '/payments', status: 500 };
    try {
      await expectError(
        await t.as(c.admin).post('/subscription', checkoutBody({ plan: '{"planId":4}' })),
        502,
        'ERR_PAYMENT_PROVIDER',
      );
    } finally {
      fake.failing = undefined;
    }
    expect(await mine()).toEqual([
      expect.objectContaining({ id: pix.invoiceId, value: 49, planId: 1, status: 'open' }),
    ]);
  });

  test('another company’s reference never pays or refunds the first one', async () => {
    const a = await t.company('RefA', { planId: 1 });
    const b = await t.company('RefB', { planId: 1 });
    await setDue(a.id, 6);
    await setDue(b.id, 6);
    const pixA = await (await t.as(a.admin).post('/subscription', checkoutBody())).json();
    expect(await fake.pay(pixA.paymentId)).toBe(200);
    const aPaid = await company(a.id);
    // A refund naming B's company for A's payment id: A's payment row decides, B is untouched.
    const res = await webhook({
      id: unique('evt_cross_'),
      event: 'PAYMENT_RECEIVED',
      payment: { id: unique('pay_cross_'), externalReference: `company:${b.id}`, value: 0.5 },
    });
    expect((await res.json()).outcome).toBe('held');
    expect((await company(b.id)).dueDate).toBe(dayOffset(6));
    expect(await company(a.id)).toEqual(aPaid);
    const listA = await (await t.as(a.admin).get('/invoices/all')).json();
    expect(listA.records.every((r: { companyId: number }) => r.companyId === a.id)).toBe(true);
  });
});

describe('another company', () => {
  test('can never read, pay or be paid through the first one’s invoice', async () => {
    const a = await trialCompany('OwnerA');
    const b = await trialCompany('IntruderB');
    const pixA = await (
      await t.as(a.admin).post('/subscription', checkoutBody({ plan: '{"planId":1}' }))
    ).json();
    const socketB = await t.socket(b.admin.token);
    const bSees = collectEvents(socketB, `company-${a.id}-payment`, 600);
    // B cannot check out A's invoice, nor see it in its list.
    await expectError(
      await t.as(b.admin).post('/subscription', checkoutBody({ invoiceId: pixA.invoiceId })),
      404,
      'ERR_NO_INVOICE_FOUND',
    );
    const listB = await (await t.as(b.admin).get('/invoices/all')).json();
    expect(listB.records.map((r: { id: number }) => r.id)).not.toContain(pixA.invoiceId);
    // A's payment moves A only; B hears nothing of it.
    const [bBefore] = await db.select().from(companies).where(eq(companies.id, b.id));
    expect(await fake.pay(pixA.paymentId)).toBe(200);
    expect(await bSees).toEqual([]);
    const [bAfter] = await db.select().from(companies).where(eq(companies.id, b.id));
    expect(bAfter).toEqual(bBefore);
    const [aAfter] = await db.select().from(companies).where(eq(companies.id, a.id));
    expect(aAfter!.trialPeriod).toBe(false);
  });
});

describe('blocking', () => {
  test('past dueDate + 1 day: sign-in and billing work, writes answer 402, inbound is stored, schedules wait and resume after payment', async () => {
    const c = await trialCompany('Blocked', 10);
    const api = t.as(c.admin);
    const w = await (await api.post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    await waitFor(async () => t.app.sessions.get(w.id));
    const number = `5581999${Date.now().toString().slice(-6)}`;
    const contact = await (await api.post('/contacts', { name: 'Cliente', number })).json();
    const sendAt = new Date(clock.now().getTime() + 5 * MIN).toISOString();
    const sc = await (
      await api.post('/schedules', { body: 'Lembrete', sendAt, contactId: contact.id })
    ).json();
    expect(sc.id).toBeTruthy();

    // Due the day before yesterday: past dueDate + 1 day (counted on UTC's calendar, like dayOffset).
    expect((await api.put('/settings/timezone', { value: 'UTC' })).status).toBe(200);
    await setDue(c.id, -2);
    const session = await t.login(c.adminEmail, 'Admin@123');
    const me = await (await t.as(session).get('/auth/me')).json();
    expect(me.company.subscription).toMatchObject({ blocked: true, reason: 'trial_expired', daysOverdue: 2 });
    await expectError(await t.as(session).post('/tags', { name: 'Nova' }), 402, 'ERR_SUBSCRIPTION_EXPIRED');
    await expectError(
      await t.as(session).put(`/contacts/${contact.id}`, { name: 'Xavier' }),
      402,
      'ERR_SUBSCRIPTION_EXPIRED',
    );
    expect((await t.as(session).get('/tags')).status).toBe(200);
    expect((await t.as(session).get('/invoices/all')).status).toBe(200);

    // A customer's message is still stored.
    const inbound = await t
      .as(session)
      .post(`/simulator/${w.id}/inbound`, { from: number, body: 'Olá, ainda atendem?' });
    expect(inbound.status, await inbound.clone().text()).toBe(202);
    await waitFor(async () => {
      const conv = await (await t.as(session).get(`/simulator/${w.id}/conversations/${number}`)).json();
      return conv.some(
        (m: { body: string; fromMe: boolean }) => m.body === 'Olá, ainda atendem?' && !m.fromMe,
      );
    });

    // The schedule's time comes while blocked: it waits.
    clock.advance(6 * MIN);
    await jobs.runDue();
    expect((await (await t.as(session).get(`/schedules/${sc.id}`)).json()).status).not.toBe('ENVIADA');

    // Paying unblocks at once, from the day of payment.
    const pix = await (
      await t.as(session).post('/subscription', checkoutBody({ plan: '{"planId":1}' }))
    ).json();
    expect(await fake.pay(pix.paymentId)).toBe(200);
    const [after] = await db.select().from(companies).where(eq(companies.id, c.id));
    expect(after!.dueDate).toBe(addRecurrence(clock.now().toISOString().slice(0, 10), 'MENSAL'));
    expect(subscriptionState({ dueDate: after!.dueDate, trialPeriod: false }, clock.now()).blocked).toBe(
      false,
    );
    expect((await t.as(session).post('/tags', { name: 'Depois' })).status).toBe(201);

    // The paused schedule resumes by itself.
    clock.advance(2 * MIN);
    await jobs.runDue();
    await waitFor(
      async () => (await (await t.as(session).get(`/schedules/${sc.id}`)).json()).status === 'ENVIADA',
    );
  });

  test('any wrapped job (campaign sends use the same wrapper) waits while blocked and runs once unblocked', async () => {
    const c = await t.company('Paused');
    const ran: number[] = [];
    const probe = defineJob({
      kind: 'test.billing-probe',
      payload: z.object({ n: z.number() }),
      handler: async (job) => void ran.push(job.payload.n),
    });
    jobs.register(...t.app.services.billing.pausedWhileBlocked([probe]));
    await setDue(c.id, -3);
    await jobs.schedule(probe, { key: 'probe', runAt: clock.now(), payload: { n: 7 }, companyId: c.id });
    await jobs.runDue();
    clock.advance(2 * MIN);
    await jobs.runDue();
    expect(ran).toEqual([]);
    await setDue(c.id, 30);
    clock.advance(2 * MIN);
    await jobs.runDue();
    expect(ran).toEqual([7]);
  });

  test("days left and overdue are counted on the company's calendar, not UTC's", async () => {
    const c = await t.company('Calendar', { planId: 1 });
    // A zone whose date differs from UTC's right now: Kiritimati (UTC+14) from 10:00 UTC, Pago Pago (UTC-11) before 11:00.
    const now = new Date();
    const zone = now.getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
    expect((await t.as(c.admin).put('/settings/timezone', { value: zone })).status).toBe(200);
    const utcToday = now.toISOString().slice(0, 10);
    await db.update(companies).set({ dueDate: utcToday }).where(eq(companies.id, c.id));
    const local = zonedDate(now, zone);
    const expected = Math.round((Date.parse(utcToday) - Date.parse(local)) / DAY);
    expect(expected).not.toBe(0);
    const me = await (await t.as(c.admin).get('/auth/me')).json();
    expect(me.company.subscription.daysLeft).toBe(expected);
    expect(me.company.subscription.daysOverdue).toBe(Math.max(0, -expected));
  });

  test("the send path's check: cached per company, exact at the instant, forgotten on this process's writes", async () => {
    const c = await t.company('SendCheck', { planId: 1 });
    const billing = t.app.services.billing;
    const su = await t.superuser();
    expect((await t.as(c.admin).put('/settings/timezone', { value: 'UTC' })).status).toBe(200);
    await setDue(c.id, 5);
    expect(await billing.sendBlocked(c.id)).toBe(false);
    // Written past the services (another process): the cached answer stands until the TTL.
    await setDue(c.id, -3);
    expect(await billing.sendBlocked(c.id)).toBe(false);
    expect(await billing.isBlocked(c.id)).toBe(true);
    // The companies module's write in this process: seen at once.
    const put = await t.as(su).put(`/companies/${c.id}`, { dueDate: dayOffset(-3) });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await billing.sendBlocked(c.id)).toBe(true);
    const due = dayOffset(30);
    await setDue(c.id, 30);
    billing.forgetSendCheck(c.id);
    expect(await billing.sendBlocked(c.id)).toBe(false);
    // The instant is kept, not the answer: the clock passing dueDate + 1 day blocks without a new read.
    const now = clock.now().getTime();
    clock.set(new Date(now + 33 * DAY));
    try {
      expect(await billing.sendBlocked(c.id)).toBe(true);
      expect(subscriptionState({ dueDate: due, trialPeriod: false }, clock.now()).blocked).toBe(true);
    } finally {
      clock.set(new Date(now));
    }
  });

  test('the super user is never blocked; a company on time is not either', async () => {
    const c = await t.company('OnTime');
    expect((await t.as(c.admin).post('/tags', { name: 'Okay' })).status).toBe(201);
    const me = await (await t.as(c.admin).get('/auth/me')).json();
    expect(me.company.subscription.blocked).toBe(false);
  });
});
