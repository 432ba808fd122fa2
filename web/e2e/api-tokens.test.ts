import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  BASE_URL,
  COMPANY_ADMIN_PASSWORD,
  createCompany,
  fileBrowser,
  screenshot,
  signInPage,
} from './browser.js';

const browser = fileBrowser();

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
/** Seed plan 5 has the external API (the messages-api page). */
const PLAN = 5;

/** A plain HTTP call with an API token, as a script elsewhere would make it. */
const withToken = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${BASE_URL}/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Creates a token in the section of `kind` through its dialog; answers the token shown once. */
async function createInUi(page: Page, kind: 'user' | 'company', name: string, scope: 'read' | 'write') {
  await page.getByTestId(`api-token-add-${kind}`).click();
  await page.getByTestId('api-token-name').fill(name);
  await page.getByTestId('api-token-scope').click();
  await page.getByTestId(`api-token-scope-${scope}`).click();
  await page.getByRole('button', { name: 'Criar' }).click();
  const value = page.getByTestId('api-token-value');
  await value.waitFor(LONG);
  // The creation dialog has gone: only the token's dialog is open.
  await page.getByTestId('api-token-name').waitFor({ state: 'detached', ...LONG });
  const token = (await value.textContent()) ?? '';
  assert.match(token, /^rec_pat_[A-Za-z0-9_-]{43}$/);
  return token;
}

test('API tokens: created in the page, shown once, used over HTTP with its scope, listed with last use, revoked', async () => {
  const email = await createCompany('Tokens', PLAN, stamp);
  for (const [mode, dark, width] of [
    ['light', false, 1366],
    ['dark', true, 1366],
    ['narrow', false, 500],
  ] as const) {
    const page = await browser.newPage({ width });
    try {
      await signInPage(
        page,
        { email, password: COMPANY_ADMIN_PASSWORD },
        { preferredTheme: dark ? 'dark' : 'light' },
      );
      if (mode === 'light') {
        // Reached from the avatar menu.
        await page.goto('/tickets');
        await page.getByTestId('profile-button').click(LONG);
        await page.getByTestId('api-tokens-open').click();
      } else await page.goto('/tokens');
      await page.getByTestId('api-token-add-user').waitFor(LONG);

      const name = `ERP ${mode} ${stamp}`;
      const token = await createInUi(page, 'user', name, 'write');
      await page.getByText('Copie agora: ele não será mostrado de novo.').waitFor(LONG);
      await screenshot(page, `api-tokens-shown-${mode}`);
      await page.getByTestId('api-token-done').click();
      const row = page.locator(`[data-testid="api-token-row"][data-name="${name}"]`);
      await row.waitFor(LONG);
      // The list shows its start, never the token.
      assert.ok(!(await page.content()).includes(token), 'the token is not on the page any more');
      await row.getByText(`${token.slice(0, 12)}…`).waitFor(LONG);
      await row.getByText('Nunca usado').waitFor(LONG);

      // Over plain HTTP: a write token reads and writes as the admin.
      const tags = await withToken(token, 'GET', '/tags');
      assert.equal(tags.status, 200, await tags.text());
      const made = await withToken(token, 'POST', '/tags', { name: `API ${mode} ${stamp}` });
      assert.equal(made.status, 201, await made.text());
      // The last use shows after a reload.
      await page.reload();
      await row.waitFor(LONG);
      await page.waitForFunction(
        (n) => {
          const r = document.querySelector(`[data-testid="api-token-row"][data-name="${n}"]`);
          const cell = r?.querySelector('[data-testid="api-token-last-used"]');
          return Boolean(cell && cell.textContent && !cell.textContent.includes('Nunca'));
        },
        name,
        LONG,
      );

      // A company read-only token: reads, and its POST is refused with the scope's code.
      const companyName = `Server ${mode} ${stamp}`;
      const companyToken = await createInUi(page, 'company', companyName, 'read');
      await page.getByTestId('api-token-done').click();
      await page.getByTestId('api-token-value').waitFor({ state: 'detached', ...LONG });
      await page
        .getByTestId('api-tokens-company')
        .locator(`[data-testid="api-token-row"][data-name="${companyName}"]`)
        .waitFor(LONG);
      assert.equal(
        (await withToken(companyToken, 'GET', '/api-tokens/company')).status,
        403,
        'read scope: no admin route',
      );
      assert.equal((await withToken(companyToken, 'GET', '/tags')).status, 200);
      const refused = await withToken(companyToken, 'POST', '/tags', { name: `No ${mode} ${stamp}` });
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as { error: string }).error, 'ERR_API_TOKEN_SCOPE');
      await screenshot(page, `api-tokens-list-${mode}`);

      // Revoked with a confirmation: it stops at once.
      await row.getByTestId('api-token-revoke').click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revogar' }).click();
      await row.waitFor({ state: 'detached', ...LONG });
      const gone = await withToken(token, 'GET', '/tags');
      assert.equal(gone.status, 401);
      assert.equal(((await gone.json()) as { error: string }).error, 'ERR_API_TOKEN_INVALID');

      if (mode === 'light') {
        // The messages API page explains both kinds of token and links here and to the reference.
        await page.goto('/messages-api');
        const kinds = page.getByTestId('api-token-kinds');
        await kinds.getByText('Dois tipos de token').waitFor(LONG);
        assert.equal(await kinds.getByRole('link', { name: /api\/docs/ }).getAttribute('href'), '/api/docs');
        await kinds.getByTestId('api-tokens-link').click();
        await page.getByTestId('api-tokens-user').waitFor(LONG);
      }
    } finally {
      await page.context().close();
    }
  }
});
