import type { FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import type { Config } from '../config.js';

/** Vite's dev server (`npm run dev`) proxies /api and /socket.io from these origins. */
const VITE_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173'];

const originOf = (url: string): string => new URL(url).origin;

/**
 * Browser origins allowed to open a socket (and to read cross-origin answers): in production only
 * PUBLIC_URL's origin; elsewhere also Vite's dev server and any page served by this server itself.
 */
export function originPolicy(config: Pick<Config, 'env' | 'publicUrl'>) {
  const production = config.env === 'production';
  const allowed = new Set([originOf(config.publicUrl), ...(production ? [] : VITE_ORIGINS)]);
  return (origin: string | undefined, host: string | undefined): boolean => {
    // No Origin: not a browser page (browsers send it on WebSocket and cross-origin requests).
    if (!origin) return true;
    if (allowed.has(origin)) return true;
    if (production) return false;
    // Development and tests: the page this server served itself (any port, any host name).
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  };
}

/**
 * Security headers on every answer (pages, /api, static files): a CSP the built client runs under
 * (no inline script; MUI/emotion inject <style> elements, hence style-src 'unsafe-inline'), no framing,
 * a referrer policy, nosniff, and HSTS in production only.
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const production = config.env === 'production';
  const publicUrl = new URL(config.publicUrl);
  const wsOrigin = `${publicUrl.protocol === 'https:' ? 'wss:' : 'ws:'}//${publicUrl.host}`;
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        // Media previews are blob: URLs; contacts' WhatsApp pictures and help-video thumbnails are remote.
        'img-src': ["'self'", 'data:', 'blob:', 'https://*.whatsapp.net', 'https://img.youtube.com'],
        'media-src': ["'self'", 'data:', 'blob:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'", wsOrigin],
        'worker-src': ["'self'", 'blob:'],
        // Help videos play in YouTube's embed.
        'frame-src': ['https://www.youtube.com', 'https://www.youtube-nocookie.com'],
        'frame-ancestors': ["'none'"],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        ...(publicUrl.protocol === 'https:' ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    // YouTube's embed needs the origin as referrer; nothing more leaves the site.
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: production ? { maxAge: 15552000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
  });
}
