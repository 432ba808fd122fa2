import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  apiLogin,
  COMPANY_ADMIN_PASSWORD,
  createCompany,
  DATA_DIR,
  DEMO_ADMIN,
  launch,
  newPage,
  screenshot,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
/** The company signed up below; the password-reset test reuses its admin. */
const signup = {
  company: `E2E Shell ${stamp}`,
  person: 'Rita Fundadora',
  email: `shell-${stamp}@e2e.local`,
  password: 'Shell@123',
};

async function login(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor();
}

async function logout(page: Page) {
  await page.getByTestId('profile-button').click();
  await page.getByTestId('logout').click();
  await page.waitForURL('**/login');
  await page.locator('input[name="email"]').waitFor();
}

/** Let transitions finish and tooltips go before a screenshot. */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(450);
}

const bodyBackground = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test('log in, switch language and theme, log out', async () => {
  const page = await newPage(browser);
  await page.goto('/login');
  await page.getByText('Bem-vindo de volta').waitFor();
  await screenshot(page, 'login');

  await login(page, DEMO_ADMIN.email, DEMO_ADMIN.password);
  // Admins land on their dashboard.
  await page.waitForURL((url) => url.pathname === '/');
  assert.match(await page.getByTestId('greeting').innerText(), /Olá, Ana Admin/);
  const menu = page.getByTestId('side-menu');
  await menu.getByText('Atendimentos').waitFor();
  await menu.getByText('Administração').waitFor();
  await menu.getByText('Recado v6.0.0').waitFor();
  // The DOM follows the route a moment after the URL changes: wait for it rather than read it once.
  await page.locator('[data-testid="menu-dashboard"][aria-current="page"]').waitFor();

  // The active entry follows the route.
  await page.getByTestId('menu-helps').click();
  await page.waitForURL('**/helps');
  await page.locator('[data-testid="menu-helps"][aria-current="page"]').waitFor();
  assert.equal(await page.getByTestId('menu-dashboard').getAttribute('aria-current'), null);
  await page.getByTestId('menu-dashboard').click();
  await page.waitForURL((url) => url.pathname === '/');

  // English, then back to Portuguese; the choice is stored locally and sent to the server.
  const saved = page.waitForResponse((r) => r.url().includes('/api/users/set-language/en'));
  await page.getByTestId('language-button').click();
  await page.getByTestId('language-en').click();
  assert.equal((await saved).status(), 200);
  await page.getByText('Hello, Ana Admin').waitFor();
  await menu.getByText('Tickets', { exact: true }).waitFor();
  await menu.getByText('Administration').waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('language')), 'en');
  await page.getByTestId('language-en').waitFor({ state: 'hidden' });
  await settle(page);
  await screenshot(page, 'shell-light-en');

  // Dark theme.
  const light = await bodyBackground(page);
  await page.getByTestId('theme-toggle').click();
  await page.waitForFunction((before) => getComputedStyle(document.body).backgroundColor !== before, light);
  assert.equal(await page.evaluate(() => localStorage.getItem('preferredTheme')), 'dark');
  assert.notEqual(await bodyBackground(page), light);
  await settle(page);
  await screenshot(page, 'shell-dark-en');

  // The notifications popover opens: waiting tickets (other tests leave some) or its empty state.
  await page.getByTestId('notifications-button').click();
  await page
    .getByTestId('notifications-panel')
    .locator('[data-testid="notification-row"], :text("No notifications yet.")')
    .first()
    .waitFor();
  await page.keyboard.press('Escape');

  await page.getByTestId('language-button').click();
  await page.getByTestId('language-pt').click();
  await page.getByText('Olá, Ana Admin').waitFor();
  await menu.getByText('Atendimentos').waitFor();
  await page.getByTestId('theme-toggle').click();
  assert.equal(await page.evaluate(() => localStorage.getItem('preferredTheme')), 'light');

  // Collapsing the menu leaves icons only, and hides the version.
  await page.getByTestId('menu-toggle').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="side-menu"]')?.getAttribute('data-collapsed') === 'true',
  );
  assert.equal(await menu.getByText('Atendimentos').count(), 0);
  assert.equal(await page.getByTestId('app-version').count(), 0);
  await page.getByTestId('menu-toggle').click();
  await menu.getByText('Atendimentos').waitFor();

  await logout(page);
  await page.goto('/settings');
  await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === '/settings');
  await page.context().close();
});

test('a page opened signed out comes back after the login; ?next= never leaves the site', async () => {
  const page = await newPage(browser);
  await page.goto('/contacts?searchParam=jo%C3%A3o');
  await page.waitForURL(
    (url) => url.pathname === '/login' && url.searchParams.get('next') === '/contacts?searchParam=jo%C3%A3o',
  );
  await page.locator('input[name="email"]').fill(DEMO_ADMIN.email);
  await page.locator('input[name="password"]').fill(DEMO_ADMIN.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((url) => url.pathname === '/contacts' && url.search === '?searchParam=jo%C3%A3o');
  await page.locator('[data-testid="menu-contacts"][aria-current="page"]').waitFor();
  await logout(page);

  // Another site in ?next= is ignored: the login lands on the admin's home (the dashboard), on this origin.
  const origin = new URL(page.url()).origin;
  await page.goto(`/login?next=${encodeURIComponent('//evil.example/contacts')}`);
  await page.locator('input[name="email"]').fill(DEMO_ADMIN.email);
  await page.locator('input[name="password"]').fill(DEMO_ADMIN.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((url) => url.origin === origin && url.pathname === '/');
  await page.context().close();
});

test('the public pages in the dark theme and on a phone', async () => {
  const page = await newPage(browser, { width: 1280, height: 800 });
  await page.addInitScript(() => localStorage.setItem('preferredTheme', 'dark'));
  await page.goto('/signup');
  await page.getByText('Crie sua conta').waitFor();
  await settle(page);
  await screenshot(page, 'signup-dark');
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto('/login');
  await page.getByText('Bem-vindo de volta').waitFor();
  await settle(page);
  await screenshot(page, 'login-narrow-dark');
  await page.context().close();
});

test('a narrow screen gets a temporary drawer', async () => {
  const page = await newPage(browser, { width: 500, height: 860 });
  await login(page, DEMO_ADMIN.email, DEMO_ADMIN.password);
  assert.equal(await page.getByTestId('menu-tickets').isVisible(), false);
  await settle(page);
  await screenshot(page, 'shell-narrow');
  await page.getByTestId('menu-toggle').click();
  await page.getByTestId('menu-tickets').waitFor({ state: 'visible' });
  await settle(page);
  await screenshot(page, 'shell-narrow-menu');
  await page.getByTestId('menu-tickets').click();
  await page.waitForURL('**/tickets');
  await page.getByTestId('menu-tickets').waitFor({ state: 'hidden' });
  await page.context().close();
});

test('between 600 and 1200 px the menu starts collapsed to icons', async () => {
  const page = await newPage(browser, { width: 1000, height: 760 });
  await login(page, DEMO_ADMIN.email, DEMO_ADMIN.password);
  const menu = page.getByTestId('side-menu');
  assert.equal(await menu.getAttribute('data-collapsed'), 'true');
  assert.equal(await menu.getByText('Atendimentos').count(), 0);
  await page.getByTestId('menu-tickets').hover();
  await page.getByRole('tooltip', { name: 'Atendimentos' }).waitFor();
  await screenshot(page, 'shell-collapsed');
  await page.getByTestId('menu-toggle').click();
  await menu.getByText('Atendimentos').waitFor();
  assert.equal(await menu.getAttribute('data-collapsed'), 'false');
  await page.context().close();
});

test('sign up a company: signed in at once as the person named, on the chosen plan, and welcomed until done', async () => {
  const page = await newPage(browser);
  await page.goto('/signup');
  await page.getByText('Crie sua conta').waitFor();
  // The trial plan is chosen by default.
  await page.getByTestId('signup-plan').getByText('Teste grátis').waitFor();
  await screenshot(page, 'signup');

  // Field errors are translated.
  await page.getByTestId('signup-submit').click();
  await page.getByText('Obrigatório').first().waitFor();
  await page.locator('input[name="document"]').fill('11111111111');
  await page.getByTestId('signup-submit').click();
  await page.getByText('CPF/CNPJ inválido').waitFor();

  await page.locator('input[name="name"]').fill(signup.company);
  await page.locator('input[name="adminName"]').fill(signup.person);
  await page.locator('input[name="email"]').fill(signup.email);
  await page.locator('input[name="document"]').fill('52998224725');
  assert.equal(await page.locator('input[name="document"]').inputValue(), '529.982.247-25');
  await page.locator('input[name="phone"]').fill('11987654321');
  assert.equal(await page.locator('input[name="phone"]').inputValue(), '(11) 98765-4321');
  await page.locator('input[name="password"]').fill(signup.password);
  // Another plan than the trial default: it is kept.
  await page.getByTestId('signup-plan').click();
  await page.getByRole('option', { name: /Ouro/ }).click();
  await page.getByTestId('signup-plan').getByText('Ouro').waitFor();
  await page.setViewportSize({ width: 500, height: 1000 });
  await settle(page);
  await screenshot(page, 'signup-narrow');
  const created = page.waitForResponse((r) => r.url().endsWith('/api/companies/cadastro'));
  await page.getByTestId('signup-submit').click();
  const res = await created;
  assert.equal(res.status(), 201);
  const sent = JSON.parse(res.request().postData() ?? '{}') as Record<string, unknown>;
  assert.equal(sent.document, '52998224725');
  assert.equal(sent.phone, '11987654321');
  assert.equal(sent.planId, 3);
  assert.equal(sent.adminName, signup.person);
  // Signed in at once (no login page), greeted by the person's own name, on the chosen plan.
  await page.getByText('Conta criada!').waitFor();
  await page.getByTestId('greeting').waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  assert.match(await page.getByTestId('greeting').innerText(), /Olá, Rita/);
  const me = await page.evaluate(async () => {
    const token = JSON.parse(localStorage.getItem('token') ?? '""') as string;
    const res = await fetch('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
    return (await res.json()) as { name: string; company: { name: string; planId: number } };
  });
  assert.equal(me.name, signup.person);
  assert.equal(me.company.name, signup.company);
  assert.equal(me.company.planId, 3);
  // The welcome walkthrough: it stays across a reload (on the step reached) until finished.
  const welcome = page.getByTestId('welcome-walkthrough');
  await welcome.waitFor();
  await page.getByTestId('welcome-next').click();
  await welcome.getByText('Tudo em um só lugar').waitFor();
  await settle(page);
  await screenshot(page, 'welcome-walkthrough-narrow');
  // The reload comes back to the same step (here in the dark theme).
  await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
  await page.reload();
  await welcome.getByText('Tudo em um só lugar').waitFor();
  await settle(page);
  await screenshot(page, 'welcome-walkthrough-narrow-dark');
  await page.evaluate(() => localStorage.setItem('preferredTheme', 'light'));
  await page.getByTestId('welcome-next').click();
  // "Começar" opens the first task's screen: connections.
  await page.getByTestId('welcome-start').click();
  await welcome.waitFor({ state: 'detached' });
  await page.waitForURL('**/connections');
  await page.reload();
  await page.getByTestId('greeting').waitFor();
  assert.equal(await welcome.count(), 0, 'finished: it does not come back');
  await page.setViewportSize({ width: 1366, height: 800 });
  // A trial company sees the premium button.
  await page.getByTestId('premium-button').click();
  await page.getByText('Recado Premium').waitFor();
  await settle(page);
  await screenshot(page, 'premium-dialog');
  await page.keyboard.press('Escape');

  // The company setting sideMenuOpen=disabled starts the menu collapsed even on a wide screen.
  const status = await page.evaluate(async () => {
    const token = JSON.parse(localStorage.getItem('token') ?? '""') as string;
    const res = await fetch('/api/settings/sideMenuOpen', {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'disabled' }),
    });
    return res.status;
  });
  assert.equal(status, 200);
  await page.reload();
  await page.getByTestId('greeting').waitFor();
  assert.equal(await page.getByTestId('side-menu').getAttribute('data-collapsed'), 'true');
  await logout(page);
  await page.context().close();
});

/** The newest outbox mail to `to`, waiting for it to be written. */
async function latestMail(to: string, after: number): Promise<string> {
  const dir = join(DATA_DIR, 'outbox');
  const deadline = Date.now() + 10_000;
  for (;;) {
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.eml') && f.includes(to));
    } catch {
      /* the folder appears with the first mail */
    }
    const fresh = files.sort().filter((f) => f > new Date(after).toISOString().replace(/[:.]/g, '-'));
    if (fresh.length) return readFileSync(join(dir, fresh.at(-1)!), 'utf8');
    if (Date.now() > deadline) throw new Error(`no mail to ${to} in ${dir}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('reset a password with the code from the mail', async () => {
  const page = await newPage(browser);
  await page.goto('/forgetpsw');
  await page.getByText('Redefinir senha').first().waitFor();
  await screenshot(page, 'forgot-password');

  await page.locator('input[name="email"]').fill(`nobody-${stamp}@e2e.local`);
  await page.getByTestId('forgot-send').click();
  await page.getByText('E-mail não encontrado.').waitFor();

  const asked = Date.now() - 1000;
  await page.locator('input[name="email"]').fill(signup.email);
  await page.getByTestId('forgot-send').click();
  await page.locator('input[name="token"]').waitFor();
  const mail = await latestMail(signup.email, asked);
  const code = /\b(\d{6})\b/.exec(mail.split('\n\n').slice(1).join('\n\n'))?.[1];
  assert.ok(code, 'the mail holds a 6-digit code');

  // The policy and the confirmation are checked before anything is sent.
  await page.locator('input[name="token"]').fill(code);
  await page.locator('input[name="password"]').fill('weakpass');
  await page.locator('input[name="confirm"]').fill('different');
  await page.getByTestId('forgot-reset').click();
  await page.getByText('As senhas não conferem.').waitFor();
  await screenshot(page, 'forgot-password-step2');

  const newPassword = 'Nova@2026x';
  await page.locator('input[name="password"]').fill(newPassword);
  await page.locator('input[name="confirm"]').fill(newPassword);
  const reset = page.waitForResponse((r) => r.url().endsWith('/api/resetpasswords'));
  await page.getByTestId('forgot-reset').click();
  const res = await reset;
  assert.equal(res.status(), 200);
  assert.deepEqual(JSON.parse(res.request().postData() ?? '{}'), {
    email: signup.email,
    token: code,
    password: newPassword,
  });
  await page.waitForURL('**/login');
  await page.getByText('Senha redefinida!').waitFor();

  await login(page, signup.email, newPassword);
  assert.match(await page.getByTestId('greeting').innerText(), /Rita Fundadora/);

  // The profile dialog edits the user's own name.
  await page.getByTestId('profile-button').click();
  await page.getByTestId('profile-open').click();
  const name = page.locator('input[name="name"]');
  assert.match(await name.inputValue(), /Rita Fundadora/);
  await name.fill('Sofia Shell');
  await settle(page);
  await screenshot(page, 'profile-dialog');
  await page.getByTestId('profile-save').click();
  await page.getByText('Olá, Sofia Shell').waitFor();
  await page.context().close();
});

test('signed out by a login on another device: the login page says why (live, and when the tab comes back)', async () => {
  const email = await createCompany('Outro', 5, `${stamp}x`);
  for (const [theme, width] of [
    ['light', 1280],
    ['dark', 500],
  ] as const) {
    const page = await newPage(browser, { width, height: 860 });
    if (theme === 'dark') {
      await page.goto('/login');
      await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    }
    await login(page, email, COMPANY_ADMIN_PASSWORD);
    // Live: the same user signs in elsewhere while this tab is open.
    await apiLogin(email, COMPANY_ADMIN_PASSWORD);
    const reason = page.getByTestId('signed-out-reason');
    await reason.waitFor({ timeout: 15_000 });
    assert.equal(
      await reason.innerText(),
      'Sua sessão foi encerrada porque você entrou em outro dispositivo.',
    );
    await settle(page);
    await screenshot(page, `login-session-replaced-${theme}`);
    // Said once: a reload of the login page no longer shows it.
    await page.reload();
    await page.locator('input[name="email"]').waitFor();
    assert.equal(await reason.count(), 0);
    await page.context().close();
  }

  // Away meanwhile (no socket to hear it): the next request of the tab answers why.
  const page = await newPage(browser);
  await login(page, email, COMPANY_ADMIN_PASSWORD);
  await page.goto('about:blank');
  await apiLogin(email, COMPANY_ADMIN_PASSWORD);
  await page.goto('/contacts');
  await page
    .getByTestId('signed-out-reason')
    .filter({ hasText: 'Sua sessão foi encerrada porque você entrou em outro dispositivo.' })
    .waitFor({ timeout: 15_000 });
  await page.context().close();
});
