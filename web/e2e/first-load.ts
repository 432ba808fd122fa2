import type { Page, Request } from 'playwright-core';

/** The most compressed JavaScript a first visit to /login may download (issue 19: under 250 KB). */
export const LOGIN_JS_BUDGET = 250 * 1024;

export interface FirstLoad {
  files: {
    name: string;
    encoding: string;
    transferred: number;
    decoded: number;
    /** The same file's size for a client accepting only gzip. */
    gzipped: number;
    source: string;
  }[];
  /** Bytes of JavaScript bodies on the wire (after content-encoding: Chromium takes brotli). */
  transferred: number;
  /** The same files' bytes for a client accepting only gzip. */
  gzipped: number;
  /** Bytes of JavaScript once decoded. */
  decoded: number;
}

/**
 * Opens `url` in a fresh page and sums the JavaScript it downloads once the network is idle and the
 * screen's main button is shown (the browser sends `Accept-Encoding: gzip, deflate, br, zstd`).
 */
export async function measureFirstLoad(page: Page, url: string, ready = '[data-testid="login-submit"]') {
  const pending: Promise<FirstLoad['files'][number] | undefined>[] = [];
  const onFinished = (req: Request) => {
    pending.push(
      (async () => {
        const res = await req.response();
        if (!res || !/javascript/.test(res.headers()['content-type'] ?? '')) return undefined;
        const sizes = await req.sizes();
        const body = await res.body();
        const gz = await fetch(req.url(), { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
        return {
          name: new URL(req.url()).pathname,
          encoding: res.headers()['content-encoding'] ?? '',
          transferred: sizes.responseBodySize,
          decoded: body.length,
          gzipped:
            gz.headers.get('content-encoding') === 'gzip'
              ? Number(gz.headers.get('content-length'))
              : body.length,
          source: body.toString('utf8'),
        };
      })(),
    );
  };
  page.on('requestfinished', onFinished);
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.locator(ready).waitFor();
  await page.waitForLoadState('networkidle');
  page.off('requestfinished', onFinished);
  const files = (await Promise.all(pending)).filter((f) => f !== undefined);
  return {
    files,
    transferred: files.reduce((s, f) => s + f.transferred, 0),
    decoded: files.reduce((s, f) => s + f.decoded, 0),
    gzipped: files.reduce((s, f) => s + f.gzipped, 0),
  } satisfies FirstLoad;
}
