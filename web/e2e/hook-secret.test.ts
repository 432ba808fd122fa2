import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCompany, fileBrowser, screenshot, signInForm } from './browser.js';

const browser = fileBrowser();

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
/** Seed plan 3 (Ouro) has useIntegrations. */
const PLAN_WITH_INTEGRATIONS = 3;

for (const dark of [false, true])
  test(`a webhook integration's signing secret is shown and regenerated on its dialog (${dark ? 'dark' : 'light'}, 500 px)`, async () => {
    const email = await createCompany(`Assinatura${dark ? 'E' : 'C'}`, PLAN_WITH_INTEGRATIONS, stamp);
    const page = await browser.newPage({ width: 500, height: 900 });
    try {
      const token = await signInForm(page, email, dark);
      const call = async <T>(method: string, path: string, data?: unknown) => {
        const res = await page.request.fetch(`/api${path}`, {
          method,
          data,
          headers: { authorization: `Bearer ${token}` },
        });
        assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
        return (await res.json()) as T;
      };
      const name = `Webhook assinado ${stamp}`;
      const made = await call<{ id: number }>('POST', '/queueIntegration', {
        type: 'webhook',
        name,
        urlN8N: 'https://hooks.example.com/recado',
      });
      await page.goto('/queue-integration');
      const row = page.locator('[data-testid="integration-row"]').filter({ hasText: name });
      await row.waitFor(LONG);
      await row.getByRole('button', { name: 'Editar' }).click();
      const dialog = page.getByRole('dialog');
      const box = dialog.getByTestId('hook-secret');
      await box.getByText('X-Recado-Signature').waitFor(LONG);
      await box.getByRole('button', { name: 'Mostrar segredo' }).click();
      const field = box.getByRole('textbox', { name: 'Segredo de assinatura' });
      await field.waitFor(LONG);
      const shown = await field.inputValue();
      const { secret } = await call<{ secret: string }>('GET', `/queueIntegration/${made.id}/secret`);
      assert.equal(shown, secret);
      assert.match(shown, /^whsec_/);
      // Usable at 500 px: the buttons fit the dialog.
      const width = await dialog.evaluate((el) => el.getBoundingClientRect().width);
      const buttons = await box
        .getByRole('button')
        .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().right));
      for (const right of buttons) assert.ok(right <= width + 60, `a button overflows: ${right} > ${width}`);
      await page.mouse.move(1, 1);
      await screenshot(page, `hook-secret-${dark ? 'dark' : 'light'}`);

      await box.getByRole('button', { name: 'Gerar novo segredo' }).click();
      await page
        .locator('#notistack-snackbar')
        .filter({ hasText: 'Novo segredo gerado' })
        .first()
        .waitFor(LONG);
      const fresh = await field.inputValue();
      assert.notEqual(fresh, shown);
      const now = await call<{ secret: string }>('GET', `/queueIntegration/${made.id}/secret`);
      assert.equal(fresh, now.secret);
    } finally {
      await page.context().close();
    }
  });
