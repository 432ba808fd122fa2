import { safeFetch, type SafeFetchOptions } from '../../lib/safe-fetch.js';

/**
 * The fetch() automations reach tenant-supplied URLs with (Typebot, n8n/webhook hooks, media answers, and
 * the `openai` package's `fetch` option): every call goes through safeFetch (docs/outbound-urls.md) with
 * the given limits; the operator's own base URLs use the platform's fetch.
 */
export function tenantFetch(opts: SafeFetchOptions): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers: Record<string, string> = {};
    new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((v, k) => {
      headers[k] = v;
    });
    let body: string | Buffer | Uint8Array | FormData | undefined;
    const raw = init.body;
    if (raw == null) body = undefined;
    else if (typeof raw === 'string' || raw instanceof Uint8Array || raw instanceof FormData) body = raw;
    else if (raw instanceof ArrayBuffer) body = Buffer.from(raw);
    else
      body = Buffer.from(await new Response(raw as ConstructorParameters<typeof Response>[0]).arrayBuffer());
    return safeFetch(
      url,
      { method: init.method ?? 'GET', headers, body },
      { ...opts, ...(init.signal ? { signal: init.signal } : {}) },
    );
  }) as typeof fetch;
}
