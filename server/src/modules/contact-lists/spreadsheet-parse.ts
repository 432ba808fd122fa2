import ExcelJS from 'exceljs';
import * as XLSX from '@e965/xlsx';
import { AppError } from '../../http/errors.js';
import { inflateEntry, zipEntries, ZipRefused } from './zip-guard.js';

/**
 * The spreadsheet libraries' side of a contact-list upload. Runs in a worker thread (spreadsheet-worker.ts):
 * a large sheet never holds the server's event loop, and the worker's memory is capped.
 */

/** A cell's visible value: rich text, hyperlinks and formulas give their text; numbers stay numbers. */
export function cellValue(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    const v = value as {
      richText?: { text: string }[];
      text?: unknown;
      result?: unknown;
      hyperlink?: string;
    };
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
    if (v.text !== undefined) return cellValue(v.text);
    if (v.result !== undefined) return cellValue(v.result);
    if (v.hyperlink) return v.hyperlink.replace(/^mailto:/, '');
  }
  return '';
}

export type Records = { records: { row: number; values: (string | number)[] }[]; tooMany: boolean };

/** Rows with content in a worksheet's XML (a self-closing <row/> has none). */
const ROW_WITH_CELLS = /<row\b(?:[^>]*[^/>])?>/g;

/**
 * An .xlsx workbook (ZIP), read with exceljs — after every entry was unpacked within `unpacked` bytes in
 * all (sizes as declared, and never more than declared) and no worksheet holds more than `maxRows` rows
 * (plus the header): exceljs then never meets a bomb nor a million rows.
 */
export async function workbookRecords(data: Buffer, maxRows: number, unpacked: number): Promise<Records> {
  try {
    for (const entry of zipEntries(data, unpacked)) {
      const content = inflateEntry(data, entry);
      if (!/^xl\/worksheets\/[^/]+\.xml$/i.test(entry.name)) continue;
      let rows = 0;
      const xml = content.toString('latin1');
      ROW_WITH_CELLS.lastIndex = 0;
      while (ROW_WITH_CELLS.exec(xml)) if (++rows > maxRows + 1) return { records: [], tooMany: true };
    }
  } catch (err) {
    if (!(err instanceof ZipRefused)) throw err;
    throw err.reason === 'too-large'
      ? new AppError(
          'ERR_FILE_TOO_LARGE',
          413,
          `The workbook unpacks to more than ${unpacked / 1024 / 1024} MB`,
        )
      : new AppError('ERR_SPREADSHEET_UNREADABLE', 400, 'The workbook could not be read');
  }
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch {
    throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, 'The workbook could not be read');
  }
  const sheet = workbook.worksheets[0];
  const records: Records['records'] = [];
  let tooMany = false;
  sheet?.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    if (records.length > maxRows) return void (tooMany = true);
    const values = Array.isArray(row.values) ? row.values.slice(1).map(cellValue) : [];
    if (values.some((v) => String(v).trim() !== '')) records.push({ row: rowNumber, values });
  });
  return { records, tooMany };
}

/** A legacy Excel 97-2003 binary file (OLE2/BIFF), read with SheetJS: values only, no formulas run. */
export function binaryRecords(data: Buffer, maxRows: number): Records {
  let rows: unknown[][];
  let firstRow = 0;
  try {
    const book = XLSX.read(data, { type: 'buffer', cellDates: true, cellFormula: false, cellHTML: false });
    const sheet = book.SheetNames[0] ? book.Sheets[book.SheetNames[0]] : undefined;
    if (!sheet) return { records: [], tooMany: false };
    firstRow = sheet['!ref'] ? XLSX.utils.decode_range(sheet['!ref']).s.r : 0;
    rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, blankrows: true, defval: '' });
  } catch {
    throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, 'The spreadsheet could not be read');
  }
  const records: Records['records'] = [];
  let tooMany = false;
  rows.forEach((cells, i) => {
    if (records.length > maxRows) return void (tooMany = true);
    const values = cells.map(cellValue);
    if (values.some((v) => String(v).trim() !== '')) records.push({ row: firstRow + i + 1, values });
  });
  return { records, tooMany };
}
