/**
 * A streamed ZIP archive in the "stored" format (no compression: JSON is small, media files are already
 * compressed). Entries are written one at a time, so only the entry being written is in memory; the central
 * directory (a few dozen bytes per entry) is kept until the end. No ZIP64: an entry or archive past 4 GB is
 * refused, which a single contact's data never reaches.
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** MS-DOS time and date of an instant (UTC), as the ZIP headers keep them. */
function dosTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

export interface ZipEntry {
  name: string;
  /** The bytes, or a function that reads them when the entry's turn comes (media files). */
  data: Buffer | (() => Promise<Buffer | null>);
}

const LIMIT = 0xffffffff;

/** The archive's bytes, entry by entry; an entry whose reader answers null (a missing file) is left out. */
export async function* zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>, at = new Date()) {
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  const { time, date } = dosTime(at);
  for await (const entry of entries) {
    const data = typeof entry.data === 'function' ? await entry.data() : entry.data;
    if (!data) continue;
    const name = Buffer.from(entry.name, 'utf8');
    if (data.length >= LIMIT || offset + data.length >= LIMIT) throw new Error('archive too large for ZIP32');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(0, 10);
    header.writeUInt16LE(time, 12);
    header.writeUInt16LE(date, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    yield Buffer.concat([local, name]);
    yield data;
    offset += 30 + name.length + data.length;
    count++;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  yield dir;
  yield end;
}

/** Reads a stored ZIP back (tests and the export's own check): name → bytes. */
export function readStoredZip(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const endAt = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endAt < 0) throw new Error('not a zip');
  const entries = zip.readUInt16LE(endAt + 10);
  let p = zip.readUInt32LE(endAt + 16);
  for (let i = 0; i < entries; i++) {
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const localAt = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    const localName = zip.readUInt16LE(localAt + 26);
    const localExtra = zip.readUInt16LE(localAt + 28);
    const start = localAt + 30 + localName + localExtra;
    const data = zip.subarray(start, start + size);
    if (crc32(data) !== zip.readUInt32LE(p + 16)) throw new Error(`bad crc: ${name}`);
    out.set(name, Buffer.from(data));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}
