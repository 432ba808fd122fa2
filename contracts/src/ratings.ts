import { z } from 'zod';

/** docs/bot.md: the customer's rating of a resolved ticket. */
export const RATING_SCALE = { 1: 'unsatisfied', 2: 'satisfied', 3: 'very_satisfied' } as const;
export type RatingValue = keyof typeof RATING_SCALE;

/** How long a resolved ticket waits for the customer's rating before it ends without one. */
export const RATING_WAIT_MINUTES = 30;

/** What the customer reads under the connection's rating message (Portuguese: the customers' language). */
export const RATING_OPTIONS_TEXT =
  'Digite de *1* a *3* para avaliar o nosso atendimento:\n\n*1* - 😞 Insatisfeito\n*2* - 🙂 Satisfeito\n*3* - 😍 Muito satisfeito';
export const DEFAULT_RATING_MESSAGE = 'Seu atendimento foi finalizado. Como foi a sua experiência?';
export const DEFAULT_RATING_THANKS = 'Obrigado pela sua avaliação!';

/**
 * The rating in a customer's answer: "2", " 2 ", "2.", "2)", "2️⃣", "2 - Enviado do meu iPhone" are 2;
 * "22", "2a", "nota 2" or anything else is not an answer (null).
 */
export function parseRatingAnswer(body: string): RatingValue | null {
  const m = /^\s*\*?([1-3])\*?(?:\uFE0F?\u20E3)?(?:$|[\s;:!)\-–—]|[.,](?!\d))/u.exec(body);
  return m ? (Number(m[1]) as RatingValue) : null;
}

export const UserRatingView = z.object({
  id: z.number(),
  ticketId: z.number(),
  userId: z.number().nullable(),
  rate: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  createdAt: z.string(),
});
export type UserRatingView = z.infer<typeof UserRatingView>;
