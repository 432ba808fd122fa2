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
async function trialCompany(name: string, dueIn: number): Promise<string> {
  const email = await createCompany(name, 7, stamp);
  const su = await apiLogin(SUPER_USER.email, SUPER_USER.password);
  const list = await fetch(
    `${BASE_URL}/api/companies?searchParam=${encodeURIComponent(`${name} ${stamp}`)}`,
    {
      headers: { authorization: `Bearer ${su}` },
    },
  );
  const { companies } = (await list.json()) as { companies: { id: number }[] };
  const res = await fetch(`${BASE_URL}/api/companies/${companies[0]!.id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${su}` },
    body: JSON.stringify({ dueDate: day(dueIn), trialPeriod: true }),
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
