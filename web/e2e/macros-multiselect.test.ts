import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, pageApi, quietSimulator, screenshot, signInPage, until } from './browser.js';

// #32.1 Several tickets selected in the list ("Selecionar"), one macro run on them from the selection bar:
// both get the tag (shown on their rows) and the priority; the toast counts the outcome. Then the command
// bar offers the macros on the selection. Light 1366 px and dark 500 px.
const browser = fileBrowser();

const stamp = Date.now().toString(36);

for (const [theme, width] of [
  ['light', 1366],
  ['dark', 500],
] as const) {
  test(`macro on selected tickets (${theme}, ${width} px)`, async () => {
    const page = await browser.newPage({ width });
    try {
      const token = await signInPage(page, undefined, { preferredTheme: theme });
      const http = pageApi(page, token);
      const simulator = await quietSimulator(http);
      const prefix = `Multi ${theme} ${stamp}`;
      const names = [`${prefix} A`, `${prefix} B`, `${prefix} C`];
      for (const [i, name] of names.entries())
        await http.post(`/simulator/${simulator.id}/inbound`, {
          from: `55119777${theme === 'light' ? '1' : '2'}${i}${String(Date.now() % 1000).padStart(3, '0')}`,
          name,
          body: 'Olá',
        });
      type Found = { tickets: { id: number; uuid: string; contact: { name: string } }[] };
      const found = await until(
        () => http.get<Found>(`/tickets?showAll=true&searchParam=${encodeURIComponent(prefix)}`),
        (f) => names.every((n) => f.tickets.some((x) => x.contact.name === n)),
        'the three inbound tickets',
      );
      type Row = Found['tickets'][number];
      const [a, b, c] = names.map((n) => found.tickets.find((x) => x.contact.name === n)!) as [Row, Row, Row];
      const tag = await http.post<{ id: number; name: string }>('/tags', { name: `Lote ${theme} ${stamp}` });
      const macro = await http.post<{ id: number; name: string }>('/macros', {
        name: `Marcar lote ${theme} ${stamp}`,
        actions: [
          { type: 'add_tags', tagIds: [tag.id] },
          { type: 'set_priority', priority: 3 },
        ],
      });

      // The search tab lists the three; "Selecionar" turns on the checkboxes.
      await page.goto('/tickets');
      await page.getByRole('tab', { name: 'Busca' }).click();
      await page.getByTestId('ticket-search').locator('input').fill(prefix);
      const list = page.getByTestId('ticket-list-search');
      const row = (id: number) => list.locator(`[data-testid="ticket-row"][data-id="${id}"]`);
      for (const x of [a, b, c]) await row(x.id).waitFor();
      await page.getByTestId('select-toggle').click();
      const bar = page.getByTestId('selection-bar');
      await bar.getByText('0 selecionados').waitFor();

      // A click selects instead of opening; a second click unselects.
      await row(a.id).getByTestId('ticket-open').click();
      await row(b.id).getByTestId('ticket-open').click();
      await row(c.id).getByTestId('ticket-open').click();
      await bar.getByText('3 selecionados').waitFor();
      await row(c.id).getByTestId('ticket-open').click();
      await bar.getByText('2 selecionados').waitFor();
      await list.locator(`[data-testid="ticket-row"][data-id="${c.id}"][data-picked="false"]`).waitFor();
      assert.ok(!page.url().includes(a.uuid), 'selecting does not open the chat');
      await screenshot(page, `multiselect-${theme}-${width}`);

      // Run the macro on the two from the bar: a toast with the count, both rows tagged.
      await bar.getByTestId('selection-macros').click();
      await page.locator(`[data-testid="macro-option"][data-name="${macro.name}"]`).click();
      await page.getByText(`Macro "${macro.name}": 2 concluídos, 0 com erro`).waitFor();
      for (const x of [a, b])
        await row(x.id).getByTestId('ticket-tag').filter({ hasText: tag.name }).waitFor();
      await row(a.id).locator('[data-testid="ticket-priority"][data-priority="urgent"]').waitFor();
      assert.equal(await row(c.id).getByTestId('ticket-tag').filter({ hasText: tag.name }).count(), 0);
      await bar.getByText('0 selecionados').waitFor();
      for (const x of [a, b, c]) {
        const t = await http.get<{ tags: { id: number }[]; priority?: string }>(`/tickets/${x.id}`);
        assert.equal(
          t.tags.some((y) => y.id === tag.id),
          x !== c,
          `ticket ${x.contact.name} tagged only if selected`,
        );
      }
      await screenshot(page, `multiselect-ran-${theme}-${width}`);

      // Select all visible, then the command bar offers the macros on them.
      await bar.getByTestId('selection-all').click();
      await bar.getByText('3 selecionados').waitFor();
      await page.keyboard.press('Control+k');
      await page.getByTestId('command-bar-input').waitFor();
      await page.keyboard.type(macro.name);
      await page
        .locator(`[data-testid="command-bar-item"][data-key="macro-selected-${macro.id}"]`)
        .getByText(`${macro.name} em 3 selecionados`)
        .waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('command-bar-input').waitFor({ state: 'detached' });

      // Clear, and leaving selection mode brings back the opening click.
      await bar.getByTestId('selection-clear').click();
      await bar.getByText('0 selecionados').waitFor();
      await page.getByTestId('select-toggle').click();
      await bar.waitFor({ state: 'detached' });
      await row(a.id).getByTestId('ticket-open').click();
      await page.waitForURL(new RegExp(`/tickets/${a.uuid}$`));
    } finally {
      await page.close();
    }
  });
}
