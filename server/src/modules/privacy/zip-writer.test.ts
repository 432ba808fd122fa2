import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { crc32, readStoredZip, zipStream } from './zip-writer.js';

async function bytesOf(gen: AsyncIterable<Buffer>) {
  const parts: Buffer[] = [];
  for await (const p of gen) parts.push(p);
  return Buffer.concat(parts);
}

describe('the stored ZIP writer', () => {
  test('CRC-32 of a known string', () => {
    expect(crc32(Buffer.from('123456789')).toString(16)).toBe('cbf43926');
  });

  test('entries come back byte for byte; a missing file is left out; other tools read it', async () => {
    const image = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const zip = await bytesOf(
      zipStream([
        { name: 'contact.json', data: Buffer.from('{"name":"Zé Ação"}') },
        { name: 'media/1-foto ç.png', data: async () => image },
        { name: 'media/2-gone.png', data: async () => null },
      ]),
    );
    const back = readStoredZip(zip);
    expect([...back.keys()]).toEqual(['contact.json', 'media/1-foto ç.png']);
    expect(back.get('contact.json')!.toString()).toBe('{"name":"Zé Ação"}');
    expect(back.get('media/1-foto ç.png')!.equals(image)).toBe(true);
    // The system's unzip (Info-ZIP), when the machine has it, checks every CRC.
    const unzip = spawnSync('unzip', ['-v'], { encoding: 'utf8' });
    if (unzip.status !== 0) return;
    const file = join(mkdtempSync(join(tmpdir(), 'recado-zip-')), 'x.zip');
    writeFileSync(file, zip);
    const check = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    expect(check.stdout).toContain('No errors detected');
  });
});
