import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import {
  DEMO_USER,
  launch,
  newPage,
  pageApi,
  quietSimulator,
  screenshot,
  signInPage,
  typeDate,
  until,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const call = async <T>(
  page: Page,
  token: string,
  method: 'get' | 'post' | 'put',
  path: string,
  data?: unknown,
) => {
  const res = await page.request[method](`/api${path}`, {
    data,
    headers: { authorization: `Bearer ${token}` },
  });
  assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
  return (await res.json().catch(() => ({}))) as T;
};

const figure = async (page: Page, id: string) => Number(await page.getByTestId(id).innerText());

test('dashboard: the counters follow a simulator conversation accepted and closed', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page);
    const simulator = await quietSimulator(pageApi(page, token));

    await page.goto('/');
    await page.getByTestId('count-finished').waitFor();
    assert.match(await page.getByTestId('dashboard-period').innerText(), /America\/Sao_Paulo/);
    const before = {
      pending: await figure(page, 'count-pending'),
      happening: await figure(page, 'count-happening'),
      finished: await figure(page, 'count-finished'),
    };
    const refresh = () => page.getByTestId('filter-apply').click();

    // The customer writes: one more waiting.
    const number = `55119${String(Date.now()).slice(-8)}`;
    await call(page, token, 'post', `/simulator/${simulator.id}/inbound`, {
      from: number,
      name: 'Cliente Painel',
      body: 'Quero saber do meu pedido',
    });
    const ticket = await until(
      async () =>
        (
          await call<{ tickets: { id: number; contact: { number: string } }[] }>(
            page,
            token,
            'get',
            '/tickets?status=pending&showAll=true',
          )
        ).tickets.find((x) => x.contact.number === number),
      Boolean,
      'the pending ticket',
    );
    await until(
      async () => (await refresh(), figure(page, 'count-pending')),
      (n) => n === before.pending + 1,
      'pending + 1',
    );

    // Accepted and answered: one more in service, one fewer waiting.
    await call(page, token, 'put', `/tickets/${ticket!.id}`, { status: 'open' });
    await call(page, token, 'post', `/messages/${ticket!.id}`, { body: 'Já verifico para você.' });
    await until(
      async () => (await refresh(), figure(page, 'count-happening')),
      (n) => n === before.happening + 1,
      'happening + 1',
    );
    assert.equal(await figure(page, 'count-pending'), before.pending);
    assert.notEqual(await page.getByTestId('avg-wait').innerText(), '—');
    assert.notEqual(await page.getByTestId('avg-first-response').innerText(), '—');

    // Closed: finished + 1, and the admin's row counts it.
    await call(page, token, 'put', `/tickets/${ticket!.id}`, { status: 'closed' });
    await until(
      async () => (await refresh(), figure(page, 'count-finished')),
      (n) => n === before.finished + 1,
      'finished + 1',
    );
    assert.equal(await figure(page, 'count-happening'), before.happening);
    assert.notEqual(await page.getByTestId('avg-support').innerText(), '—');
    await page.getByTestId('chart-users').waitFor();
    await page.getByTestId('chart-days').waitFor();

    // The CSV behind the figures has the conversation's row.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('dashboard-export').click(),
    ]);
    assert.match(download.suggestedFilename(), /^atendimentos-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const { readFile } = await import('node:fs/promises');
    const csv = await readFile((await download.path())!, 'utf8');
    const line = csv.split('\r\n').find((l) => l.startsWith(`${ticket!.id};`));
    assert.ok(line, 'the ticket is in the export');
    assert.match(line!, /;closed;/);

    // Another period from the spec's list.
    await page.getByRole('combobox', { name: 'Período' }).click();
    await page.getByRole('option', { name: /30/ }).click();
    await refresh();
    await until(
      async () => page.getByTestId('dashboard-period').innerText(),
      (s) => {
        // dd/mm/yyyy, as the interface writes dates.
        const m = s.match(/(\d{2})\/(\d{2})\/(\d{4}).*?(\d{2})\/(\d{2})\/(\d{4})/);
        const at = (d: string, mo: string, y: string) => Date.UTC(Number(y), Number(mo) - 1, Number(d));
        return Boolean(m && (at(m[4]!, m[5]!, m[6]!) - at(m[1]!, m[2]!, m[3]!)) / 86_400_000 === 29);
      },
      'a 30-day period',
    );
    assert.ok((await figure(page, 'count-finished')) >= before.finished + 1);

    // No period chosen: the toast asks for one.
    await page.getByRole('combobox', { name: 'Período' }).click();
    await page.getByRole('option').first().click();
    await refresh();
    await page.getByText('Selecione um filtro').waitFor();

    await page.getByText('Selecione um filtro').waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Dashboard' }).scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await screenshot(page, 'dashboard-light');
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'dashboard-dark');
    await page.setViewportSize({ width: 500, height: 900 });
    await screenshot(page, 'dashboard-500-dark');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scroll at 500 px (${overflow} px)`);
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'dashboard-500-light');
  } finally {
    await page.context().close();
  }
});

test('dashboard: previous-period deltas, plurals, the cards of now, a reversed range, the bars with their axis (pt, es)', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);
    const simulator = await quietSimulator(http);
    // A conversation closed today: the 7 days have at least one more finished than the 7 before.
    const number = `55119${String(Date.now()).slice(-8)}`;
    await http.post(`/simulator/${simulator.id}/inbound`, {
      from: number,
      name: 'Cliente Delta',
      body: 'Oi',
    });
    const ticket = await until(
      async () =>
        (
          await http.get<{ tickets: { id: number; contact: { number: string } }[] }>(
            '/tickets?status=pending&showAll=true',
          )
        ).tickets.find((x) => x.contact.number === number),
      Boolean,
      'the pending ticket',
    );
    await http.put(`/tickets/${ticket!.id}`, { status: 'open' });
    await http.put(`/tickets/${ticket!.id}`, { status: 'closed' });
    const figures = await http.get<{
      supportFinished: number;
      previous: { supportFinished: number; period: { from: string } };
      csat: { ratings: number };
    }>('/dashboard?days=7');

    await page.goto('/');
    await page.getByTestId('count-finished').waitFor();
    await page.getByTestId('filter-apply').click();
    // The period in the interface's date format (not ISO), and the period it is compared with.
    await until(
      () => page.getByTestId('dashboard-period').innerText(),
      (s) => /^De \d{2}\/\d{2}\/\d{4} a \d{2}\/\d{2}\/\d{4}/.test(s),
      'the period as dd/mm/yyyy',
    );
    const [py, pm, pd] = figures.previous.period.from.split('-');
    assert.match(await page.getByTestId('dashboard-previous').innerText(), new RegExp(`${pd}/${pm}/${py}`));
    // The cards of now say they ignore the period; the period's cards carry their delta.
    assert.match(await page.getByTestId('count-pending-note').innerText(), /independente do período/);
    assert.match(await page.getByTestId('count-happening-note').innerText(), /independente do período/);
    const diff = figures.supportFinished - figures.previous.supportFinished;
    assert.ok(diff > 0);
    assert.equal(
      await page.getByTestId('count-finished-delta').innerText(),
      `▲ ${diff} em relação ao período anterior`,
    );
    // Plurals, never "1 avaliações" nor "—% responderam".
    const csat = await page.getByTestId('count-csat').locator('xpath=..').innerText();
    assert.doesNotMatch(csat, /—%/);
    const n = figures.csat.ratings;
    assert.match(
      csat,
      n === 0 ? /Nenhuma avaliação/ : n === 1 ? /1 avaliação\b/ : new RegExp(`${n} avaliações`),
    );
    // The per-day bars: an axis with its steps, today's bar with its value.
    const axis = await page.getByTestId('chart-days-axis').innerText();
    assert.match(axis, /^0\b/m);
    const closedToday = page.locator('[data-testid$="-closed-value"]').last();
    assert.match(await closedToday.innerText(), /^\d+$/);
    await page.mouse.move(0, 0);
    await screenshot(page, 'dashboard-deltas-light');

    // A reversed range: a message that says so (not "choose a filter"), and the server refuses it too.
    await page.getByRole('combobox', { name: 'Tipo de filtro' }).click();
    await page.getByRole('option', { name: 'Filtro por data' }).click();
    await typeDate(page, 'filter-from', '2026-11-20');
    await typeDate(page, 'filter-to', '2026-11-10');
    await page.getByTestId('filter-apply').click();
    await page.getByText('A data inicial é depois da data final').first().waitFor();
    assert.equal(await page.getByText('Selecione um filtro').count(), 0);
    const refused = await page.request.get('/api/dashboard?date_from=2026-11-20&date_to=2026-11-10', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(refused.status(), 400);
    assert.equal(((await refused.json()) as { error: string }).error, 'ERR_VALIDATION');
    await screenshot(page, 'dashboard-reversed');
    await page.getByTestId('theme-toggle').click();
    await page.setViewportSize({ width: 500, height: 900 });
    await screenshot(page, 'dashboard-reversed-500-dark');
    await page.getByTestId('theme-toggle').click();

    // Spanish: dates and decimals in the interface's language, whatever the browser's.
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.evaluate(() => localStorage.setItem('language', 'es'));
    await page.goto('/');
    await until(
      () => page.getByTestId('dashboard-period').innerText(),
      (s) => /^Del \d{2}\/\d{2}\/\d{4} al \d{2}\/\d{2}\/\d{4}/.test(s),
      'the period as dd/mm/yyyy in Spanish',
    );
    for (const id of ['avg-wait', 'avg-support', 'avg-first-response', 'avg-resolution'])
      assert.doesNotMatch(await page.getByTestId(id).innerText(), /\d\.\d/, `${id}: a decimal comma in es`);
    assert.match(await page.getByTestId('count-pending-note').innerText(), /sin importar el período/);
    await screenshot(page, 'dashboard-es');
  } finally {
    await page.evaluate(() => localStorage.removeItem('language')).catch(() => undefined);
    await page.context().close();
  }
});

test('dashboard: an attendant who opens / lands on the tickets', async () => {
  const page = await newPage(browser);
  try {
    await signInPage(page, DEMO_USER);
    await page.goto('/');
    await page.waitForURL(/\/tickets$/);
    const res = await page.request.get('/api/dashboard?days=7', {
      headers: {
        authorization: `Bearer ${JSON.parse((await page.evaluate(() => localStorage.getItem('token')))!)}`,
      },
    });
    assert.equal(res.status(), 403);
  } finally {
    await page.context().close();
  }
});
