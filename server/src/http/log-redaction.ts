import type { FastifyRequest } from 'fastify';

const REDACTED = '[redacted]';
/** Query parameters whose value is a credential: hub.verify_token, token, access_token, code, signature… */
const SECRET_PARAM = /token|secret|passw|pwd|key|signature|code|auth|session|cookie/i;

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/**
 * The URL as it may be logged: e-mail addresses in the path (`/api/forgetpassword/{email}`) and the
 * values of token-like or e-mail-carrying query parameters are replaced by "[redacted]".
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? undefined : url.slice(q + 1);
  const safePath = path
    .split('/')
    .map((segment, i, all) =>
      decode(segment).includes('@') || (i > 0 && /^forgetpassword$/i.test(all[i - 1]!)) ? REDACTED : segment,
    )
    .join('/');
  if (query === undefined) return safePath;
  const safeQuery = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      return SECRET_PARAM.test(decode(name)) || decode(value).includes('@') ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}

/** Fastify's request serializer, with the URL redacted (the only place a request's URL is logged). */
export function requestSerializer(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
