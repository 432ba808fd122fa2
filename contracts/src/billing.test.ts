import { describe, expect, test } from 'vitest';
import { addRecurrence, subscriptionState } from './billing.js';

describe('subscriptionState (docs/billing.md: blocked once now is past dueDate + 1 day)', () => {
  const at = (iso: string) => new Date(iso);
  test('due today or yesterday before the grace ends: not blocked', () => {
    expect(
      subscriptionState({ dueDate: '2026-03-10', trialPeriod: false }, at('2026-03-10T15:00:00Z')),
    ).toEqual({
      blocked: false,
      reason: null,
      daysOverdue: 0,
      daysLeft: 0,
    });
    expect(
      subscriptionState({ dueDate: '2026-03-10', trialPeriod: false }, at('2026-03-11T00:00:00Z')).blocked,
    ).toBe(false);
  });
  test('past the grace: blocked, trial or subscription, with the days overdue', () => {
    expect(
      subscriptionState({ dueDate: '2026-03-10', trialPeriod: true }, at('2026-03-11T00:00:01Z')),
    ).toMatchObject({
      blocked: true,
      reason: 'trial_expired',
      daysOverdue: 1,
    });
    expect(
      subscriptionState({ dueDate: '2026-03-10', trialPeriod: false }, at('2026-03-14T08:00:00Z')),
    ).toMatchObject({
      blocked: true,
      reason: 'subscription_expired',
      daysOverdue: 4,
      daysLeft: -4,
    });
  });
  test("counted on the company's calendar: 22:00 in São Paulo on the due date is not a day late", () => {
    const lateEvening = at('2026-03-11T01:00:00Z'); // 22:00 of March 10th in São Paulo
    const company = { dueDate: '2026-03-10', trialPeriod: false };
    expect(subscriptionState(company, lateEvening, 'America/Sao_Paulo')).toEqual({
      blocked: false,
      reason: null,
      daysOverdue: 0,
      daysLeft: 0,
    });
    // On UTC's calendar it is already the 11th.
    expect(subscriptionState(company, lateEvening).daysOverdue).toBe(1);
    // The block starts when the 11th starts in São Paulo (03:00 UTC), not at UTC's midnight.
    expect(subscriptionState(company, at('2026-03-11T02:59:00Z'), 'America/Sao_Paulo').blocked).toBe(false);
    expect(subscriptionState(company, at('2026-03-11T00:00:01Z')).blocked).toBe(true);
    expect(subscriptionState(company, at('2026-03-11T03:00:01Z'), 'America/Sao_Paulo')).toMatchObject({
      blocked: true,
      daysOverdue: 1,
    });
    // Tokyo is ahead: its 11th starts at 15:00 UTC on the 10th.
    expect(subscriptionState(company, at('2026-03-10T16:00:00Z'), 'Asia/Tokyo').daysOverdue).toBe(1);
  });
  test('no dueDate: never blocked', () => {
    expect(subscriptionState({ dueDate: null, trialPeriod: true }, new Date()).blocked).toBe(false);
  });
});

describe('addRecurrence', () => {
  test.each([
    ['2026-01-15', 'MENSAL', '2026-02-15'],
    ['2026-01-31', 'MENSAL', '2026-02-28'],
    ['2028-01-31', 'MENSAL', '2028-02-29'],
    ['2026-11-30', 'BIMESTRAL', '2027-01-30'],
    ['2026-11-30', 'TRIMESTRAL', '2027-02-28'],
    ['2026-08-31', 'SEMESTRAL', '2027-02-28'],
    ['2026-02-28', 'ANUAL', '2027-02-28'],
  ])('%s + %s = %s', (from, recurrence, to) => {
    expect(addRecurrence(from, recurrence)).toBe(to);
  });
});
