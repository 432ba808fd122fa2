import { describe, expect, test } from 'vitest';
import { QUEUE_COLORS, nextUnusedColor } from './queues.js';

describe('nextUnusedColor (issue 21 §9: a new tag or queue is offered a colour nobody uses)', () => {
  test('the first palette colour while none is used, then the next free one, whatever the case', () => {
    expect(nextUnusedColor([])).toBe(QUEUE_COLORS[0]);
    expect(nextUnusedColor([QUEUE_COLORS[0]!.toLowerCase()])).toBe(QUEUE_COLORS[1]);
    expect(nextUnusedColor([QUEUE_COLORS[1]!, QUEUE_COLORS[0]!, '#5C59A0'])).toBe(QUEUE_COLORS[2]);
  });
  test('colours outside the palette do not count; a full palette starts over with the least used', () => {
    expect(nextUnusedColor(['#000001', '#000002'])).toBe(QUEUE_COLORS[0]);
    const full = [...QUEUE_COLORS, ...QUEUE_COLORS.filter((_, i) => i !== 7)];
    expect(nextUnusedColor(full)).toBe(QUEUE_COLORS[7]);
  });
});
