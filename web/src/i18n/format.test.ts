import { describe, expect, test } from 'vitest';
import { formatDate, formatDateTime, formatTime } from './format.js';

// A local wall-clock moment: what the screen shows does not depend on the machine's zone here.
const evening = new Date(2026, 10, 23, 21, 43);
const morning = new Date(2026, 0, 5, 9, 7);

describe('one date and time formatter by language (issue 21 §6)', () => {
  test('English: 12-hour times and month/day/year', () => {
    expect(formatTime(evening, 'en')).toBe('09:43 PM');
    expect(formatTime(morning, 'en')).toBe('09:07 AM');
    expect(formatDate(evening, 'en')).toBe('11/23/2026');
    expect(formatDateTime(evening, 'en')).toBe('11/23/2026 09:43 PM');
  });
  test.each(['pt', 'pt-BR', 'es'])('%s: 24-hour times and day/month/year', (lang) => {
    expect(formatTime(evening, lang)).toBe('21:43');
    expect(formatTime(morning, lang)).toBe('09:07');
    expect(formatDate(evening, lang)).toBe('23/11/2026');
    expect(formatDate(morning, lang, { short: true })).toBe('05/01/26');
    expect(formatDateTime(evening.toISOString(), lang)).toBe('23/11/2026 21:43');
  });
  test('nothing, or an invalid date, is an empty text', () => {
    expect(formatDateTime(null, 'pt')).toBe('');
    expect(formatDateTime('not a date', 'en')).toBe('');
  });
});
