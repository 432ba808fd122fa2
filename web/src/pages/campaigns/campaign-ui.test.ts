import { describe, expect, test } from 'vitest';
import { inRange } from './campaign-ui.js';

describe("the campaign dialog's selects (issue 21 §10: no out-of-range value)", () => {
  test('an id shows only once its option is loaded; none stays none', () => {
    expect(inRange(7, undefined)).toBe('');
    expect(inRange(7, [])).toBe('');
    expect(inRange(7, [{ id: 3 }])).toBe('');
    expect(inRange(7, [{ id: 3 }, { id: 7 }])).toBe(7);
    expect(inRange('', [{ id: 7 }])).toBe('');
  });
});
