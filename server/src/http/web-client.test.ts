import { request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { testApp } from '../../test/helpers.js';
import { precompressDir } from '../../../web/build/precompress.js';
import { IMMUTABLE } from './web-client.js';

// A build as Vite leaves it: index.html, a content-hashed script under assets/, a public file; then the
// build step's .br/.gz copies beside each.
const dist = mkdtempSync(join(tmpdir(), 'recado-web-dist-'));
mkdirSync(join(dist, 'assets'));
const INDEX = `<!doctype html><html><head><title>Recado</title><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div>${'<!-- padding -->'.repeat(40)}</body></html>`;
const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `palavra ${i % 37}`))};\n`;
writeFileSync(join(dist, 'index.html'), INDEX);
writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
writeFileSync(join(dist, 'favicon.svg'), `<svg xmlns="http://www.w3.org/2000/svg">${' '.repeat(600)}</svg>`);
await precompressDir(dist);

const t = await testApp({ deps: { webDist: dist } });

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A raw HTTP exchange (fetch would decode the body and hide what went over the wire). */
const raw = (method: string, path: string, acceptEncoding?: string) =>
  new Promise<Raw>((resolve, reject) => {
    const req = httpRequest(
      `${t.url}${path}`,
      { method, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });

describe('the built web client', () => {
  it('sends a hashed asset pre-compressed by Accept-Encoding, cached for a year', async () => {
    const path = '/assets/index-Ab12Cd34.js';
    const br = await raw('GET', path, 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe(IMMUTABLE);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(SCRIPT.length);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);

    const gz = await raw('GET', path, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['cache-control']).toBe(IMMUTABLE);
    expect(gz.headers['vary']).toMatch(/accept-encoding/i);
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);

    // No Accept-Encoding (or only what we do not keep): the file as built.
    for (const accept of [undefined, 'identity', 'deflate']) {
      const plain = await raw('GET', path, accept);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['cache-control']).toBe(IMMUTABLE);
      expect(plain.body.toString()).toBe(SCRIPT);
    }
  });

  it('never exposes the compressed copies as files of their own', async () => {
    const res = await raw('GET', '/assets/index-Ab12Cd34.js.br', 'br');
    // The SPA fallback answers, not the brotli bytes as a download.
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('revalidates index.html, the SPA routes and public files on every load', async () => {
    for (const path of ['/', '/index.html', '/login', '/tickets/42', '/contacts?search=joao']) {
      const res = await raw('GET', path, 'br, gzip');
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(res.headers['content-encoding'], path).toBe('br');
      expect(res.headers['content-type'], path).toMatch(/text\/html/);
      expect(brotliDecompressSync(res.body).toString(), path).toBe(INDEX);
    }
    const icon = await raw('GET', '/favicon.svg', 'gzip');
    expect(icon.headers['cache-control']).toBe('no-cache');
    expect(icon.headers['content-encoding']).toBe('gzip');
  });

  it('answers HEAD on every page route like GET, without a body', async () => {
    for (const path of ['/', '/login', '/tickets/42', '/assets/index-Ab12Cd34.js']) {
      const get = await raw('GET', path, 'br');
      const head = await raw('HEAD', path, 'br');
      expect(head.status, path).toBe(200);
      expect(head.body.length, path).toBe(0);
      for (const h of ['content-type', 'content-encoding', 'content-length', 'cache-control', 'vary', 'etag'])
        expect(head.headers[h], `${path} ${h}`).toBe(get.headers[h]);
    }
  });

  it('keeps the JSON 404 of unknown API paths, for GET and HEAD', async () => {
    const get = await raw('GET', '/api/nothing-here');
    expect(get.status).toBe(404);
    expect(JSON.parse(get.body.toString()).error).toBe('ERR_NOT_FOUND');
    expect((await raw('HEAD', '/api/nothing-here')).status).toBe(404);
  });
});
