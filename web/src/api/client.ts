import type { AuthAnswer, ErrorBody } from '@recado/contracts';

/**
 * The HTTP layer of docs/product.md#errors: bearer token from local storage; a 403 triggers one token refresh and a
 * replay, with concurrent failures queued behind that single refresh; a 401, a failed refresh or a second
 * 403 logs the user out.
 */
export const TOKEN_KEY = 'token';
export const COMPANY_KEY = 'companyId';
export const USER_ID_KEY = 'userId';

export class ApiError extends Error {
  constructor(
    public status: number,
    public code: string,
    message: string,
    public body?: ErrorBody & Record<string, unknown>,
  ) {
    super(message);
  }
}

type LogoutListener = () => void;
const logoutListeners = new Set<LogoutListener>();
export const onForcedLogout = (fn: LogoutListener) => {
  logoutListeners.add(fn);
  return () => {
    logoutListeners.delete(fn);
  };
};

export const getToken = () => localStorage.getItem(TOKEN_KEY);
export const setToken = (token: string) => localStorage.setItem(TOKEN_KEY, JSON.stringify(token));
const readToken = () => {
  const raw = getToken();
  if (!raw) return null;
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw;
  }
};
export const currentToken = readToken;

export function clearSession() {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(COMPANY_KEY);
  localStorage.removeItem(USER_ID_KEY);
}

/**
 * Why this tab was signed out, when the server said (docs/security.md: a login elsewhere ends this session):
 * kept in the tab's session storage across the reload, and shown once by the login page.
 */
const SIGNED_OUT_REASON_KEY = 'signedOutReason';
const EXPLAINED_SIGN_OUTS = new Set(['ERR_SESSION_REPLACED']);
/** Noted once per page load: the other requests failing after it must not bring it back once it was shown. */
let noted = false;
export function noteSignedOut(code: string | undefined) {
  if (noted || !code || !EXPLAINED_SIGN_OUTS.has(code)) return;
  noted = true;
  sessionStorage.setItem(SIGNED_OUT_REASON_KEY, code);
}
export const signedOutReason = () => sessionStorage.getItem(SIGNED_OUT_REASON_KEY);
export const forgetSignedOutReason = () => sessionStorage.removeItem(SIGNED_OUT_REASON_KEY);

let refreshing: Promise<string> | null = null;

/** One refresh at a time; every caller waiting on a 403 shares it. */
export function refreshToken(): Promise<string> {
  refreshing ??= fetch('/api/auth/refresh_token', { method: 'POST', credentials: 'include' })
    .then(async (res) => {
      if (!res.ok) {
        const body = (await res.json().catch(() => ({}))) as Partial<ErrorBody>;
        const code = body.error === 'ERR_SESSION_REPLACED' ? body.error : 'ERR_SESSION_EXPIRED';
        throw new ApiError(res.status, code, 'refresh failed');
      }
      const body = (await res.json()) as AuthAnswer;
      setToken(body.token);
      return body.token;
    })
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** Signs this tab out (the session is gone), remembering why when the server said. */
export function forceLogout(code?: string) {
  noteSignedOut(code);
  clearSession();
  logoutListeners.forEach((fn) => fn());
}

export interface RequestOptions {
  params?: Record<string, string | number | boolean | undefined | null | string[] | number[]>;
  body?: unknown;
  signal?: AbortSignal;
  /** Public calls (login, signup) neither send a token nor refresh. */
  anonymous?: boolean;
}

function buildUrl(path: string, params?: RequestOptions['params']) {
  const url = new URL(`/api${path}`, window.location.origin);
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    url.searchParams.set(k, Array.isArray(v) ? JSON.stringify(v) : String(v));
  }
  return url.pathname + url.search;
}

export async function request<T>(
  method: string,
  path: string,
  opts: RequestOptions = {},
  retried = false,
): Promise<T> {
  const token = opts.anonymous ? null : readToken();
  const isForm = typeof FormData !== 'undefined' && opts.body instanceof FormData;
  const res = await fetch(buildUrl(path, opts.params), {
    method,
    credentials: 'include',
    signal: opts.signal,
    headers: {
      ...(opts.body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: opts.body === undefined ? undefined : isForm ? (opts.body as FormData) : JSON.stringify(opts.body),
  });
  if (res.status === 403 && !opts.anonymous && !retried) {
    const body = await res
      .clone()
      .json()
      .catch(() => ({}));
    if ((body as ErrorBody).error === 'ERR_SESSION_EXPIRED') {
      try {
        await refreshToken();
      } catch (err) {
        const code = err instanceof ApiError ? err.code : 'ERR_SESSION_EXPIRED';
        forceLogout(code);
        throw new ApiError(401, code, 'session expired');
      }
      return request<T>(method, path, opts, true);
    }
  }
  if (!res.ok) {
    const body = (await res
      .json()
      .catch(() => ({ error: 'ERR_INTERNAL_SERVER_ERROR', message: res.statusText }))) as ErrorBody &
      Record<string, unknown>;
    if (
      !opts.anonymous &&
      (res.status === 401 || (res.status === 403 && retried && body.error === 'ERR_SESSION_EXPIRED'))
    )
      forceLogout(body.error);
    throw new ApiError(
      res.status,
      body.error ?? 'ERR_INTERNAL_SERVER_ERROR',
      body.message ?? res.statusText,
      body,
    );
  }
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('application/json') ? await res.json() : await res.text()) as T;
}

export const api = {
  get: <T>(path: string, params?: RequestOptions['params']) => request<T>('GET', path, { params }),
  post: <T>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'body'>) =>
    request<T>('POST', path, { ...opts, body }),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, { body }),
  delete: <T>(path: string) => request<T>('DELETE', path),
};
