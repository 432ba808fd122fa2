import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COMPANY_ADMIN_PASSWORD,
  apiClient,
  apiLogin,
  createCompany,
  fileBrowser,
  signInPage,
} from './browser.js';

/**
 * docs/flows.md#the-editor: the flow list is live. Another admin of the company creates, renames, publishes
 * and deletes flows through the API while the page is open: the rows follow without a reload. Another
 * company's flows never show up.
 */
const browser = fileBrowser();

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
/** Seed plan 3 (Ouro) has every flag, useFlows included. */
const PLAN = 3;

test("flows list: another admin's create, rename, publish and delete appear live; another company's never", async () => {
  const colleague = { name: 'Rui Fluxos', email: `flows-live-${stamp}@e2e.local`, password: 'Admin@1234' };
  const email = await createCompany('FluxosVivos', PLAN, stamp, undefined, [
    { ...colleague, profile: 'admin' },
  ]);
  const otherEmail = await createCompany('FluxosAlheios', PLAN, stamp);
  const other = apiClient(await apiLogin(colleague.email, colleague.password));
  const stranger = apiClient(await apiLogin(otherEmail, COMPANY_ADMIN_PASSWORD));
  const page = await browser.newPage({ width: 1280, height: 720 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const row = (name: string) => page.locator(`[data-testid="flow-row"][data-name="${name}"]`);
  try {
    await signInPage(page, { email, password: COMPANY_ADMIN_PASSWORD });
    await page.goto('/flows');
    await page.getByTestId('flows-list').waitFor(LONG);

    const created = await other.post<{ id: number }>('/flows', { name: `Ao vivo ${stamp}` });
    await row(`Ao vivo ${stamp}`).waitFor(LONG);
    await row(`Ao vivo ${stamp}`).getByText('Rascunho').waitFor(LONG);

    await other.put(`/flows/${created.id}`, { name: `Renomeado ${stamp}` });
    await row(`Renomeado ${stamp}`).waitFor(LONG);
    await row(`Ao vivo ${stamp}`).waitFor({ state: 'detached', ...LONG });

    await other.post(`/flows/${created.id}/publish`);
    await row(`Renomeado ${stamp}`).getByText('Publicado · versão 1').waitFor(LONG);

    // Another company's flow, then one more of ours: ours shows, theirs never reached this page.
    await stranger.post('/flows', { name: `Alheio ${stamp}` });
    await other.post('/flows', { name: `Marcador ${stamp}` });
    await row(`Marcador ${stamp}`).waitFor(LONG);
    assert.equal(await row(`Alheio ${stamp}`).count(), 0);

    await other.delete(`/flows/${created.id}`);
    await row(`Renomeado ${stamp}`).waitFor({ state: 'detached', ...LONG });
    assert.equal(await row(`Alheio ${stamp}`).count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
