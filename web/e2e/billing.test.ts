import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { asaasFake, type AsaasFake } from '../../server/test/asaas-fake.js';
import { BASE_URL, SUPER_USER, apiLogin, createCompany, launch, newPage, screenshot } from './browser.js';

/**
 * Billing end to end (docs/billing.md): an expired trial sees the blocking modal, checks out, gets the
 * Pix screen; the local Asaas (run.mjs points ASAAS_API_URL at it) pays; the success toast shows the new
 * due date and the app goes back to / after 4 s.
 */
let browser: Browser;
let fake: AsaasFake;
before(async () => {
  fake = await asaasFake({
    port: Number(process.env.E2E_ASAAS_PORT),
    webhook: {
      url: `${BASE_URL}/api/webhooks/asaas`,
      token: process.env.E2E_ASAAS_WEBHOOK_TOKEN ?? '',
    },
  });
  browser = await launch();
  const su = await apiLogin(SUPER_USER.email, SUPER_USER.password);
  const res = await fetch(`${BASE_URL}/api/settings/asaas`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${su}` },
    body: JSON.stringify({ value: fake.apiKey }),
  });
  assert.equal(res.status, 200);
});
after(async () => {
  await browser.close();
  await fake.close();
});

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** A trial company (plan "Teste grátis") whose dueDate was `dueIn` days from today. */
const trialCompany = (name: string, dueIn: number) => companyDue(name, dueIn, { planId: 7, trial: true });

/** A company on `planId` whose dueDate is `dueIn` days from today's UTC date. */
async function companyDue(
  name: string,
  dueIn: number,
  opts: { planId: number; trial: boolean; timeZone?: string },
): Promise<string> {
  const email = await createCompany(name, opts.planId, stamp);
  const su = await apiLogin(SUPER_USER.email, SUPER_USER.password);
  const list = await fetch(
    `${BASE_URL}/api/companies?searchParam=${encodeURIComponent(`${name} ${stamp}`)}`,
    {
      headers: { authorization: `Bearer ${su}` },
    },
  );
  const { companies } = (await list.json()) as { companies: { id: number }[] };
  // Days are counted on the company's calendar: UTC's unless told (like day()); set while not yet blocked.
  const admin = await apiLogin(email, 'Admin@123');
  const tz = await fetch(`${BASE_URL}/api/settings/timezone`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ value: opts.timeZone ?? 'UTC' }),
  });
  assert.equal(tz.status, 200, await tz.text());
  const res = await fetch(`${BASE_URL}/api/companies/${companies[0]!.id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${su}` },
    body: JSON.stringify({ dueDate: day(dueIn), trialPeriod: opts.trial }),
  });
  assert.equal(res.status, 200, await res.text());
  return email;
}

async function signIn(page: Page, email: string, dark = false) {
  await page.goto('/login');
  await page.evaluate((d) => localStorage.setItem('preferredTheme', d ? 'dark' : 'light'), dark);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill('Admin@123');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor(LONG);
}

const toast = (page: Page, text: string) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

test('expired trial: blocking modal → checkout → Pix screen → payment → toast and back to / after 4 s', async () => {
  const email = await trialCompany('Cobranca', -3);
  const page = await newPage(browser);
  await signIn(page, email);
  await page.goto('/tickets');
  const modal = page.getByTestId('subscription-block');
  await modal.waitFor(LONG);
  assert.match((await page.getByTestId('subscription-block-days').textContent()) ?? '', /há 3 dias/);
  // Not closable: Escape leaves it there.
  await page.keyboard.press('Escape');
  await modal.waitFor({ state: 'visible', timeout: 2000 });
  await screenshot(page, 'billing-blocked-light');

  await page.getByTestId('subscription-block-pay').click();
  const dialog = page.getByTestId('checkout-dialog');
  await dialog.waitFor(LONG);
  // docs/billing.md: the data step's required fields.
  await page.getByTestId('checkout-next').click();
  await dialog.getByText('Obrigatório').first().waitFor(LONG);
  await page.getByTestId('checkout-firstName').fill('Maria');
  await page.getByTestId('checkout-address2').fill('Rua das Flores, 10');
  await page.getByTestId('checkout-city').fill('Recife');
  await page.getByTestId('checkout-zipcode').fill('50000-000');
  await page.getByTestId('checkout-next').click();
  await page.getByTestId('checkout-plan').first().waitFor(LONG);
  await page.getByTestId('checkout-next').click();
  const review = page.getByTestId('checkout-review');
  await review.waitFor(LONG);
  assert.match((await review.textContent()) ?? '', /R\$\s?97,00/);
  await page.getByTestId('checkout-pay').click();

  await page.getByTestId('checkout-qr').waitFor(LONG);
  const code = await page.getByTestId('checkout-code').inputValue();
  assert.match(code, /^000201/);
  await screenshot(page, 'billing-pix-light');
  const payment = [...fake.payments.values()].at(-1)!;
  assert.equal(payment.value, 97);

  assert.equal(await fake.pay(payment.id), 200);
  await toast(page, 'Assinatura renovada').waitFor(LONG);
  const paidAt = Date.now();
  await page.waitForURL((u) => u.pathname === '/', { timeout: 15_000 });
  assert.ok(Date.now() - paidAt >= 3000, 'redirected after about 4 s');
  await page.getByTestId('subscription-block').waitFor({ state: 'detached', timeout: 10_000 });
  await page.context().close();
});

test('invoices page: the overdue invoice highlighted, Pay opens the checkout; dark and 500 px', async () => {
  const email = await trialCompany('Faturas', -1);
  // A checkout through the API makes the current period's invoice (due yesterday: overdue).
  const token = await apiLogin(email, 'Admin@123');
  const res = await fetch(`${BASE_URL}/api/subscription`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      firstName: 'Ana',
      address2: 'Rua A',
      city: 'Recife',
      zipcode: '50000000',
      country: 'BR',
      plan: '{"planId":3}',
    }),
  });
  assert.equal(res.status, 200, await res.text());
  for (const [name, width] of [
    ['billing-invoices-dark', 1366],
    ['billing-invoices-500', 500],
  ] as const) {
    const page = await newPage(browser, { width, height: 850 });
    await signIn(page, email, true);
    await page.goto('/financeiro');
    const row = page.getByTestId('invoice-row').first();
    await row.waitFor(LONG);
    assert.equal(await row.getAttribute('data-status'), 'expired');
    // The blocking modal stays away from the page where one pays.
    assert.equal(await page.getByTestId('subscription-block').count(), 0);
    await screenshot(page, name);
    await page.getByTestId('invoice-pay').first().click();
    await page.getByTestId('checkout-dialog').waitFor(LONG);
    await screenshot(page, `${name}-checkout`);
    await page.context().close();
  }
});

const api = async (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${BASE_URL}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test('Financeiro with no invoice: plan, due date, trial days, pay and change plan; light, dark and 500 px', async () => {
  const email = await trialCompany('Resumo', 3);
  for (const [name, width, dark] of [
    ['billing-summary-light', 1366, false],
    ['billing-summary-dark', 1366, true],
    ['billing-summary-500', 500, false],
  ] as const) {
    const page = await newPage(browser, { width, height: 850 });
    await signIn(page, email, dark);
    await page.goto('/financeiro');
    const summary = page.getByTestId('billing-summary');
    await summary.waitFor(LONG);
    // The menu and the page say the same name.
    await page.getByRole('heading', { name: 'Financeiro' }).first().waitFor(LONG);
    assert.match((await page.getByTestId('billing-summary-plan').textContent()) ?? '', /Teste grátis/);
    assert.equal(
      (await page.getByTestId('billing-summary-due').textContent())?.trim(),
      new Date(`${day(3)}T12:00:00Z`).toLocaleDateString('pt-BR'),
    );
    assert.match((await page.getByTestId('billing-summary-trial').textContent()) ?? '', /3 dias de teste/);
    await page.getByTestId('billing-summary-pay').waitFor(LONG);
    // No invoice yet: the list says so under the summary.
    await page.getByTestId('invoices-list').getByText('Nenhum registro encontrado.').waitFor(LONG);
    await screenshot(page, name);
    await page.getByTestId('billing-summary-change').click();
    const dialog = page.getByTestId('checkout-dialog');
    await dialog.waitFor(LONG);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    await page.context().close();
  }
  // The Premium dialog no longer says billing is coming: it leads to a plan.
  const page = await newPage(browser);
  await signIn(page, email);
  await page.getByTestId('premium-button').first().click();
  const premium = page.getByRole('dialog').filter({ hasText: 'Recado Premium' });
  await premium.waitFor(LONG);
  const text = (await premium.textContent()) ?? '';
  assert.doesNotMatch(text, /chegam com o módulo/);
  assert.match(text, /pague por Pix/);
  await page.getByTestId('premium-choose-plan').click();
  await page.getByTestId('checkout-dialog').waitFor(LONG);
  await page.context().close();
});

test('no payment key on the platform: the checkout says payments are not available, not "try again"', async () => {
  const email = await companyDue('SemChave', 5, { planId: 1, trial: false });
  const su = await apiLogin(SUPER_USER.email, SUPER_USER.password);
  assert.equal((await api(su, 'PUT', '/settings/asaas', { value: '' })).status, 200);
  try {
    const page = await newPage(browser);
    await signIn(page, email);
    await page.goto('/financeiro');
    await page.getByTestId('billing-summary-pay').click();
    await page.getByTestId('checkout-dialog').waitFor(LONG);
    await page.getByTestId('checkout-firstName').fill('Maria');
    await page.getByTestId('checkout-address2').fill('Rua das Flores, 10');
    await page.getByTestId('checkout-city').fill('Recife');
    await page.getByTestId('checkout-zipcode').fill('50000-000');
    await page.getByTestId('checkout-next').click();
    await page.getByTestId('checkout-plan').first().waitFor(LONG);
    await page.getByTestId('checkout-next').click();
    // The company's own plan is the one preselected to renew (R$ 49).
    assert.match((await page.getByTestId('checkout-review').textContent()) ?? '', /R\$\s?49,00/);
    await page.getByTestId('checkout-pay').click();
    await toast(page, 'Os pagamentos ainda não estão disponíveis').waitFor(LONG);
    assert.equal(await toast(page, 'Tente novamente em instantes').count(), 0);
    await screenshot(page, 'billing-not-configured');
    // Nothing payable was left behind.
    const token = await apiLogin(email, 'Admin@123');
    const list = (await (await api(token, 'GET', '/invoices/all')).json()) as { records: unknown[] };
    assert.deepEqual(list.records, []);
    await page.context().close();
  } finally {
    assert.equal((await api(su, 'PUT', '/settings/asaas', { value: fake.apiKey })).status, 200);
  }
});

test("expired subscription with no invoice: the block asks to pay the subscription, days counted on the company's calendar", async () => {
  // A zone whose date differs from UTC's now: Kiritimati (UTC+14) from 10:00 UTC, Pago Pago (UTC-11) before.
  const now = new Date();
  const zone = now.getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
  const email = await companyDue('Fuso', -2, { planId: 1, trial: false, timeZone: zone });
  const local = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(now);
  const overdue = Math.round((Date.parse(local) - Date.parse(day(-2))) / 86_400_000);
  assert.notEqual(overdue, 2);
  const page = await newPage(browser);
  await signIn(page, email, true);
  await page.goto('/tickets');
  const modal = page.getByTestId('subscription-block');
  await modal.waitFor(LONG);
  assert.match(
    (await page.getByTestId('subscription-block-days').textContent()) ?? '',
    new RegExp(`há ${overdue} dias?`),
  );
  const text = (await modal.textContent()) ?? '';
  assert.doesNotMatch(text, /fatura em aberto/);
  assert.match(text, /Pague sua assinatura/);
  await screenshot(page, 'billing-blocked-no-invoice-dark');
  await page.context().close();
});

test('a short payment is held for review: the company and the super user see it under review with what it paid', async () => {
  const email = await companyDue('Parcial', 4, { planId: 1, trial: false });
  const token = await apiLogin(email, 'Admin@123');
  const res = await api(token, 'POST', '/subscription', {
    firstName: 'Ana',
    address2: 'Rua A',
    city: 'Recife',
    zipcode: '50000000',
    country: 'BR',
  });
  assert.equal(res.status, 200, await res.clone().text());
  const pix = (await res.json()) as { paymentId: string; invoiceId: number };
  assert.equal(await fake.send('PAYMENT_RECEIVED', pix.paymentId, { payment: { value: 0.01 } }), 200);

  const page = await newPage(browser, { width: 500, height: 850 });
  await signIn(page, email);
  await page.goto('/financeiro');
  const row = page.locator(`[data-testid="invoice-row"][data-status="review"]`).first();
  await row.waitFor(LONG);
  assert.match((await row.textContent()) ?? '', /Em análise/);
  await page.context().close();

  const su = await newPage(browser);
  await su.goto('/login');
  await su.locator('input[name="email"]').fill(SUPER_USER.email);
  await su.locator('input[name="password"]').fill(SUPER_USER.password);
  await su.getByTestId('login-submit').click();
  await su.getByTestId('greeting').waitFor(LONG);
  await su.goto('/financeiro');
  const held = su.locator('[data-testid="invoice-row"][data-status="review"]').filter({ hasText: 'Parcial' });
  await held.first().waitFor(LONG);
  assert.match((await held.first().getByTestId('invoice-held').textContent()) ?? '', /R\$\s?0,01/);
  await screenshot(su, 'billing-held-super');
  await su.context().close();
});
