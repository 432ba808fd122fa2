import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { COMPANY_ADMIN_PASSWORD, SUPER_USER, createCompany, launch, newPage, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);

/** A small solid-colour PNG (a real image the popover can show). */
function png(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([
    Buffer.from([0]),
    Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat()),
  ]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Signs in through the API on this page's own session and hands the token to the web client. */
async function signIn(page: Page, who: { email: string; password: string }, theme: 'light' | 'dark') {
  await page.goto('/login');
  const res = await page.request.post('/api/auth/login', { data: who });
  assert.equal(res.status(), 200, await res.text());
  const { token } = (await res.json()) as { token: string };
  await page.evaluate(
    ([tk, th]) => {
      localStorage.setItem('token', JSON.stringify(tk));
      localStorage.setItem('preferredTheme', th!);
    },
    [token, theme],
  );
  return token;
}

const dot = (page: Page) => page.getByTestId('announcements-button-badge');
const dotShown = async (page: Page) =>
  !(await dot(page).evaluate((el) => el.classList.contains('MuiBadge-invisible')));

test('announcements: the super user posts one with an image; another company user sees the dot live and it goes once opened', async () => {
  const title = `Manutenção ${stamp}`;
  const adminEmail = await createCompany('Avisos', 5, stamp, 'Ana Avisos');
  const reader = { email: adminEmail, password: COMPANY_ADMIN_PASSWORD };

  // The reader is signed in first, on the tickets screen: what follows must reach them live.
  const user = await newPage(browser);
  await signIn(user, reader, 'light');
  await user.goto('/tickets');
  await user.getByTestId('announcements-button').waitFor();
  assert.equal(await dotShown(user), false, 'no dot before any announcement');

  // The super user posts it on /announcements, with an image.
  const su = await newPage(browser);
  await signIn(su, SUPER_USER, 'light');
  await su.goto('/announcements');
  await su.getByTestId('announcement-add').click();
  await su.getByTestId('announcement-title').fill(title);
  await su.getByTestId('announcement-text').fill('O sistema ficará *fora do ar* hoje das _22h às 23h_.');
  await su.getByTestId('announcement-priority').click();
  await su.getByTestId('announcement-priority-1').click();
  await su
    .getByTestId('announcement-file')
    .setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: png(320, 120, [25, 118, 210]) });
  await su.getByTestId('announcement-media-chip').filter({ hasText: 'banner.png' }).waitFor();
  await su.getByRole('button', { name: /salvar/i }).click();
  const row = su.getByTestId('announcement-row').filter({ hasText: title });
  await row.waitFor();
  await row.getByText('banner.png').waitFor();
  await row.getByText('Alta').waitFor();

  // The reader's dot comes on without a reload; opening the popover shows it and clears the dot.
  await user.waitForFunction(
    () =>
      !document
        .querySelector('[data-testid="announcements-button-badge"]')
        ?.classList.contains('MuiBadge-invisible'),
    undefined,
    { timeout: 10_000 },
  );
  await user.getByTestId('announcements-button').click();
  const card = user.getByTestId('announcement-card').filter({ hasText: title });
  await card.waitFor();
  assert.equal(await card.getAttribute('data-priority'), '1');
  // WhatsApp's formatting, as the ticket chat renders it: no raw asterisks (#29.16).
  assert.equal(await card.locator('strong').innerText(), 'fora do ar');
  assert.equal(await card.locator('em').innerText(), '22h às 23h');
  assert.doesNotMatch(await card.innerText(), /\*fora do ar\*/);
  const borderColor = await card.evaluate((el) => getComputedStyle(el).borderLeftColor);
  assert.match(borderColor, /^rgb\(2[0-9]{2}, [0-9]{1,2}, [0-9]{1,2}\)$/, `red border, got ${borderColor}`);
  const image = card.getByTestId('announcement-image');
  await image.waitFor();
  await user.waitForFunction(
    () =>
      (document.querySelector('[data-testid="announcement-image"]') as HTMLImageElement | null)
        ?.naturalWidth === 320,
  );
  await user.waitForFunction(() =>
    document
      .querySelector('[data-testid="announcements-button-badge"]')
      ?.classList.contains('MuiBadge-invisible'),
  );
  await screenshot(user, 'announcements-popover-light');
  // Seen is kept by the server: after a reload the dot stays off.
  await user.keyboard.press('Escape');
  await user.reload();
  await user.getByTestId('announcements-button').waitFor();
  await user.getByTestId('notifications-button').waitFor();
  assert.equal(await dotShown(user), false, 'the dot stays off after a reload');

  // Web Push is offered from the profile menu (off until asked for), and the service worker installs.
  await user.getByTestId('profile-button').click();
  await user.locator('[data-testid="push-toggle"][data-state="off"]').waitFor();
  await user.keyboard.press('Escape');
  const worker = await user.evaluate(async () => {
    const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    await navigator.serviceWorker.ready;
    return { scope: reg.scope, active: Boolean(reg.active) };
  });
  assert.deepEqual(worker, { scope: new URL('/', user.url()).href, active: true });

  // The reader is not the super user: /announcements refuses and goes to / after a second.
  await user.goto('/announcements');
  await user.getByText('Você não tem permissão para acessar esta página').waitFor();
  await user.waitForURL((url) => url.pathname === '/', { timeout: 5000 });

  await screenshot(su, 'announcements-light');

  // Dark theme and 500 px: the screen and the popover.
  const dark = await newPage(browser);
  await signIn(dark, SUPER_USER, 'dark');
  await dark.goto('/announcements');
  await dark.getByTestId('announcement-row').filter({ hasText: title }).waitFor();
  await screenshot(dark, 'announcements-dark');
  await dark.getByTestId('announcements-button').click();
  await dark
    .getByTestId('announcement-card')
    .filter({ hasText: title })
    .getByTestId('announcement-image')
    .waitFor();
  await screenshot(dark, 'announcements-popover-dark');

  const narrow = await newPage(browser, { width: 500, height: 900 });
  await signIn(narrow, SUPER_USER, 'light');
  await narrow.goto('/announcements');
  await narrow.getByTestId('announcement-row').filter({ hasText: title }).waitFor();
  await screenshot(narrow, 'announcements-500');
  await narrow.getByTestId('announcements-button').click();
  await narrow.getByTestId('announcement-card').filter({ hasText: title }).waitFor();
  await screenshot(narrow, 'announcements-popover-500');
  const overflow = await narrow.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scroll at 500 px (${overflow})`);
});
