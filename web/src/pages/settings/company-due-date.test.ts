import { describe, expect, test } from 'vitest';
import { advanceDueDate, daysUntilDue, dueDateTone, formatDueDate } from './company-due-date.js';

const today = new Date(2026, 2, 10, 15, 30); // 10 March 2026, afternoon local time
const plus = (n: number) => {
  const d = new Date(2026, 2, 10 + n);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

describe('company row colour by due date', () => {
  test('counts calendar days, whatever the hour', () => {
    expect(daysUntilDue('2026-03-10', today)).toBe(0);
    expect(daysUntilDue('2026-03-15', today)).toBe(5);
    expect(daysUntilDue('2026-03-06', today)).toBe(-4);
    expect(daysUntilDue('2026-04-10T00:00:00.000Z', today)).toBe(31);
  });

  test('exactly 5 days ahead is pale yellow', () => {
    expect(dueDateTone(plus(5), today)).toBe('upcoming');
  });

  test('from 3 days past to 4 days ahead is orange', () => {
    for (let n = -3; n <= 4; n++) expect(dueDateTone(plus(n), today)).toBe('due');
  });

  test('exactly 4 days past is red', () => {
    expect(dueDateTone(plus(-4), today)).toBe('overdue');
  });

  test('everything else, and no due date, is not tinted', () => {
    for (const n of [-30, -5, 6, 7, 60]) expect(dueDateTone(plus(n), today)).toBeNull();
    expect(dueDateTone(null, today)).toBeNull();
    expect(dueDateTone('', today)).toBeNull();
    expect(dueDateTone('not a date', today)).toBeNull();
  });

  test('works across month and year boundaries', () => {
    const newYearsEve = new Date(2026, 11, 31);
    expect(dueDateTone('2027-01-05', newYearsEve)).toBe('upcoming');
    expect(dueDateTone('2026-12-27', newYearsEve)).toBe('overdue');
  });
});

describe('expire action', () => {
  test('advances by the recurrence period', () => {
    expect(advanceDueDate('2026-03-10', 'MENSAL')).toBe('2026-04-10');
    expect(advanceDueDate('2026-03-10', 'BIMESTRAL')).toBe('2026-05-10');
    expect(advanceDueDate('2026-03-10', 'TRIMESTRAL')).toBe('2026-06-10');
    expect(advanceDueDate('2026-03-10', 'SEMESTRAL')).toBe('2026-09-10');
    expect(advanceDueDate('2026-03-10', 'ANUAL')).toBe('2027-03-10');
    expect(advanceDueDate('2026-11-15', 'TRIMESTRAL')).toBe('2027-02-15');
  });

  test('keeps the day of month where it exists', () => {
    expect(advanceDueDate('2026-01-31', 'MENSAL')).toBe('2026-02-28');
    expect(advanceDueDate('2028-01-31', 'MENSAL')).toBe('2028-02-29');
    expect(advanceDueDate('2026-08-31', 'SEMESTRAL')).toBe('2027-02-28');
  });

  test('without a due date starts from today; an unknown recurrence counts as monthly', () => {
    expect(advanceDueDate(null, 'MENSAL', today)).toBe('2026-04-10');
    expect(advanceDueDate('2026-03-10', 'WHATEVER')).toBe('2026-04-10');
  });

  test('formats without shifting the day', () => {
    expect(formatDueDate('2026-03-10', 'pt-BR')).toBe('10/03/2026');
    expect(formatDueDate(null, 'pt-BR')).toBe('');
  });
});
