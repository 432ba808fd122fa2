import { beforeAll, describe, expect, test } from 'vitest';
import { MAX_CONTACT_LIST_UPLOAD_BYTES } from '@recado/contracts';
import { expectError, testApp, type Session, waitFor } from '../../test/helpers.js';
import { MAX_UPLOAD_BYTES } from './uploads.js';

/**
 * Every upload route reads its body through the one upload reader: a malformed multipart body is a 400
 * with a code (never a 500), a file past the route's limit is 413 ERR_FILE_TOO_LARGE.
 */
const t = await testApp();

let admin: Session;
const routes: {
  name: string;
  path: string;
  maxBytes: number;
  field: string;
  filename: string;
  type: string;
}[] = [];

beforeAll(async () => {
  const c = await t.company('Uploads');
  admin = c.admin;
  const api = t.as(admin);
  const created = async (path: string, body: unknown) => {
    const res = await api.post(path, body);
    expect(res.status, `${path}: ${await res.clone().text()}`).toBe(201);
    return (await res.json()) as { id: number };
  };
  const w = await created('/whatsapp', { name: 'Sim', channel: 'simulator' });
  await waitFor(async () => t.app.sessions.get(w.id));
  const contact = await created('/contacts', { name: 'Cliente', number: '5511955550001' });
  const ticket = await created('/tickets', { contactId: contact.id, whatsappId: w.id, status: 'open' });
  const quick = await created('/quick-messages', { shortcode: 'oi', message: 'Olá!' });
  const schedule = await created('/schedules', {
    body: 'Lembrete',
    contactId: contact.id,
    sendAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const fileList = await created('/files', { name: 'Catálogo', message: 'Veja' });
  const list = await created('/contact-lists', { name: 'Clientes' });
  const campaign = await created('/campaigns', { name: 'Promo', message1: 'Oi {nome}' });
  const png = { field: 'file', filename: 'a.png', type: 'image/png' };
  routes.push(
    { name: 'messages', path: `/messages/${ticket.id}`, maxBytes: MAX_UPLOAD_BYTES, ...png, field: 'medias' },
    {
      name: 'quick messages',
      path: `/quick-messages/${quick.id}/media-upload`,
      maxBytes: MAX_UPLOAD_BYTES,
      ...png,
    },
    { name: 'schedules', path: `/schedules/${schedule.id}/media-upload`, maxBytes: MAX_UPLOAD_BYTES, ...png },
    { name: 'files', path: `/files/uploadList/${fileList.id}`, maxBytes: MAX_UPLOAD_BYTES, ...png },
    {
      name: 'contact lists',
      path: `/contact-lists/${list.id}/upload`,
      maxBytes: MAX_CONTACT_LIST_UPLOAD_BYTES,
      field: 'file',
      filename: 'lista.xlsx',
      type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    },
    { name: 'campaigns', path: `/campaigns/${campaign.id}/media-upload`, maxBytes: MAX_UPLOAD_BYTES, ...png },
  );
});

const raw = (path: string, contentType: string, body: string | Uint8Array) =>
  fetch(`${t.url}/api${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}`, 'content-type': contentType },
    body,
  });

const B = 'X-RECADO-BOUNDARY';
const partHead = (field: string, filename: string, type: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;

describe('the one upload reader', () => {
  test('malformed multipart bodies answer 400 ERR_UPLOAD_MALFORMED on every upload route, never 500', async () => {
    expect(routes).toHaveLength(6);
    for (const r of routes) {
      const cases: [string, string, string][] = [
        ['no boundary', 'multipart/form-data', `--${B}\r\n\r\nx`],
        [
          'part terminated early',
          `multipart/form-data; boundary=${B}`,
          partHead(r.field, r.filename, r.type) + 'abc',
        ],
        [
          'malformed part header',
          `multipart/form-data; boundary=${B}`,
          `--${B}\r\nno colon here\r\n\r\nabc\r\n--${B}--\r\n`,
        ],
        ['no parts at all', `multipart/form-data; boundary=${B}`, 'just some bytes'],
      ];
      for (const [what, type, body] of cases) {
        const res = await raw(r.path, type, body);
        const got = await res.json();
        expect({ route: r.name, what, status: res.status }).toEqual({ route: r.name, what, status: 400 });
        expect(['ERR_UPLOAD_MALFORMED', 'ERR_VALIDATION'], `${r.name} / ${what}: ${got.error}`).toContain(
          got.error,
        );
      }
      // The parser's own failures are told apart from a missing file.
      await expectError(await raw(r.path, 'multipart/form-data', 'x'), 400, 'ERR_UPLOAD_MALFORMED');
      await expectError(
        await raw(
          r.path,
          `multipart/form-data; boundary=${B}`,
          partHead(r.field, r.filename, r.type) + 'abc',
        ),
        400,
        'ERR_UPLOAD_MALFORMED',
      );
    }
  });

  test('a file past the route’s limit answers 413 ERR_FILE_TOO_LARGE on every upload route', async () => {
    for (const r of routes) {
      const head = Buffer.from(partHead(r.field, r.filename, r.type));
      const tail = Buffer.from(`\r\n--${B}--\r\n`);
      const body = Buffer.concat([head, Buffer.alloc(r.maxBytes + 1024, 7), tail]);
      const res = await raw(r.path, `multipart/form-data; boundary=${B}`, body);
      const got = await res.json();
      expect({ route: r.name, status: res.status, error: got.error }).toEqual({
        route: r.name,
        status: 413,
        error: 'ERR_FILE_TOO_LARGE',
      });
    }
  });

  test('a kind a route does not take is ERR_FILE_TYPE_NOT_ALLOWED; a form without a file is ERR_VALIDATION', async () => {
    for (const r of routes.filter((x) => x.name !== 'messages')) {
      const exe = `${partHead(r.field, 'setup.exe', 'application/x-msdownload').replace('application/x-msdownload', r.name === 'files' || r.name === 'contact lists' ? 'application/octet-stream' : 'x-evil/thing')}MZ\r\n--${B}--\r\n`;
      await expectError(
        await raw(r.path, `multipart/form-data; boundary=${B}`, exe),
        400,
        'ERR_FILE_TYPE_NOT_ALLOWED',
      );
      const empty = `--${B}\r\nContent-Disposition: form-data; name="other"\r\n\r\nvalue\r\n--${B}--\r\n`;
      await expectError(
        await raw(r.path, `multipart/form-data; boundary=${B}`, empty),
        400,
        'ERR_VALIDATION',
      );
    }
  });

  test('a form field past 20,000 characters is refused, never cut', async () => {
    const messages = routes.find((r) => r.name === 'messages')!;
    const long = `--${B}\r\nContent-Disposition: form-data; name="body"\r\n\r\n${'x'.repeat(20_001)}\r\n--${B}--\r\n`;
    await expectError(
      await raw(messages.path, `multipart/form-data; boundary=${B}`, long),
      400,
      'ERR_VALIDATION',
    );
  });
});
