import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../http/errors.js';
import { binaryRecords, workbookRecords, type Records } from './spreadsheet-parse.js';

/** One parse per worker: { data, kind, maxRows, unpacked } in, { records } or { error } out. */
export interface SheetJob {
  data: Uint8Array;
  kind: 'zip' | 'ole2';
  maxRows: number;
  unpacked: number;
}
export type SheetAnswer = { ok: Records } | { error: { code: string; status: number; message: string } };

const job = workerData as SheetJob;
const data = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
const run = async (): Promise<SheetAnswer> => {
  try {
    const ok =
      job.kind === 'ole2'
        ? binaryRecords(data, job.maxRows)
        : await workbookRecords(data, job.maxRows, job.unpacked);
    return { ok };
  } catch (err) {
    if (err instanceof AppError)
      return { error: { code: err.code, status: err.statusCode, message: err.message } };
    return {
      error: {
        code: 'ERR_SPREADSHEET_UNREADABLE',
        status: 400,
        message: 'The spreadsheet could not be read',
      },
    };
  }
};
parentPort!.postMessage(await run());
