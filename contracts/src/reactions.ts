import { z } from 'zod';

/** #33.7 The connections' channels that carry reactions (the simulator has none). */
export const REACTION_CHANNELS: readonly string[] = ['baileys', 'cloud_api'];

/** #33.7 The reactions an attendant picks from a message's menu (WhatsApp's own quick row). */
export const REACTION_EMOJIS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

/** One emoji (with its modifiers and joiners), as WhatsApp takes it; letters and digits are not reactions. */
const EMOJI =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\uFE0F|\u200D|\u20E3)+$/u;

/** `POST /api/messages/{messageId}/reactions`: the company's reaction to a message; '' removes it. */
export const ReactionInput = z
  .object({
    emoji: z
      .string()
      .trim()
      .max(16)
      .refine((e) => e === '' || EMOJI.test(e), { message: 'emoji: one emoji, or empty to remove' }),
  })
  .meta({ id: 'ReactionInput' });
export type ReactionInput = z.infer<typeof ReactionInput>;

/**
 * The reactions of a message as its `data` keeps them: `reaction` the customer's (WhatsApp's one per person),
 * `myReaction` the company's (sent by an attendant or from the phone), `myReactionError` why the last one
 * could not be sent.
 */
export function reactionsOf(data: Record<string, unknown> | null | undefined): {
  customer: string;
  company: string;
  error: string;
} {
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  return { customer: s(data?.reaction), company: s(data?.myReaction), error: s(data?.myReactionError) };
}
