import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { companyAdmin, fileBrowser, screenshot, signInForm } from './browser.js';

const browser = fileBrowser();
const stamp = Date.now().toString(36).slice(-5);
const LONG = { timeout: 30_000 };
const node = (page: Page, id: string) => page.locator(`[data-testid="flow-node"][data-id="${id}"]`);

// #35.2 The consent block in the flow editor: its name, exits and panel in Portuguese, light and dark.
for (const dark of [false, true]) {
  test(`the consent block in the flow editor (${dark ? 'dark' : 'light'})`, async () => {
    // Seed plan 3 (Ouro) has useFlows.
    const { email, admin } = await companyAdmin(dark ? 'FlxConsE' : 'FlxConsC', 3, stamp, 'Flow Admin');
    const flow = await admin.post<{ id: number }>('/flows', {
      name: `Consentimento ${stamp}`,
      graph: {
        nodes: [
          { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
          { id: 'lgpd', type: 'consent', position: { x: 300, y: 0 }, data: {} },
        ],
        edges: [{ id: 'e1', source: 'start', sourceHandle: 'next', target: 'lgpd' }],
      },
    });
    const page = await browser.newPage({ width: 1280, height: 720 });
    try {
      await signInForm(page, email, dark);
      await page.goto(`/flows/${flow.id}`);
      const block = node(page, 'lgpd');
      await block.getByText('Consentimento (LGPD)').waitFor(LONG);
      await block.locator('[data-testid="flow-exit"][data-exit="accepted"]').waitFor(LONG);
      await block.getByText('Aceitou').waitFor(LONG);
      await block.getByText('Recusou').waitFor(LONG);
      await block.locator('[data-testid="flow-node-name"]').click();
      const panel = page.getByTestId('flow-node-panel');
      await panel.getByText('Texto da pergunta').first().waitFor(LONG);
      await panel.locator('[data-field="timeoutMinutes"]').waitFor(LONG);
      await page.mouse.move(1, 1);
      await screenshot(page, `flow-consent-${dark ? 'dark' : 'light'}`);
    } finally {
      await page.close();
    }
  });
}
