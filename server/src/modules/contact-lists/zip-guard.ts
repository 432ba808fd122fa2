import { inflateRawSync } from 'node:zlib';

/**
 * An .xlsx workbook is a ZIP. Before any spreadsheet library unpacks one, its central directory says what
 * every entry unpacks to; a file whose entries add up to more than the budget (a zip bomb: a few hundred
 * KB unpacking to hundreds of MB) is refused without unpacking anything. `inflateEntries` then unpacks
 * each entry with the size it declared as a hard cap, so a file that lies about its sizes is caught too.
 */

export class ZipRefused extends Error {
  constructor(
    readonly reason: 'too-large' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_ENTRIES = 10_000;

/** The central directory's entries; refuses ZIP64, more than MAX_ENTRIES, or more than `budget` unpacked. */
export function zipEntries(data: Buffer, budget: number): ZipEntry[] {
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65_535); i--)
    if (data.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new ZipRefused('unreadable', 'not a ZIP file');
  const count = data.readUInt16LE(eocd + 10);
  const offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipRefused('unreadable', 'ZIP64 is not accepted');
  if (count > MAX_ENTRIES) throw new ZipRefused('too-large', 'too many entries');
  const entries: ZipEntry[] = [];
  let total = 0;
  let at = offset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL)
      throw new ZipRefused('unreadable', 'broken central directory');
    const size = data.readUInt32LE(at + 24);
    if (size === 0xffffffff) throw new ZipRefused('unreadable', 'ZIP64 is not accepted');
    const nameLength = data.readUInt16LE(at + 28);
    const entry: ZipEntry = {
      name: data.toString('utf8', at + 46, at + 46 + nameLength),
      method: data.readUInt16LE(at + 10),
      compressedSize: data.readUInt32LE(at + 20),
      size,
      localOffset: data.readUInt32LE(at + 42),
    };
    total += size;
    if (total > budget) throw new ZipRefused('too-large', `unpacks to more than ${budget} bytes`);
    entries.push(entry);
    at += 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
  }
  return entries;
}

/** Unpacks one entry, never past the size it declared (stored or deflated only). */
export function inflateEntry(data: Buffer, e: ZipEntry): Buffer {
  const at = e.localOffset;
  if (at + 30 > data.length || data.readUInt32LE(at) !== LOCAL)
    throw new ZipRefused('unreadable', 'broken local header');
  const start = at + 30 + data.readUInt16LE(at + 26) + data.readUInt16LE(at + 28);
  const packed = data.subarray(start, start + e.compressedSize);
  if (e.method === 0) {
    if (packed.length !== e.size) throw new ZipRefused('unreadable', 'stored entry of the wrong size');
    return packed;
  }
  if (e.method !== 8) throw new ZipRefused('unreadable', `compression method ${e.method}`);
  try {
    // One byte of room: more than declared is a lie, caught here instead of filling memory.
    const out = inflateRawSync(packed, { maxOutputLength: e.size + 1 });
    if (out.length > e.size) throw new ZipRefused('too-large', `${e.name} unpacks past its declared size`);
    return out;
  } catch (err) {
    if (err instanceof ZipRefused) throw err;
    if (err instanceof RangeError)
      throw new ZipRefused('too-large', `${e.name} unpacks past its declared size`);
    throw new ZipRefused('unreadable', `${e.name} cannot be unpacked`);
  }
}
