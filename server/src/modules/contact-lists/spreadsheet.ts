import { dirname, extname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  CONTACT_UPLOAD_COLUMNS,
  columnKey,
  MAX_CONTACT_LIST_UNPACKED_BYTES,
  type ErrorCode,
} from '@recado/contracts';
import { AppError } from '../../http/errors.js';
import type { Records } from './spreadsheet-parse.js';
import type { SheetAnswer, SheetJob } from './spreadsheet-worker.js';
import { zipEntries, ZipRefused } from './zip-guard.js';

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

// ZIP (an .xlsx workbook) and OLE2 (the legacy binary .xls) signatures.
const isZip = (b: Buffer) => b.length > 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const isOle2 = (b: Buffer) =>
  b.length > 8 && b.readUInt32BE(0) === 0xd0cf11e0 && b.readUInt32BE(4) === 0xa1b11ae1;

/** The parse's memory cap and time cap: past them the worker is stopped and the file refused. */
const WORKER_HEAP_MB = 256;
const WORKER_TIMEOUT_MS = 120_000;

/** tsx's ESM API (its package exports it for `import` only; the worker's eval code is a script). */
const tsxApi = () =>
  pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx')), 'esm/api/index.mjs')).href;

/**
 * Runs the parse in a worker thread. The server runs TypeScript through tsx: a worker started from a .ts
 * file loads it through tsx's API (a compiled .js file would be started as it is).
 */
function parseInWorker(job: SheetJob): Promise<Records> {
  const here = fileURLToPath(import.meta.url);
  const file = fileURLToPath(new URL(`./spreadsheet-worker${extname(here)}`, import.meta.url));
  const worker =
    extname(here) === '.ts'
      ? new Worker(
          `import(${JSON.stringify(tsxApi())}).then((tsx) => ` +
            `tsx.tsImport(${JSON.stringify(pathToFileURL(file).href)}, ${JSON.stringify(import.meta.url)}))`,
          { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } },
        )
      : new Worker(file, { workerData: job, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  return new Promise<Records>((resolve, reject) => {
    const unreadable = () =>
      new AppError('ERR_SPREADSHEET_UNREADABLE', 400, 'The spreadsheet could not be read within the limits');
    const timer = setTimeout(() => {
      reject(unreadable());
      void worker.terminate();
    }, WORKER_TIMEOUT_MS);
    worker.once('message', (answer: SheetAnswer) => {
      clearTimeout(timer);
      if ('ok' in answer) resolve(answer.ok);
      else reject(new AppError(answer.error.code as ErrorCode, answer.error.status, answer.error.message));
      void worker.terminate();
    });
    // Out of memory, or the worker could not start: the file is refused, the server goes on.
    worker.once('error', () => {
      clearTimeout(timer);
      reject(unreadable());
    });
    worker.once('exit', () => {
      clearTimeout(timer);
      reject(unreadable());
    });
  });
}

/**
 * The first sheet's rows as name, number and e-mail. The header row names the columns (name/nome,
 * number/numero/telefone, email/e-mail, in any case and with or without accents); a sheet whose first row
 * names no number column is read as name, number, e-mail from its first row on. Empty rows are skipped.
 * Both the workbook format (.xlsx, and ".xls" files saved as workbooks) and the Excel 97-2003 binary
 * format (.xls) are read — in a worker thread, within `maxRows` rows and `unpacked` bytes (docs/uploads.md).
 */
export async function readContactSheet(
  data: Buffer,
  maxRows: number,
  unpacked = MAX_CONTACT_LIST_UNPACKED_BYTES,
): Promise<SheetRow[]> {
  const kind = isOle2(data) ? 'ole2' : isZip(data) ? 'zip' : undefined;
  if (!kind) throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, 'Not an Excel spreadsheet');
  if (kind === 'zip') {
    // What the central directory declares is checked here, before any worker starts: a bomb costs nothing.
    try {
      zipEntries(data, unpacked);
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
  }
  const read = await parseInWorker({ data: new Uint8Array(data), kind, maxRows, unpacked });
  const { records, tooMany } = read;
  if (tooMany) throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, `At most ${maxRows} rows per file`);
  if (records.length === 0) return [];

  const header = records[0]!.values.map((h) => FIELD_OF.get(columnKey(String(h))));
  const hasHeader = header.includes('number');
  const columns: Record<Field, number> = hasHeader
    ? { name: header.indexOf('name'), number: header.indexOf('number'), email: header.indexOf('email') }
    : { name: 0, number: 1, email: 2 };
  const body = hasHeader ? records.slice(1) : records;
  if (body.length > maxRows)
    throw new AppError('ERR_SPREADSHEET_UNREADABLE', 400, `At most ${maxRows} rows per file`);
  const at = (values: (string | number)[], i: number) => (i >= 0 ? values[i] : undefined);
  return body.map(({ row, values }) => ({
    row,
    name: at(values, columns.name),
    number: at(values, columns.number),
    email: at(values, columns.email),
  }));
}
