import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import {
  BASE_URL,
  COMPANY_ADMIN_PASSWORD,
  SUPER_USER,
  apiLogin,
  createCompany,
  launch,
  newPage,
} from './browser.js';

/** Issue 21: the rough edges of the operations screens, walked as an admin, a restricted plan and the super user. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
const REFUSAL = 'Esta empresa não possui permissão para acessar essa página!';

async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${BASE_URL}/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as T;
}

const login = apiLogin;

/** A company of this file's own on `planId`; answers its admin's token. */
const company = async (name: string, planId: number) =>
  login(await createCompany(name, planId, stamp), COMPANY_ADMIN_PASSWORD);

async function signIn(page: Page, token: string, extra: Record<string, string> = {}) {
  await page.goto('/login');
  await page.evaluate(
    ([tk, more]) => {
      localStorage.setItem('token', JSON.stringify(tk));
      for (const [k, v] of Object.entries(more as Record<string, string>)) localStorage.setItem(k, v);
    },
    [token, extra] as const,
  );
}

const toasts = (page: Page, text: string) => page.locator('#notistack-snackbar').filter({ hasText: text });

test('a plan without kanban, schedules, prompts, campaigns or chat: one refusal each, then /; the menu hides them', async () => {
  const su = await login(SUPER_USER.email, SUPER_USER.password);
  const plan = await call<{ id: number }>(su, 'POST', '/plans', {
    name: `Nada ${stamp}`,
    users: 3,
    connections: 1,
    queues: 3,
    value: 0,
    useCampaigns: false,
    useKanban: false,
    useOpenAi: false,
    useIntegrations: false,
    useSchedules: false,
    useInternalChat: false,
    useExternalApi: false,
  });
  const token = await company('SemPlano', plan.id);
  const page = await newPage(browser);
  try {
    await signIn(page, token);
    await page.goto('/tickets');
    await page.getByTestId('menu-tickets').waitFor(LONG);
    for (const key of ['kanban', 'schedules', 'chats', 'campaigns', 'prompts', 'queueIntegration'])
      assert.equal(await page.getByTestId(`menu-${key}`).count(), 0, `menu-${key}`);
    assert.equal(await page.getByTestId('chats-button').count(), 0, 'the internal-chat icon of the top bar');

    for (const path of ['/kanban', '/schedules', '/prompts', '/queue-integration', '/campaigns', '/chats']) {
      await page.goto(path);
      await toasts(page, REFUSAL).first().waitFor(LONG);
      await page.waitForURL((url) => url.pathname === '/' || url.pathname === '/tickets', LONG);
      assert.equal(await toasts(page, REFUSAL).count(), 1, `one refusal on ${path}`);
    }

    // The cshow flag reveals the campaign screens: they say why, and ask the server nothing.
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 403) refused.push(r.url());
    });
    await page.evaluate(() => localStorage.setItem('cshow', '1'));
    await page.goto('/campaigns');
    await page
      .getByTestId('campaigns-unavailable')
      .getByText('O plano da sua empresa não inclui campanhas')
      .waitFor(LONG);
    assert.equal(await page.getByTestId('campaign-add').count(), 0);
    await page.goto('/contact-lists');
    await page.getByTestId('campaigns-unavailable').waitFor(LONG);
    assert.deepEqual(refused, []);
  } finally {
    await page.context().close();
  }
});

test("the super user's companies tab offers no delete for the platform's own company", async () => {
  await company('Outra', 3);
  // Logged in last: a new login of the super user ends its older sessions.
  const su = await login(SUPER_USER.email, SUPER_USER.password);
  const me = await call<{ companyId: number; company: { name: string } }>(su, 'GET', '/auth/me');
  const page = await newPage(browser);
  try {
    await signIn(page, su);
    await page.goto(`/settings?tab=companies`);
    // The list is paged newest first and the whole suite creates many companies: search for each row.
    const rows = page.getByTestId('company-row');
    const search = page.getByRole('searchbox', { name: 'Pesquisar' });
    await search.fill(me.company.name);
    const own = rows.filter({ hasText: me.company.name }).first();
    await own.waitFor(LONG);
    assert.equal(await own.getByRole('button', { name: 'Excluir' }).count(), 0);
    await search.fill(`Outra ${stamp}`);
    const other = rows.filter({ hasText: `Outra ${stamp}` }).first();
    await other.waitFor(LONG);
    assert.equal(await other.getByRole('button', { name: 'Excluir' }).count(), 1);
  } finally {
    await page.context().close();
  }
});

test('an admin: next free tag colour, "Nenhum" for prompt and integration, out-of-hours warnings, bot texts, English dates', async () => {
  const token = await company('Bordas', 3);
  const page = await newPage(browser);
  try {
    // Tags: the first palette colour is taken, so a new tag is offered the second.
    await call(token, 'POST', '/tags', { name: `Primeira ${stamp}`, color: '#E57373' });
    await signIn(page, token);
    await page.goto('/tags');
    await page.getByTestId('tag-row').first().waitFor(LONG);
    await page.getByTestId('tag-add').click();
    const checked = page.getByRole('dialog').locator('[role="radio"][aria-checked="true"]');
    await page
      .getByRole('dialog')
      .locator('[role="radio"][aria-checked="true"][data-color="#F44336"]')
      .waitFor(LONG);
    assert.equal(await checked.count(), 1);
    await page.keyboard.press('Escape');

    // Queue dialog: an empty prompt and an empty integration both read "Nenhum".
    await page.goto('/queues');
    await page.getByTestId('queue-add').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab').nth(0).waitFor(LONG);
    for (const field of ['promptId', 'integrationId']) {
      const select = dialog.locator(`input[data-field="${field}"]`).locator('xpath=..');
      assert.equal((await select.locator('[role="combobox"]').innerText()).trim(), 'Nenhum', field);
    }
    await page.keyboard.press('Escape');

    // Company hours and a connection without an out-of-hours message: warned on settings and connections.
    await call(token, 'PUT', '/settings/scheduleType', { value: 'company' });
    await call(token, 'POST', '/whatsapp', { name: `Sim ${stamp}`, channel: 'simulator' });
    await page.goto('/settings');
    await page
      .getByTestId('out-of-hours-warning')
      .filter({ hasText: `Sim ${stamp}` })
      .waitFor(LONG);
    // The bot's texts: the Portuguese defaults, then the English ones once the company speaks English.
    const outOfHours = page.locator('textarea[name="botOutOfHours"]');
    assert.match(await outOfHours.inputValue(), /fora do horário de atendimento/);
    await call(token, 'PUT', '/settings/language', { value: 'en' });
    await page.reload();
    await page.locator('textarea[name="botOutOfHours"]').waitFor(LONG);
    assert.match(
      await page.locator('textarea[name="botOutOfHours"]').inputValue(),
      /outside our business hours/,
    );
    await page.goto('/connections');
    await page.getByTestId('out-of-hours-warning').waitFor(LONG);

    // English dates: 12-hour times, month first.
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await page.goto('/connections');
    const row = page
      .getByTestId('connections-table')
      .locator('tr')
      .filter({ hasText: `Sim ${stamp}` });
    await row.waitFor(LONG);
    assert.match(await row.innerText(), /\d{2}\/\d{2}\/\d{4} \d{2}:\d{2} (AM|PM)/);
  } finally {
    await page.context().close();
  }
});
