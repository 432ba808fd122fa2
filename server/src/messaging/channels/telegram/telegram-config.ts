import { SECRET_MASK } from '@recado/contracts';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { SecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../http/errors.js';

/**
 * A Telegram connection's settings, kept in `whatsapps.channelConfig` (docs/channels.md "Telegram"): the bot
 * token BotFather gave, and the secret Telegram sends back on every webhook call
 * (`X-Telegram-Bot-Api-Secret-Token`), generated per connection. Both sealed (SecretBox); the web sees the
 * token masked and never the webhook secret.
 */

/** BotFather's token: `<bot id>:<35 characters>`. */
const BOT_TOKEN = /^\d{3,20}:[A-Za-z0-9_-]{20,100}$/;

export const TelegramConfigInput = z.object({
  /** Omitted (or the mask) on an update: the stored one stays. */
  botToken: z.string().trim().max(200).optional(),
});

export const TelegramStoredConfig = z.object({
  botTokenSealed: z.string().min(1),
  webhookSecretSealed: z.string().min(1),
});
export type TelegramStoredConfig = z.output<typeof TelegramStoredConfig>;

export interface TelegramOpenConfig {
  botToken: string;
  webhookSecret: string;
}

/** A stored configuration that cannot be used; `reason` is safe to show (never contains a secret). */
export class TelegramConfigError extends Error {
  constructor(public readonly reason: string) {
    super(reason);
  }
}

/**
 * Validates an admin's input and seals the token; the webhook secret is made once and kept across updates
 * (a new token makes a new one: another bot, another webhook). Throws AppError ERR_VALIDATION (400).
 */
export function sealTelegramConfig(
  input: unknown,
  box: SecretBox,
  previous?: Record<string, unknown>,
): TelegramStoredConfig {
  const parsed = TelegramConfigInput.safeParse(input ?? {});
  if (!parsed.success)
    throw new AppError('ERR_VALIDATION', 400, 'Invalid Telegram settings', {
      fields: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  const prev = previous ? TelegramStoredConfig.safeParse(previous) : undefined;
  const old = prev?.success ? prev.data : undefined;
  const token = parsed.data.botToken;
  const fresh = token !== undefined && token !== '' && token !== SECRET_MASK;
  if (fresh && !BOT_TOKEN.test(token))
    throw new AppError('ERR_VALIDATION', 400, 'Invalid Telegram settings', {
      fields: [{ path: 'botToken', message: 'like 123456789:AA… (the token BotFather gave)' }],
    });
  if (!fresh && !old)
    throw new AppError('ERR_VALIDATION', 400, 'Invalid Telegram settings', {
      fields: [{ path: 'botToken', message: 'required' }],
    });
  if (!fresh) return old!;
  return {
    botTokenSealed: box.seal(token),
    // Telegram allows 1–256 characters of A-Z, a-z, 0-9, _ and -.
    webhookSecretSealed: box.seal(randomBytes(32).toString('base64url')),
  };
}

/** Opens a stored configuration for use. Throws TelegramConfigError when missing, invalid or undecryptable. */
export function openTelegramConfig(stored: unknown, box: SecretBox): TelegramOpenConfig {
  const parsed = TelegramStoredConfig.safeParse(stored ?? {});
  if (!parsed.success) throw new TelegramConfigError('Telegram settings incomplete: enter the bot token');
  try {
    return {
      botToken: box.open(parsed.data.botTokenSealed),
      webhookSecret: box.open(parsed.data.webhookSecretSealed),
    };
  } catch {
    throw new TelegramConfigError('The Telegram bot token cannot be decrypted; enter it again');
  }
}

/** What the web may see: the token masked when set. */
export const publicTelegramConfig = (stored: Record<string, unknown> | null | undefined) => ({
  botToken: typeof stored?.botTokenSealed === 'string' && stored.botTokenSealed ? SECRET_MASK : '',
});
