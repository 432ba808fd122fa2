import { deflateRawSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { describe, expect, test } from 'vitest';
import * as XLSX from '@e965/xlsx';
import {
  MAX_CONTACT_LIST_UNPACKED_BYTES,
  MAX_CONTACT_LIST_UPLOAD_BYTES,
  MAX_CONTACT_LIST_UPLOAD_ROWS,
} from '@recado/contracts';
import { expectError, testApp, type Session } from '../../../test/helpers.js';

/**
 * Spreadsheet uploads against zip bombs and huge sheets: an .xlsx is a ZIP, so a few hundred KB can unpack
 * to hundreds of MB. The server refuses what unpacks past the budget (declared or real) and sheets past
 * the row limit with a clear code, and parses in a worker so the event loop keeps answering.
 */
const t = await testApp();
const c = await t.company('Bombs');

const crc32 = (zlib as unknown as { crc32(data: Buffer): number }).crc32;

/** A ZIP of deflated entries; `declared` overrides the unpacked size its headers claim (a lying file). */
function zip(entries: { name: string; data: Buffer; declared?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const packed = deflateRawSync(e.data);
    const size = e.declared ?? e.data.length;
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const sheetXml = (rows: string) =>
  Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      rows +
      '</sheetData></worksheet>',
  );

/** One cell of `size` characters: the 409 KB / 400 MB cell of the report, scaled to the test. */
const oneHugeCell = (size: number) =>
  sheetXml(`<row r="1"><c r="A1" t="inlineStr"><is><t>${'A'.repeat(size)}</t></is></c></row>`);

const list = async (admin: Session) => {
  const res = await t
    .as(admin)
    .post('/contact-lists', { name: `Lista ${Math.random().toString(36).slice(2, 8)}` });
  expect(res.status).toBe(201);
  return (await res.json()).id as number;
};
const upload = (listId: number, data: Buffer, filename = 'lista.xlsx') => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)]), filename);
  return fetch(`${t.url}/api/contact-lists/${listId}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.admin.token}` },
    body: form,
  });
};

describe('spreadsheet uploads within bounds', () => {
  test('a small workbook whose sheet unpacks past the budget is 413 ERR_FILE_TOO_LARGE', async () => {
    const bomb = zip([
      { name: 'xl/worksheets/sheet1.xml', data: oneHugeCell(MAX_CONTACT_LIST_UNPACKED_BYTES + 1024) },
    ]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    await expectError(await upload(await list(c.admin), bomb), 413, 'ERR_FILE_TOO_LARGE');
  });

  test('a workbook that lies about its unpacked size is caught while unpacking: 413', async () => {
    const liar = zip([
      {
        name: 'xl/worksheets/sheet1.xml',
        data: oneHugeCell(MAX_CONTACT_LIST_UNPACKED_BYTES * 2),
        declared: 4096,
      },
    ]);
    await expectError(await upload(await list(c.admin), liar), 413, 'ERR_FILE_TOO_LARGE');
  });

  test('a sheet with more rows than the limit is refused before it is parsed: 400 with the limit', async () => {
    let rows = '';
    for (let i = 1; i <= 200_000; i++) rows += `<row r="${i}"><c r="A${i}"><v>${i}</v></c></row>`;
    const many = zip([{ name: 'xl/worksheets/sheet1.xml', data: sheetXml(rows) }]);
    const body = await expectError(
      await upload(await list(c.admin), many),
      400,
      'ERR_SPREADSHEET_UNREADABLE',
    );
    expect(body.message).toContain(String(MAX_CONTACT_LIST_UPLOAD_ROWS));
  });

  test('the server keeps answering while a large legitimate sheet is parsed', async () => {
    // The row limit, wide rows, numbers that are not phone numbers: the parse is most of the upload's work
    // (no row is stored), so health checks answered meanwhile were answered during the parse.
    // The legacy binary format: SheetJS reads it in one synchronous call.
    const extra = Array.from({ length: 3 }, (_, k) => `Coluna ${k}`);
    const rows = [['Nome', 'Número', 'E-mail', ...extra]];
    for (let i = 0; i < MAX_CONTACT_LIST_UPLOAD_ROWS; i++)
      rows.push([`Pessoa ${i}`, 'sem número', `p${i}@example.com`, ...extra.map((e) => `${e} ${i}`)]);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), 'Contatos');
    const data = XLSX.write(book, { bookType: 'xls', type: 'buffer' }) as Buffer;
    expect(data.length).toBeLessThan(MAX_CONTACT_LIST_UPLOAD_BYTES);
    const listId = await list(c.admin);

    let done = false;
    const uploading = upload(listId, data, 'lista.xls').then((res) => {
      done = true;
      return res;
    });
    // Health checks one after another while the upload is on its way: they keep being answered.
    let answeredDuring = 0;
    while (!done) {
      const health = await fetch(`${t.url}/api/health`);
      expect(health.status).toBe(200);
      if (!done) answeredDuring++;
    }
    const res = await uploading;
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).errorBag).toHaveLength(MAX_CONTACT_LIST_UPLOAD_ROWS);
    // Parsed on the event loop, the sheet held every health check until it was done (one or two were answered).
    expect(answeredDuring).toBeGreaterThan(20);
  }, 120_000);
});
