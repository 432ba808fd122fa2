import { describe, expect, test } from 'vitest';
import { parseRatingAnswer } from './ratings.js';

describe('parseRatingAnswer', () => {
  test.each([
    ['2', 2],
    [' 2 ', 2],
    ['2.', 2],
    ['1)', 1],
    ['3!', 3],
    ['*3*', 3],
    ['2️⃣', 2],
    ['2 - Enviado do meu iPhone', 2],
    ['3\nEnviado do meu iPhone', 3],
  ])('%j is %d', (body, rate) => expect(parseRatingAnswer(body)).toBe(rate));

  test.each(['', '0', '4', '22', '2a', 'nota 2', 'dois', 'obrigado', '1.5', '-2'])(
    '%j is no rating',
    (body) => expect(parseRatingAnswer(body)).toBeNull(),
  );
});
