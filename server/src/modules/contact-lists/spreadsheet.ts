import ExcelJS from 'exceljs';
import * as XLSX from '@e965/xlsx';
import { CONTACT_UPLOAD_COLUMNS, columnKey } from '@recado/contracts';
import { AppError } from '../../http/errors.js';

export interface SheetRow {
  /** The row's number in the sheet (1-based, header included). */
  row: number;
  name: unknown;
  number: unknown;
  email: unknown;
}

type Field = keyof typeof CONTACT_UPLOAD_COLUMNS;
const FIELD_OF = new Map<string, Field>(
  (Object.entries(CONTACT_UPLOAD_COLUMNS) as [Field, readonly string[]][]).flatMap(([field, names]) =>
    names.map((n) => [n, field] as const),
  ),
);

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

// ZIP (an .xlsx workbook) and OLE2 (the legacy binary .xls) signatures.
const isZip = (b: Buffer) => b.length > 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const isOle2 = (b: Buffer) =>
  b.length > 8 && b.readUInt32BE(0) === 0xd0cf11e0 && b.readUInt32BE(4) === 0xa1b11ae1;

type Records = { records: { row: number; values: (string | number)[] }[]; tooMany: boolean };

/** An .xlsx workbook (ZIP), read with exceljs. */
async function workbookRecords(data: Buffer, maxRows: number): Promise<Records> {
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
function binaryRecords(data: Buffer, maxRows: number): Records {
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

/**
 * The first sheet's rows as name, number and e-mail. The header row names the columns (name/nome,
 * number/numero/telefone, email/e-mail, in any case and with or without accents); a sheet whose first row
 * names no number column is read as name, number, e-mail from its first row on. Empty rows are skipped.
 * Both the workbook format (.xlsx, and ".xls" files saved as workbooks) and the Excel 97-2003 binary
 * format (.xls) are read.
 */
export async function readContactSheet(data: Buffer, maxRows: number): Promise<SheetRow[]> {
  let read: Records;
  if (isOle2(data)) read = binaryRecords(data, maxRows);
  else if (isZip(data)) read = await workbookRecords(data, maxRows);
  else throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, 'Not an Excel spreadsheet');
  const { records, tooMany } = read;
  if (records.length === 0) return [];

  const header = records[0]!.values.map((h) => FIELD_OF.get(columnKey(String(h))));
  const hasHeader = header.includes('number');
  const columns: Record<Field, number> = hasHeader
    ? { name: header.indexOf('name'), number: header.indexOf('number'), email: header.indexOf('email') }
    : { name: 0, number: 1, email: 2 };
  const body = hasHeader ? records.slice(1) : records;
  if (tooMany || body.length > maxRows)
    throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, `At most ${maxRows} rows per file`);
  const at = (values: (string | number)[], i: number) => (i >= 0 ? values[i] : undefined);
  return body.map(({ row, values }) => ({
    row,
    name: at(values, columns.name),
    number: at(values, columns.number),
    email: at(values, columns.email),
  }));
}
