import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:8080';
export const DATA_DIR = process.env.E2E_DATA_DIR ?? './data';
export const SCREENSHOTS = join(import.meta.dirname, 'screenshots');

export const DEMO_ADMIN = { email: 'admin@demo.local', password: 'Demo@1234' };
export const DEMO_USER = { email: 'atendente@demo.local', password: 'Demo@1234' };
export const SUPER_USER = { email: 'super@e2e.local', password: 'Super@12345' };

/** Chromium's fake microphone and camera (a tone), granted without asking: for the audio recorder. */
export const FAKE_MEDIA = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'];

/** Debian's Chromium, headless, with the flags this closed network needs (and any `extraArgs`). */
export async function launch(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

export async function newPage(
  browser: Browser,
  opts: { width?: number; height?: number; locale?: string } = {},
): Promise<Page> {
  const context = await browser.newContext({
    baseURL: BASE_URL,
    viewport: { width: opts.width ?? 1366, height: opts.height ?? 800 },
    locale: opts.locale ?? 'pt-BR',
  });
  return context.newPage();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
