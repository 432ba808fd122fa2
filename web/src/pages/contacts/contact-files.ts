import { MAX_CONTACT_UPLOAD_ROWS } from '@recado/contracts';

export type SheetRow = Record<string, string | number>;

/** Thrown for files that cannot be read as a contact spreadsheet; `code` is an i18n key of contacts. */
export class SpreadsheetError extends Error {
  constructor(public readonly code: 'fileUnreadable' | 'fileEmpty' | 'fileTooManyRows') {
    super(code);
  }
}

// ---- CSV (RFC 4180, with ; , or tab as separator) ----

/** Splits CSV text into records, honouring quotes (separators and line breaks inside quotes are data). */
export function parseCsvRecords(text: string, separator: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === separator) {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** The separator a header line uses: the most frequent of ; , and tab outside quotes. */
export function detectSeparator(text: string): string {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const unquoted = firstLine.replace(/"[^"]*"/g, '');
  const counts = [';', ',', '\t'].map((s) => [s, unquoted.split(s).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ';';
}

/** First record as the header; each later non-empty record as { header: value }. */
function rowsFromRecords(records: (string | number)[][]): SheetRow[] {
  const [header, ...body] = records;
  if (!header) return [];
  const names = header.map((h) => String(h ?? '').trim());
  const rows: SheetRow[] = [];
  for (const record of body) {
    if (record.every((v) => String(v ?? '').trim() === '')) continue;
    const row: SheetRow = {};
    names.forEach((name, i) => {
      if (name && record[i] !== undefined) row[name] = record[i]!;
    });
    rows.push(row);
  }
  return rows;
}

export function rowsFromCsv(text: string): SheetRow[] {
  const clean = text.replace(/^\uFEFF/, '');
  return rowsFromRecords(parseCsvRecords(clean, detectSeparator(clean)));
}

// ---- XLSX (exceljs, loaded only when a spreadsheet is chosen) ----

/** A cell as text or number: rich text, hyperlinks and formulas give their visible value. */
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

async function rowsFromXlsx(data: ArrayBuffer): Promise<SheetRow[]> {
  const mod = await import('exceljs');
  const ExcelJS = (mod as unknown as { default?: typeof mod }).default ?? mod;
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(data);
  const sheet = workbook.worksheets[0];
  if (!sheet) return [];
  const records: (string | number)[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    records.push(values.map(cellValue));
  });
  return rowsFromRecords(records);
}

/** Reads an .xlsx or .csv file into rows keyed by its header line. */
export async function readSpreadsheet(file: File): Promise<SheetRow[]> {
  let rows: SheetRow[];
  try {
    rows =
      /\.csv$/i.test(file.name) || file.type === 'text/csv'
        ? rowsFromCsv(await file.text())
        : await rowsFromXlsx(await file.arrayBuffer());
  } catch {
    throw new SpreadsheetError('fileUnreadable');
  }
  if (rows.length === 0) throw new SpreadsheetError('fileEmpty');
  if (rows.length > MAX_CONTACT_UPLOAD_ROWS) throw new SpreadsheetError('fileTooManyRows');
  return rows;
}

// ---- CSV export (built by the server: GET /contacts/export.csv) ----

/** Whether a CSV the server built (`;`, header line first) holds any record besides its header. */
export const csvHasRows = (csv: string): boolean =>
  parseCsvRecords(csv.replace(/^\uFEFF/, ''), ';').some((r, i) => i > 0 && r.some((v) => v !== ''));

/** Saves text as a file through the browser's download. */
export function downloadText(text: string, fileName: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}
