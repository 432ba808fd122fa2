import { open } from 'node:fs/promises';
import { AppError } from '../../http/errors.js';

/**
 * A POSIX ustar archive, written and read as a stream (docs/migration.md "Recado archive format"): a 512-byte
 * header per entry, its bytes padded to 512, two zero blocks at the end. `tar -tf` lists it. Writing appends
 * entry after entry; reading walks the bytes once, so neither side holds the archive in memory.
 */
const BLOCK = 512;

const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, '0') + '\0';

/** The header of one regular file (names up to 255 bytes: the ustar prefix takes the folders). */
export function tarHeader(name: string, size: number, mtime = new Date(0)): Buffer {
  const h = Buffer.alloc(BLOCK);
  let base = name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 1);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155)
      throw new Error(`tar entry name too long: ${name}`);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  return h;
}

/** Zero bytes that bring an entry of `size` bytes to a block boundary. */
export const tarPadding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
/** The end of the archive: two zero blocks. */
export const TAR_END = Buffer.alloc(BLOCK * 2);

/** Why an archive is refused: truncated, corrupt (structure), tampered (checksums), newer format. */
export type ArchiveProblem =
  'ERR_ARCHIVE_TRUNCATED' | 'ERR_ARCHIVE_CORRUPT' | 'ERR_ARCHIVE_TAMPERED' | 'ERR_ARCHIVE_VERSION';

export const archiveError = (
  code: ArchiveProblem,
  message: string,
  details: { file?: string; table?: string; line?: number } = {},
) => new AppError(code, code === 'ERR_ARCHIVE_VERSION' ? 422 : 400, message, { details });

/** Reads exact byte counts from a file, in chunks, from an offset. */
export class FileReader {
  private buf = Buffer.alloc(0);
  private eof = false;
  private position: number;
  /** Bytes consumed so far (the offset of the next byte in the file). */
  offset: number;
  constructor(
    private readonly fh: Awaited<ReturnType<typeof open>>,
    start = 0,
    private readonly chunk = 256 * 1024,
  ) {
    this.position = start;
    this.offset = start;
  }

  private async fill(n: number) {
    while (this.buf.length < n && !this.eof) {
      const b = Buffer.allocUnsafe(this.chunk);
      const { bytesRead } = await this.fh.read(b, 0, this.chunk, this.position);
      if (bytesRead === 0) this.eof = true;
      this.position += bytesRead;
      this.buf = this.buf.length
        ? Buffer.concat([this.buf, b.subarray(0, bytesRead)])
        : b.subarray(0, bytesRead);
    }
  }
  /** Up to `n` bytes (fewer only at the end of the file). */
  async read(n: number): Promise<Buffer> {
    await this.fill(Math.min(n, this.chunk));
    const take = Math.min(n, this.buf.length);
    const out = this.buf.subarray(0, take);
    this.buf = this.buf.subarray(take);
    this.offset += take;
    return out;
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** Where the entry's bytes start in the file (a second reader can go back to them). */
  dataOffset: number;
  /** The entry's bytes, in chunks; read it (or skip it) before asking for the next entry. */
  body(): AsyncGenerator<Buffer>;
}

const parseOctal = (b: Buffer) => {
  const s = b.toString('ascii').replace(/\0.*$/s, '').trim();
  if (!/^[0-7]*$/.test(s)) return NaN;
  return s ? parseInt(s, 8) : 0;
};

/** The entries of a tar file, one after the other; a truncated or corrupt structure throws ERR_ARCHIVE_*. */
export async function* readTar(path: string): AsyncGenerator<TarEntry> {
  const fh = await open(path, 'r');
  try {
    const r = new FileReader(fh);
    let last = '(start)';
    for (;;) {
      const header = await r.read(BLOCK);
      if (header.length < BLOCK)
        throw archiveError('ERR_ARCHIVE_TRUNCATED', `the archive ends inside the header after ${last}`, {
          file: last,
        });
      if (header.every((b) => b === 0)) return;
      let sum = 0;
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
      const stored = parseOctal(header.subarray(148, 156));
      const base = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
      const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
      const name = prefix ? `${prefix}/${base}` : base;
      if (stored !== sum)
        throw archiveError('ERR_ARCHIVE_CORRUPT', `bad tar header after ${last}`, { file: last });
      const size = parseOctal(header.subarray(124, 136));
      if (!Number.isFinite(size))
        throw archiveError('ERR_ARCHIVE_CORRUPT', `bad size of ${name}`, { file: name });
      last = name;
      let left = size;
      const dataOffset = r.offset;
      let consumed = false;
      const body = async function* () {
        consumed = true;
        while (left > 0) {
          const b = await r.read(Math.min(left, 256 * 1024));
          if (b.length === 0)
            throw archiveError('ERR_ARCHIVE_TRUNCATED', `the archive ends inside ${name}`, { file: name });
          left -= b.length;
          yield b;
        }
      };
      yield { name, size, dataOffset, body };
      if (!consumed || left > 0) for await (const _ of body()) void _;
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad && (await r.read(pad)).length < pad)
        throw archiveError('ERR_ARCHIVE_TRUNCATED', `the archive ends inside ${name}`, { file: name });
    }
  } finally {
    await fh.close();
  }
}

/** Lines of a stream of chunks (UTF-8, '\n'-separated), with their 1-based numbers. */
export async function* linesOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ line: string; n: number }> {
  let rest = '';
  let n = 0;
  const decoder = new TextDecoder('utf-8');
  for await (const c of chunks) {
    rest += decoder.decode(c, { stream: true });
    let i: number;
    while ((i = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, i);
      rest = rest.slice(i + 1);
      yield { line, n: ++n };
    }
  }
  rest += decoder.decode();
  if (rest) yield { line: rest, n: ++n };
}
