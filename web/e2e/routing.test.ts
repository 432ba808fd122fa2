import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  companyAdmin,
  fileBrowser,
  pageApi,
  screenshot,
  signInPage,
  until,
} from './browser.js';

/**
 * #30 routing (docs/routing.md): an admin sets a queue to round robin with capacity 1 and a waiting-line
 * message in the queue dialog; two attendants, each in a browser of their own and online, receive the first
 * two customers one each; the third customer waits and their simulator conversation shows their place in
 * line. Waits on what the pages show (and the API for the customer's phone), never on time.
 */
const browser = fileBrowser();

const stamp = Date.now().toString(36);
const PASSWORD = 'User@1234';

async function fixture() {
  const { email: adminEmail, admin } = await companyAdmin('Distribuicao', 5, stamp);
  const queue = await admin.post<{ id: number; name: string }>('/queue', {
    name: `Suporte ${stamp}`,
    color: '#1565C0',
  });
  const connection = await admin.post<{ id: number }>('/whatsapp', {
    name: `Sim ${stamp}`,
    channel: 'simulator',
    queueIds: [queue.id],
  });
  const attendants = [
    { name: 'Ana Atendente', email: `ana-${stamp}@e2e.local`, password: PASSWORD },
    { name: 'Bruno Atendente', email: `bruno-${stamp}@e2e.local`, password: PASSWORD },
  ];
  for (const a of attendants) await admin.post('/users', { ...a, profile: 'user', queueIds: [queue.id] });
  return { adminEmail, admin, queue, connectionId: connection.id, attendants };
}

/** The attendant's "Atendendo" list shows a row with this customer's name. */
const assignedRow = (page: Page, customer: string) =>
  page.locator('[data-testid="ticket-list-open"] [data-testid="ticket-row"]').filter({ hasText: customer });

test('round robin with capacity: two online attendants get one customer each, the third is told their place', async () => {
  const f = await fixture();
  const admin = await browser.newPage();
  const pages: Page[] = [];
  try {
    // The admin sets the queue: round robin, capacity 1, a waiting-line message.
    // The browser's session replaces the fixture's API one (one session per user): the API goes through it.
    const http = pageApi(
      admin,
      await signInPage(admin, { email: f.adminEmail, password: COMPANY_ADMIN_PASSWORD }),
    );
    await admin.goto('/queues');
    const row = admin.getByTestId('queue-row').filter({ hasText: f.queue.name });
    await row.getByRole('button', { name: 'Editar' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByTestId('queue-tab-routing').click();
    await dialog.getByRole('combobox', { name: 'Distribuição' }).click();
    await admin.getByTestId('policy-round_robin').click();
    await dialog.locator('[data-field="capacity"]').fill('1');
    await dialog
      .locator('[data-field="waitingMessage"]')
      .fill('Você é o {{position}}º da fila; tempo estimado {{eta}}');
    await admin.mouse.move(0, 0);
    await screenshot(admin, 'routing-queue-dialog');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = await http.get<{ assignmentPolicy: string; capacity: number | null }>(
      `/queue/${f.queue.id}`,
    );
    assert.deepEqual([saved.assignmentPolicy, saved.capacity], ['round_robin', 1]);

    // Two attendants open the app (opening it brings them online) on their assigned list.
    for (const a of f.attendants) {
      const page = await browser.newPage();
      pages.push(page);
      await signInPage(page, a);
      await page.goto('/tickets');
      await page.locator('[data-testid="presence-switch"][data-presence="online"]').first().waitFor();
      await page.getByTestId('tab-assigned').click();
    }
    const online = await until(
      () => http.get<{ presence: string; email: string }[]>('/users/list'),
      (users) => f.attendants.every((a) => users.find((u) => u.email === a.email)?.presence === 'online'),
      'both attendants online',
    );
    assert.ok(online);

    // Three customers write, one after another.
    const base = Date.now() % 90_000_000;
    const customers = ['Carla Cliente', 'Diego Cliente', 'Elisa Cliente'].map((name, i) => ({
      name,
      from: `55119${String(base + i).padStart(8, '0')}`,
    }));
    const write = (c: { name: string; from: string }) =>
      http.post(`/simulator/${f.connectionId}/inbound`, {
        from: c.from,
        name: c.name,
        body: 'Olá, preciso de ajuda',
      });

    // Round robin: the first to one attendant, the second to the other; each sees it without a reload.
    await write(customers[0]!);
    const first = await Promise.race(
      pages.map((p, i) =>
        assignedRow(p, customers[0]!.name)
          .waitFor()
          .then(() => i),
      ),
    );
    await write(customers[1]!);
    await assignedRow(pages[1 - first]!, customers[1]!.name).waitFor();
    assert.equal(await assignedRow(pages[first]!, customers[1]!.name).count(), 0);
    await screenshot(pages[1 - first]!, 'routing-attendant-assigned');

    // Both are full (capacity 1): the third waits, and the customer's phone shows their place in line.
    await write(customers[2]!);
    await admin.goto(`/connections/${f.connectionId}/simulator`);
    await admin.locator(`[data-testid="sim-customer"][data-number="${customers[2]!.from}"]`).click();
    const phone = admin.getByTestId('sim-phone');
    await phone
      .locator('[data-testid="sim-message"][data-from="company"]')
      .filter({ hasText: 'Você é o 1º da fila; tempo estimado' })
      .waitFor();
    await admin.mouse.move(0, 0);
    await screenshot(admin, 'routing-waiting-line-message');
    for (const p of pages) assert.equal(await assignedRow(p, customers[2]!.name).count(), 0);
  } finally {
    for (const p of pages) await p.close();
    await admin.close();
  }
});
