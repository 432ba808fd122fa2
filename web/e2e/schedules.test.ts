import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  DEMO_ADMIN,
  launch,
  newPage,
  PageApi,
  pageApi,
  quietSimulator,
  screenshot,
  signInPage,
  writePng,
  typeDate,
  until,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

interface PhoneMessage {
  fromMe: boolean;
  body: string;
  mediaType: string | null;
}

/** A simulator connection of the demo company without the demo's menu. */
const simulatorOf = (http: PageApi) => quietSimulator(http);

/** A fresh Brazilian mobile number (11 digits; stored with 55). */
const freshNumber = (prefix: string) => `119${prefix}${String(Date.now()).slice(-6)}`;

const pad = (n: number) => String(n).padStart(2, '0');
const localInput = (d: Date) =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

test('schedules: a message scheduled from /schedules?contactId reaches the simulator customer', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);
    // A schedule goes out on the company's default connection: the demo's simulator.
    const simulator = (await http.get<{ id: number; isDefault: boolean }[]>('/whatsapp')).find(
      (w) => w.isDefault,
    )!;
    const number = freshNumber('71');
    const contact = await http.post<{ id: number; number: string }>('/contacts', {
      name: `Agenda E2E ${number.slice(-4)}`,
      number,
    });
    const body = `Lembrete agendado ${Date.now().toString(36)}`;

    // The dialog opens for the contact of ?contactId=, one hour ahead by default.
    await page.goto(`/schedules?contactId=${contact.id}`);
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.waitFor();
    await until(
      () => page.getByTestId('schedule-contact').locator('input').inputValue(),
      (v) => v.includes('Agenda E2E'),
      'the contact of ?contactId= in the dialog',
    );
    // The field writes the app's dd/mm/yyyy hh:mm (#29.16); read back as a local time.
    const shown = (await page.getByTestId('schedule-send-at').getByRole('group').innerText()).replace(
      /\D+/g,
      ' ',
    );
    const [d, mo, y, h, mi] = shown.trim().split(' ').map(Number);
    const defaultAt = new Date(y!, mo! - 1, d!, h!, mi!).getTime();
    assert.ok(Math.abs(defaultAt - (Date.now() + 3600_000)) < 5 * 60_000, 'one hour from now by default');
    // Too short a text is refused on the form.
    await page.getByTestId('schedule-body').fill('Oi');
    await page.getByTestId('schedule-save').click();
    await dialog.getByText(/curta/).waitFor();

    // The next whole minute (at least 10 s away): the input has minute precision.
    let when = new Date(Math.ceil((Date.now() + 10_000) / 60_000) * 60_000);
    if (when.getTime() - Date.now() < 10_000) when = new Date(when.getTime() + 60_000);
    await page.getByTestId('schedule-body').fill(body);
    await typeDate(page, 'schedule-send-at', localInput(when));
    await page.getByTestId('schedule-save').click();
    await dialog.waitFor({ state: 'detached' });
    assert.ok(!page.url().includes('contactId'), 'the query parameter is consumed');

    // On the calendar: time and contact name, pending.
    const entry = page
      .locator('[data-testid="schedule-entry"]')
      .filter({ hasText: `Agenda E2E ${number.slice(-4)}` });
    await entry.first().waitFor();
    assert.equal(await entry.first().getAttribute('data-status'), 'PENDENTE');
    await page.mouse.move(0, 0);
    await screenshot(page, 'schedules-month');

    // The customer's phone receives it at the due time (the server's poller runs every second).
    const canonical = contact.number;
    await until(
      () => http.get<PhoneMessage[]>(`/simulator/${simulator.id}/conversations/${canonical}`),
      (list) => list.some((m) => m.fromMe && m.body.includes(body)),
      'the scheduled message on the customer phone',
      Math.max(0, when.getTime() - Date.now()) + 90_000,
    );
    // And the calendar shows it sent, live.
    await page
      .locator('[data-testid="schedule-entry"][data-status="ENVIADA"]')
      .filter({ hasText: 'Agenda E2E' })
      .first()
      .waitFor({ timeout: 30_000 });

    // A sent schedule opens read-only.
    await entry.first().click();
    await dialog.waitFor();
    assert.equal(await page.getByTestId('schedule-save').count(), 0, 'no save for a sent schedule');
    assert.ok(await page.getByTestId('schedule-body').isDisabled());
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // The week and day views list it too.
    await page.getByRole('button', { name: /Semana/ }).click();
    await entry.first().waitFor();
    await page.getByRole('button', { name: /^Dia$/ }).click();
    await entry.first().waitFor();
    await screenshot(page, 'schedules-day');
  } finally {
    await page.context().close();
  }
});

test('schedules: dark theme calendar and a new schedule from a day cell', async () => {
  const page = await newPage(browser);
  try {
    await signInPage(page, DEMO_ADMIN, { preferredTheme: 'dark' });
    await page.goto('/schedules');
    await page.getByTestId('calendar').waitFor();
    await page.getByRole('button', { name: /Semana/ }).click();
    await page.mouse.move(0, 0);
    await screenshot(page, 'schedules-week-dark');
    await page.getByRole('button', { name: /Mês/ }).click();
    await page.getByTestId('calendar-day').nth(20).click();
    await page.getByTestId('schedule-dialog').waitFor();
    await screenshot(page, 'schedules-dialog-dark');
  } finally {
    await page.context().close();
  }
});

test('quick messages: created on its screen with an image, chosen with "/" in a ticket, sent with the image', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);
    const simulator = await simulatorOf(http);
    const code = `prazo${Date.now().toString(36).slice(-4)}`;
    const text = `Entregamos em até 3 dias úteis (${code}).`;

    // The quick message screen: add one with an attachment.
    await page.goto('/quick-messages');
    await page.getByRole('button', { name: /Adicionar/ }).click();
    await page.getByTestId('qm-shortcode').fill(code);
    await page.getByTestId('qm-message').fill(text);
    await page.getByTestId('qm-file').setInputFiles(writePng());
    await page.getByTestId('qm-media-chip').waitFor();
    await page.getByRole('button', { name: /Salvar/ }).click();
    const row = page.locator('[data-testid="quick-message-row"]').filter({ hasText: `/${code}` });
    await row.waitFor();
    await row.getByLabel(/Com anexo/).waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.mouse.move(0, 0);
    await screenshot(page, 'quick-messages');

    // A customer writes; the admin accepts and opens the ticket.
    const number = freshNumber('72');
    await http.post(`/simulator/${simulator.id}/inbound`, {
      from: `55${number}`,
      name: 'Cliente Rápido',
      body: 'Qual o prazo?',
    });
    const ticket = await until(
      async () =>
        (
          await http.get<{ tickets: { id: number; uuid: string; contact: { number: string } }[] }>(
            `/tickets?status=pending&showAll=true&searchParam=${number}`,
          )
        ).tickets.find((tk) => tk.contact.number.endsWith(number)),
      Boolean,
      'the pending ticket',
    );
    await http.put(`/tickets/${ticket!.id}`, { status: 'open' });
    await page.goto(`/tickets/${ticket!.uuid}`);
    const input = page.getByTestId('message-text');
    await input.waitFor();

    // "/" and two characters: the suggestion shows; choosing it fills the text and attaches the image.
    await input.fill(`/${code.slice(0, 4)}`);
    const option = page.locator('[data-testid="quick-reply-option"]').filter({ hasText: `/${code}` });
    await option.waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'quick-reply-suggestions');
    await option.click();
    await page.waitForFunction((t) => {
      const el = document.querySelector<HTMLTextAreaElement>('[data-testid="message-text"]');
      return el?.value === t;
    }, text);
    await page.getByTestId('attachments').waitFor();
    await input.press('Enter');

    await until(
      () => http.get<PhoneMessage[]>(`/simulator/${simulator.id}/conversations/55${number}`),
      (list) => list.some((m) => m.fromMe && m.mediaType === 'image' && m.body.includes(code)),
      'the quick reply with its image on the customer phone',
    );

    // Scheduling from the ticket: the dialog comes with the ticket's contact.
    await page.getByTestId('chat-schedule').click();
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.waitFor();
    await until(
      () => page.getByTestId('schedule-contact').locator('input').inputValue(),
      (v) => v.includes('Cliente Rápido'),
      "the ticket's contact in the schedule dialog",
    );
    const later = `Retorno combinado ${code}`;
    await page.getByTestId('schedule-body').fill(later);
    await page.getByTestId('schedule-save').click();
    await dialog.waitFor({ state: 'detached' });
    const saved = await http.get<{ schedules: { body: string; ticketId: number; status: string }[] }>(
      `/schedules?searchParam=${encodeURIComponent(code)}`,
    );
    assert.deepEqual(
      saved.schedules.map((x) => [x.body, x.ticketId, x.status]),
      [[later, ticket!.id, 'PENDENTE']],
    );
  } finally {
    await page.context().close();
  }
});
