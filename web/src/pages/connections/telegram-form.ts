import { z } from 'zod';
import { SECRET_MASK, type Whatsapp } from '@recado/contracts';

/** #34 The connection form's Telegram section: the bot token (kept when left empty on an edit). */
export interface TelegramForm {
  botToken: string;
  /** A token is stored already (it comes back masked): empty means "keep it". */
  stored: boolean;
}

/** BotFather's token: `<bot id>:<secret>`. */
export const BOT_TOKEN = /^\d{3,20}:[A-Za-z0-9_-]{20,100}$/;

export const telegramFormValues = (w: Whatsapp | null): TelegramForm => ({
  botToken: '',
  stored: w?.channel === 'telegram' && w.channelConfig.botTokenSealed === SECRET_MASK,
});

export const TelegramFormSchema = z.object({ botToken: z.string().max(200), stored: z.boolean() });

/** The form's rule for a Telegram connection: a token on creation, and BotFather's shape when typed. */
export function checkTelegram(
  v: TelegramForm,
  issue: (path: ['telegram', 'botToken'], message: string) => void,
) {
  const token = v.botToken.trim();
  if (!token && !v.stored) issue(['telegram', 'botToken'], 'common.required');
  else if (token && !BOT_TOKEN.test(token)) issue(['telegram', 'botToken'], 'telegram:invalidToken');
}

/** The channelConfig sent, or undefined on an edit that keeps the stored token. */
export const telegramChannelConfig = (v: TelegramForm) => {
  const token = v.botToken.trim();
  return token && token !== SECRET_MASK ? { botToken: token } : v.stored ? undefined : { botToken: '' };
};
