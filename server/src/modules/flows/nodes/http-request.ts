import type { FlowNodeOf } from '@recado/contracts';
import { OutboundLimitError, OutboundUrlError, safeFetch } from '../../../lib/safe-fetch.js';
import { readJsonPath, variableText } from './json-path.js';

type HttpData = FlowNodeOf<'http'>['data'];

/** The largest answer an HTTP node reads (its JSON fields go into variables). */
export const HTTP_NODE_MAX_BYTES = 256_000;

/** A variable's value for `{{name}}`, as the runtime resolves it (undefined: not set, written as ''). */
export type Resolve = (name: string) => string | undefined;

/** How a value is written where it goes: as is, inside a JSON string, or as a URL component. */
type Escape = (value: string) => string;
const asIs: Escape = (v) => v;
const inJsonString: Escape = (v) => JSON.stringify(v).slice(1, -1);

/** `{{name}}` occurrences replaced by their values, each escaped for where it lands. */
export function renderTemplate(text: string, resolve: Resolve, escape: Escape = asIs): string {
  return text.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_, name: string) => escape(resolve(name) ?? ''));
}

/**
 * The URL with its variables: in the query and the path each value is percent-encoded (a value cannot add a
 * parameter or change the host); a variable that is the whole URL (`{{lookupUrl}}`) is written as is, and
 * the guard checks the result like any other URL.
 */
export function renderUrl(template: string, resolve: Resolve): string {
  const whole = /^\s*\{\{\s*([^{}]+?)\s*\}\}\s*$/.exec(template);
  if (whole) return (resolve(whole[1]!) ?? '').trim();
  // The scheme and host (up to the first "/" after "//") take values as is; after it, encoded.
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/is.exec(template);
  if (!m) return renderTemplate(template, resolve, encodeURIComponent);
  return renderTemplate(m[1]!, resolve) + renderTemplate(m[2]!, resolve, encodeURIComponent);
}

/** A JSON-looking body gets its values escaped as JSON string content; other bodies take them as they are. */
const looksJson = (body: string) => /^\s*[[{]/.test(body);

export interface HttpOutcome {
  exit: 'success' | 'error';
  /** Variables to set: the mapped fields (on success) and the status (when statusVariable is set). */
  variables: Record<string, string>;
  /** Why it took `error` (no secret, no body): shown in the run's error and the ticket's note. */
  error?: string;
  status?: number;
}

/**
 * One HTTP node: the request through the outbound-URL guard (loopback and private addresses refused unless
 * ALLOW_PRIVATE_URLS), within the node's timeout; a 2xx answer's JSON fields go into variables. Never
 * throws: every failure is the `error` exit with a short reason.
 */
export async function runHttpRequest(
  data: HttpData,
  resolve: Resolve,
  opts: { allowPrivateUrls: boolean; signal?: AbortSignal },
): Promise<HttpOutcome> {
  const variables: Record<string, string> = {};
  const fail = (error: string, status?: number): HttpOutcome => {
    if (data.statusVariable) variables[data.statusVariable] = status === undefined ? '0' : String(status);
    return { exit: 'error', variables, error, status };
  };
  const url = renderUrl(data.url, resolve);
  const headers: Record<string, string> = {};
  for (const h of data.headers) headers[h.name.toLowerCase()] = renderTemplate(h.value, resolve);
  let body: string | undefined;
  if (data.method !== 'GET' && data.body.trim()) {
    const json = looksJson(data.body);
    body = renderTemplate(data.body, resolve, json ? inJsonString : asIs);
    if (!headers['content-type'])
      headers['content-type'] = json ? 'application/json' : 'text/plain; charset=utf-8';
  }
  headers.accept ??= 'application/json, text/plain;q=0.9, */*;q=0.1';
  let res: Response;
  try {
    res = await safeFetch(
      url,
      { method: data.method, headers, body },
      {
        allowPrivate: opts.allowPrivateUrls,
        timeoutMs: data.timeoutSeconds * 1000,
        maxBytes: HTTP_NODE_MAX_BYTES,
        signal: opts.signal,
      },
    );
  } catch (err) {
    if (err instanceof OutboundUrlError) return fail(`URL not allowed: ${err.reason}`);
    if (err instanceof OutboundLimitError)
      return fail(err.limit === 'time' ? `no answer in ${data.timeoutSeconds} s` : err.message);
    const e = err as { name?: string; code?: string; cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      return fail(`no answer in ${data.timeoutSeconds} s`);
    return fail(`request failed: ${e.code ?? e.cause?.code ?? e.name ?? 'network error'}`);
  }
  if (res.status < 200 || res.status > 299) return fail(`HTTP ${res.status}`, res.status);
  if (data.statusVariable) variables[data.statusVariable] = String(res.status);
  if (data.responseMap.length) {
    const text = await res.text();
    let json: unknown;
    try {
      json = text.trim() ? JSON.parse(text) : null;
    } catch {
      return fail('the answer is not JSON', res.status);
    }
    for (const m of data.responseMap) variables[m.variable] = variableText(readJsonPath(json, m.path));
  }
  return { exit: 'success', variables, status: res.status };
}
