import { randomBytes } from 'node:crypto';
import { WebchatConfig } from '@recado/contracts';
import { AppError } from '../../../http/errors.js';

/** A widget's public id: random, never the connection's numeric id (docs/channels.md "Website chat"). */
export const newPublicId = () => `wc_${randomBytes(12).toString('base64url')}`;

/**
 * A webchat connection's settings as stored: validated, and the public id kept from before (or made once).
 * An admin cannot choose or change the public id: pages already embed it.
 */
export function webchatConfig(
  input: Record<string, unknown>,
  previous?: Record<string, unknown>,
): Record<string, unknown> {
  const parsed = WebchatConfig.safeParse({ ...(previous ?? {}), ...input });
  if (!parsed.success)
    throw new AppError('ERR_VALIDATION', 400, parsed.error.issues.map((i) => i.message).join('; '));
  const kept = typeof previous?.publicId === 'string' && previous.publicId ? previous.publicId : undefined;
  return {
    ...parsed.data,
    allowedOrigins: [...new Set(parsed.data.allowedOrigins)],
    publicId: kept ?? newPublicId(),
  };
}

/** The stored settings read back (defaults for anything missing). */
export const readWebchatConfig = (cfg: Record<string, unknown>): WebchatConfig & { publicId: string } => {
  const parsed = WebchatConfig.safeParse(cfg);
  const data = parsed.success ? parsed.data : WebchatConfig.parse({});
  return { ...data, publicId: String(cfg.publicId ?? '') };
};

/** A page's Origin against the widget's list; no Origin (not a browser: a server-side client) is let through. */
export const originAllowed = (cfg: WebchatConfig, origin: string | undefined): boolean =>
  !origin || cfg.allowedOrigins.includes(origin.toLowerCase());
