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

/** The password of the admins createCompany makes. */
export const COMPANY_ADMIN_PASSWORD = 'Admin@123';

/** Signs in through the API (not the browser); answers the token. */
export async function apiLogin(email: string, password: string): Promise<string> {
  const res = await fetch(`${BASE_URL}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/**
 * A company of the calling test file's own, so that nothing depends on other files' data: `{name} {stamp}`
 * on `planId`, made by the super user, with an admin `{name}-{stamp}@e2e.local` (COMPANY_ADMIN_PASSWORD).
 * Answers the admin's e-mail.
 */
export async function createCompany(
  name: string,
  planId: number,
  stamp: string,
  adminName = `${name} Admin`,
): Promise<string> {
  const su = await apiLogin(SUPER_USER.email, SUPER_USER.password);
  const email = `${name.toLowerCase()}-${stamp}@e2e.local`;
  const res = await fetch(`${BASE_URL}/api/companies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${su}` },
    body: JSON.stringify({
      name: `${name} ${stamp}`,
      email,
      planId,
      dueDate: '2099-01-01',
      adminName,
      adminPassword: COMPANY_ADMIN_PASSWORD,
    }),
  });
  if (res.status !== 201) throw new Error(`company ${name}: ${res.status} ${await res.text()}`);
  return email;
}
