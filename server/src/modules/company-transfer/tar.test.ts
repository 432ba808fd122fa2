import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdMap } from './import-service.js';
import { TAR_END, linesOf, readTar, tarHeader, tarPadding } from './tar.js';

const dir = mkdtempSync(join(tmpdir(), 'recado-tar-'));

async function entriesOf(file: string) {
  const out: { name: string; text: string }[] = [];
  for await (const e of readTar(file)) {
    const chunks: Buffer[] = [];
    for await (const c of e.body()) chunks.push(c);
    out.push({ name: e.name, text: Buffer.concat(chunks).toString() });
  }
  return out;
}

describe('the archive tar (ustar) writer and reader', () => {
  const long = `media/files/12/messages/2026-11/${'x'.repeat(90)}/${'y'.repeat(60)}.jpg`;
  const file = join(dir, 'a.tar');
  const body = (s: string) => [
    tarHeader(s === 'b' ? long : s, Buffer.byteLength(s + '-data')),
    Buffer.from(s + '-data'),
    tarPadding(Buffer.byteLength(s + '-data')),
  ];
  writeFileSync(file, Buffer.concat([...body('manifest.json'), ...body('b'), TAR_END]));

  it('reads back what it wrote, names past 100 bytes through the ustar prefix', async () => {
    expect(await entriesOf(file)).toEqual([
      { name: 'manifest.json', text: 'manifest.json-data' },
      { name: long, text: 'b-data' },
    ]);
  });

  it('is a tar the system tar lists', () => {
    const r = spawnSync('tar', ['-tf', file], { encoding: 'utf8' });
    if (r.error) return; // no tar binary here
    expect(r.stdout.trim().split('\n')).toEqual(['manifest.json', long]);
  });

  it('refuses a truncated archive and a damaged header', async () => {
    const bytes = (await import('node:fs')).readFileSync(file);
    const cut = join(dir, 'cut.tar');
    writeFileSync(cut, bytes.subarray(0, 512 + 100));
    await expect(entriesOf(cut)).rejects.toMatchObject({ code: 'ERR_ARCHIVE_TRUNCATED' });
    writeFileSync(cut, bytes.subarray(0, bytes.length - 1024)); // no end blocks
    await expect(entriesOf(cut)).rejects.toMatchObject({ code: 'ERR_ARCHIVE_TRUNCATED' });
    const bad = Buffer.from(bytes);
    bad[1] = bad[1]! ^ 1;
    writeFileSync(cut, bad);
    await expect(entriesOf(cut)).rejects.toMatchObject({ code: 'ERR_ARCHIVE_CORRUPT' });
  });

  it('splits lines across chunk boundaries, multi-byte characters included', async () => {
    const text = Buffer.from('olá\nação\n{"a":1}');
    const chunks = async function* () {
      for (let i = 0; i < text.length; i += 3) yield text.subarray(i, i + 3);
    };
    const lines = [];
    for await (const l of linesOf(chunks())) lines.push(l);
    expect(lines).toEqual([
      { line: 'olá', n: 1 },
      { line: 'ação', n: 2 },
      { line: '{"a":1}', n: 3 },
    ]);
  });
});

describe('IdMap (old id → new id)', () => {
  it('maps ascending ids by binary search and anything else through a Map', () => {
    const m = new IdMap();
    for (let i = 1; i <= 5000; i++) m.set(i * 3, 100_000 + i);
    m.set(7, 1); // out of order
    m.set('9000000000', 2); // a bigint id as text, ascending
    expect(m.get(3)).toBe(100_001);
    expect(m.get(15_000)).toBe(105_000);
    expect(m.get(4)).toBeUndefined();
    expect(m.get(7)).toBe(1);
    expect(m.get(9_000_000_000)).toBe(2);
    expect(m.get('15000')).toBe(105_000);
  });
});
