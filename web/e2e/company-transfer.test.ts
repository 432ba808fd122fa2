import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  COMPANY_ADMIN_PASSWORD,
  createCompany,
  fileBrowser,
  screenshot,
  signInPage,
  SUPER_USER,
} from './browser.js';

// #35.4 A company admin exports the company from Settings → Privacy (progress, then the download); the super
// user imports that archive from Settings → Companies and reads the report; a cut archive is refused with
// the file named. At 500 px, light and dark, in Portuguese (and the import dialog's title in English and Spanish).
const browser = fileBrowser();

for (const dark of [false, true]) {
  const theme = dark ? 'dark' : 'light';
  test(`company export (admin) and import (super user), ${theme}, 500 px`, async () => {
    const stamp = `${Date.now().toString(36)}${theme}`;
    const email = await createCompany('Mudanca', 5, stamp);
    const page = await browser.newPage({ width: 500, height: 900 });
    try {
      await signInPage(page, { email, password: COMPANY_ADMIN_PASSWORD }, { preferredTheme: theme });
      await page.goto('/settings?tab=privacy');
      await page.getByTestId('company-export').getByText('Exportar os dados da empresa').waitFor();
      await page.getByTestId('company-export-start').click();
      await page.getByTestId('company-export-done').waitFor({ timeout: 60_000 });
      await page.getByTestId('company-export').scrollIntoViewIfNeeded();
      await screenshot(page, `company-export-${theme}`);
      const downloading = page.waitForEvent('download');
      await page.getByTestId('company-export-download').click();
      const download = await downloading;
      const file = join(tmpdir(), `recado-e2e-${stamp}.tar`);
      await download.saveAs(file);
      assert.match(download.suggestedFilename(), /\.tar$/);
      assert.equal(readFileSync(file).subarray(0, 13).toString(), 'manifest.json');

      const su = await browser.newPage({ width: 500, height: 900 });
      try {
        await signInPage(su, SUPER_USER, { preferredTheme: theme });
        await su.goto('/settings?tab=companies');
        await su.getByTestId('company-import-open').click();
        await su.getByTestId('company-import-file').setInputFiles(file);
        await su.getByTestId('company-import-start').click();
        const report = su.getByTestId('company-import-report');
        await report.waitFor({ timeout: 60_000 });
        assert.match((await report.textContent()) ?? '', /criada/);
        await screenshot(su, `company-import-${theme}`);

        // A cut archive: refused, nothing imported, the file named.
        const cut = join(tmpdir(), `recado-e2e-${stamp}-cut.tar`);
        const bytes = readFileSync(file);
        (await import('node:fs')).writeFileSync(cut, bytes.subarray(0, Math.floor(statSync(file).size / 2)));
        await su.getByTestId('company-import-file').setInputFiles(cut);
        await su.getByTestId('company-import-start').click();
        const refused = su.getByTestId('company-import-refused');
        await refused.waitFor({ timeout: 60_000 });
        assert.match((await refused.textContent()) ?? '', /incompleto/);
        if (!dark) await screenshot(su, 'company-import-refused-light');
      } finally {
        await su.close();
      }
    } finally {
      await page.close();
    }
  });
}

test('the import dialog speaks English and Spanish', async () => {
  for (const [lang, title] of [
    ['en', 'Import a company archive'],
    ['es', 'Importar un archivo de empresa'],
  ] as const) {
    const page = await browser.newPage({ width: 500, height: 900 });
    try {
      await signInPage(page, SUPER_USER, { language: lang });
      await page.goto('/settings?tab=companies');
      await page.getByTestId('company-import-open').click();
      await page.getByRole('dialog').getByText(title).first().waitFor();
    } finally {
      await page.close();
    }
  }
});
