import type { AuthUser } from '@recado/contracts';

/**
 * Where people land after signing in: where the work is. Admins land on their dashboard ("/"); everyone
 * else on their tickets.
 */
export function homeFor(user: Pick<AuthUser, 'profile'>): string {
  return user.profile === 'admin' ? '/' : '/tickets';
}

/** Pages a `next` must not name: the public ones (a loop back to the form) and "/" (homeFor decides). */
const NOT_NEXT = ['/', '/login', '/signup', '/forgetpsw'];
/** Any base works: only whether a path stays on it matters. */
const BASE = 'https://recado.invalid';

/**
 * A `?next=` value made safe to navigate to: a path of this site (with its query and hash) or null. Anything
 * that could leave the origin — absolute URLs, `//host`, backslashes, control characters the URL parser
 * drops (`/\t/host`), other schemes — is refused, so the login page is never an open redirect.
 */
export function safeNext(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 2000 || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\'))
    return null;
  for (const ch of raw) if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) return null;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE || NOT_NEXT.includes(url.pathname)) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The page to open once signed in: the one that sent the visitor to the login, else their home. */
export const landingFor = (user: Pick<AuthUser, 'profile'>, next: string | null | undefined): string =>
  safeNext(next) ?? homeFor(user);

/** The login page, remembering the page a signed-out visitor asked for (`/login?next=%2Fcontacts`). */
export function loginPathFor(location: { pathname: string; search: string; hash: string }): string {
  const next = safeNext(`${location.pathname}${location.search}${location.hash}`);
  return next ? `/login?${new URLSearchParams({ next }).toString()}` : '/login';
}
