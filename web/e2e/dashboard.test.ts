import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { DEMO_USER, launch, newPage, screenshot, signInPage, until } from './browser.js';

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
    let connections = await call<{ id: number; name: string }[]>(page, token, 'get', '/whatsapp');
    if (!connections.some((w) => w.name === 'Simulador')) {
      await call(page, token, 'post', '/whatsapp', { name: 'Simulador', channel: 'simulator' });
      connections = await call<{ id: number; name: string }[]>(page, token, 'get', '/whatsapp');
    }
    const simulator = connections.find((w) => w.name === 'Simulador')!;

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
        const m = s.match(/(\d{4}-\d{2}-\d{2}).*(\d{4}-\d{2}-\d{2})/);
        return Boolean(m && (Date.parse(m[2]!) - Date.parse(m[1]!)) / 86_400_000 === 29);
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
