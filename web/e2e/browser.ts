import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { after, before } from 'node:test';
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

/**
 * One Chromium for the calling test file: launched before its tests and closed after them (node:test's
 * `before`/`after`); `newPage(opts)` opens a page in a context of its own on it (see newPage).
 */
export function fileBrowser(extraArgs: string[] = []) {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launch(extraArgs);
  });
  after(async () => {
    await browser?.close();
  });
  return {
    newPage(opts?: Parameters<typeof newPage>[1]): Promise<Page> {
      assert.ok(browser, 'the file browser is launched in before()');
      return newPage(browser, opts);
    },
  };
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

/** A user `createCompany` adds to the company it makes (through the company admin's API session). */
export interface FixtureUser {
  name: string;
  email: string;
  password: string;
  profile: 'admin' | 'user';
  queueIds?: number[];
}

/**
 * A company of the calling test file's own, so that nothing depends on other files' data: `{name} {stamp}`
 * on `planId`, made by the super user, with an admin `{name}-{stamp}@e2e.local` (COMPANY_ADMIN_PASSWORD)
 * and, when given, more `users` made by that admin. Answers the admin's e-mail.
 */
export async function createCompany(
  name: string,
  planId: number,
  stamp: string,
  adminName = `${name} Admin`,
  users: FixtureUser[] = [],
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
  if (users.length) {
    const admin = apiClient(await apiLogin(email, COMPANY_ADMIN_PASSWORD));
    for (const user of users) await admin.post('/users', user);
  }
  return email;
}

/**
 * createCompany, then its admin's API session (plain HTTP): answers the admin's e-mail and `admin`, an
 * apiClient. A browser signed in as the same admin must keep its own token (signInPage/signInForm).
 */
export async function companyAdmin(...args: Parameters<typeof createCompany>) {
  const email = await createCompany(...args);
  return { email, admin: apiClient(await apiLogin(email, COMPANY_ADMIN_PASSWORD)) };
}

/** The API as `token` sees it over plain HTTP (no browser): set-up work; every call must succeed. */
export function apiClient(token: string) {
  const call = async <T>(method: string, path: string, data?: unknown): Promise<T> => {
    const res = await fetch(`${BASE_URL}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(data === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: data === undefined ? undefined : JSON.stringify(data),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
  return {
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, data?: unknown) => call<T>('POST', path, data ?? {}),
    put: <T>(path: string, data: unknown) => call<T>('PUT', path, data),
    delete: <T>(path: string) => call<T>('DELETE', path),
  };
}

/**
 * Reads until `ok` holds (API state the page has no locator for), failing with the last value after `ms`.
 * Never a fixed sleep: it returns the moment the condition is met.
 */
export async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      assert.fail(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Signs `who` in through the API and hands the session to the web client (one shared session: a second
 * login would end the first). `prefs` are extra localStorage entries (e.g. `{ preferredTheme: 'dark' }`).
 * Answers the token.
 */
export async function signInPage(
  page: Page,
  who: { email: string; password: string } = DEMO_ADMIN,
  prefs: Record<string, string> = {},
): Promise<string> {
  const res = await page.request.post('/api/auth/login', { data: who });
  assert.equal(res.status(), 200, await res.text());
  const { token, user } = (await res.json()) as { token: string; user: { id: number; companyId: number } };
  await page.goto('/login');
  await page.evaluate(
    ({ token, user, prefs }) => {
      localStorage.setItem('token', JSON.stringify(token));
      localStorage.setItem('companyId', String(user.companyId));
      localStorage.setItem('userId', String(user.id));
      for (const [k, v] of Object.entries(prefs)) localStorage.setItem(k, v);
    },
    { token, user, prefs },
  );
  return token;
}

/**
 * Signs in through the login page itself (typing the e-mail and a createCompany admin's password), in the
 * light or dark theme, and waits for the greeting; answers the token the client stored.
 */
export async function signInForm(
  page: Page,
  email: string,
  dark = false,
  password = COMPANY_ADMIN_PASSWORD,
): Promise<string> {
  await page.goto('/login');
  await page.evaluate((d) => localStorage.setItem('preferredTheme', d ? 'dark' : 'light'), dark);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor({ timeout: 30_000 });
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

/** The API as `token` sees it, through the page's request context; every call must succeed. */
export function pageApi(page: Page, token: string) {
  const call = async <T>(method: string, path: string, data?: unknown): Promise<T> => {
    const res = await page.request.fetch(`/api${path}`, {
      method,
      data,
      headers: { authorization: `Bearer ${token}` },
    });
    const ok = method === 'GET' ? res.status() === 200 : res.ok();
    assert.ok(ok, `${method} ${path}: ${res.status()} ${await res.text()}`);
    return (await res.json().catch(() => ({}))) as T;
  };
  return {
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, data?: unknown) => call<T>('POST', path, data),
    put: <T>(path: string, data: unknown = {}) => call<T>('PUT', path, data),
    delete: <T>(path: string) => call<T>('DELETE', path),
    send: <T>(method: 'post' | 'put', path: string, data: unknown) =>
      call<T>(method.toUpperCase(), path, data),
  };
}
export type PageApi = ReturnType<typeof pageApi>;

/** The queue-less simulator connection that tests about tickets use (see quietSimulator). */
export const QUIET_SIMULATOR = 'Simulador direto';

/**
 * A simulator connection of the signed-in company without queues or greeting, made once: the demo's own
 * "Simulador" answers a customer's first message with its greeting and menu of departments (docs/bot.md),
 * which tests about the ticket list, the chat or the dashboard would read as the conversation's last word.
 */
export async function quietSimulator(http: PageApi): Promise<{ id: number; name: string }> {
  type Connection = { id: number; name: string };
  let list = await http.get<Connection[]>('/whatsapp');
  if (!list.some((w) => w.name === QUIET_SIMULATOR)) {
    await http.post('/whatsapp', { name: QUIET_SIMULATOR, channel: 'simulator' });
    list = await http.get<Connection[]>('/whatsapp');
  }
  return list.find((w) => w.name === QUIET_SIMULATOR)!;
}

/** A small valid PNG (a colour gradient), written to a temporary file; answers its path. */
export function writePng(width = 96, height = 64): string {
  const crcTable = Array.from({ length: 256 }, (_v, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = y * (width * 3 + 1) + 1 + x * 3;
      rows[at] = 20;
      rows[at + 1] = 120 + Math.round((x / width) * 100);
      rows[at + 2] = 80 + Math.round((y / height) * 170);
    }
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  const path = join(tmpdir(), `recado-e2e-${Date.now()}-${Math.random().toString(36).slice(2)}.png`);
  writeFileSync(path, png);
  return path;
}

/**
 * Types a day (`YYYY-MM-DD`) or a day and time (`YYYY-MM-DDTHH:mm`) into a DateField (web/src/components/
 * DateField.tsx) the way a person does, in the Portuguese order the tests' interface uses (dd/mm/yyyy hh:mm):
 * focus the field, clear it, type the digits.
 */
export async function typeDate(page: Page, testId: string, value: string): Promise<void> {
  const [day, time] = value.split('T');
  const [y, m, d] = day!.split('-');
  await page.getByTestId(testId).getByRole('group').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(`${d}${m}${y}${time ? time.replace(':', '') : ''}`);
}
