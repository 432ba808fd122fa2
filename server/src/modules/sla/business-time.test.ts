import { describe, expect, test } from 'vitest';
import { WEEKDAYS, type DaySchedule } from '@recado/contracts';
import { addBusinessTime, businessTimeBetween, zoneOffset } from './business-time.js';

const MIN = 60_000;
const H = 60 * MIN;

/** A week from compact hours: `{ monday: '08:00-18:00' }`; days left out are closed. */
const week = (days: Partial<Record<(typeof WEEKDAYS)[number], string>>): DaySchedule[] =>
  WEEKDAYS.map((weekdayEn) => {
    const [startTime = '', endTime = ''] = (days[weekdayEn] ?? '').split('-');
    return { weekday: weekdayEn, weekdayEn, startTime, endTime };
  });

const office = week({
  monday: '08:00-18:00',
  tuesday: '08:00-18:00',
  wednesday: '08:00-18:00',
  thursday: '08:00-18:00',
  friday: '08:00-18:00',
});
const SP = 'America/Sao_Paulo'; // UTC−3, no daylight saving since 2019
// 2026-11-27 is a Friday.

describe('addBusinessTime', () => {
  const cases: {
    name: string;
    start: string;
    ms: number;
    week: DaySchedule[] | null;
    tz?: string;
    due: string | null;
  }[] = [
    {
      name: 'calendar time',
      start: '2026-11-27T20:50:00Z',
      ms: 30 * MIN,
      week: null,
      due: '2026-11-27T21:20:00Z',
    },
    {
      name: 'inside open hours',
      start: '2026-11-27T12:00:00Z',
      ms: 30 * MIN,
      week: office,
      due: '2026-11-27T12:30:00Z',
    },
    {
      name: 'Friday 17:50 + 30 min → Monday 08:20 (weekend skipped)',
      start: '2026-11-27T20:50:00Z',
      ms: 30 * MIN,
      week: office,
      due: '2026-11-30T11:20:00Z',
    },
    {
      name: 'ends exactly at closing time',
      start: '2026-11-27T20:50:00Z',
      ms: 10 * MIN,
      week: office,
      due: '2026-11-27T21:00:00Z',
    },
    {
      name: 'before opening: starts counting at 08:00',
      start: '2026-11-26T09:00:00Z', // Thursday 06:00 local
      ms: 1 * H,
      week: office,
      due: '2026-11-26T12:00:00Z',
    },
    {
      name: 'Saturday night: Monday morning',
      start: '2026-11-28T23:30:00Z',
      ms: 15 * MIN,
      week: office,
      due: '2026-11-30T11:15:00Z',
    },
    {
      name: 'several days of hours (25 h = 2 days and 5 h)',
      start: '2026-11-23T11:00:00Z', // Monday 08:00
      ms: 25 * H,
      week: office,
      due: '2026-11-25T16:00:00Z',
    },
    {
      name: 'across midnight: open 20:00–00:00 and 00:00–02:00 the next day',
      start: '2026-11-23T23:30:00Z', // Monday 20:30 local
      ms: 4 * H,
      week: week({ monday: '20:00-00:00', tuesday: '00:00-02:00' }),
      due: '2026-11-24T03:30:00Z', // 3.5 h on Monday, then 0.5 h after midnight: Tuesday 00:30 local
    },
    {
      name: 'another zone: Lisbon (UTC+0 in winter)',
      start: '2026-11-27T17:50:00Z',
      ms: 30 * MIN,
      week: office,
      tz: 'Europe/Lisbon',
      due: '2026-11-30T08:20:00Z',
    },
    {
      name: 'seconds are kept',
      start: '2026-11-27T12:00:30.250Z',
      ms: 90_000,
      week: office,
      due: '2026-11-27T12:02:00.250Z',
    },
    {
      name: 'zero left: the start',
      start: '2026-11-28T12:00:00Z',
      ms: 0,
      week: office,
      due: '2026-11-28T12:00:00Z',
    },
    {
      name: 'a week without open hours: never',
      start: '2026-11-27T12:00:00Z',
      ms: MIN,
      week: week({}),
      due: null,
    },
  ];
  test.each(cases)('$name', ({ start, ms, week: w, tz, due }) => {
    const got = addBusinessTime(new Date(start), ms, w, tz ?? SP);
    expect(got?.toISOString() ?? null).toBe(due === null ? null : new Date(due).toISOString());
  });
});

describe('businessTimeBetween', () => {
  const cases: { name: string; from: string; to: string; week: DaySchedule[] | null; ms: number }[] = [
    { name: 'calendar', from: '2026-11-27T12:00:00Z', to: '2026-11-27T13:30:00Z', week: null, ms: 90 * MIN },
    { name: 'reversed: 0', from: '2026-11-27T13:00:00Z', to: '2026-11-27T12:00:00Z', week: office, ms: 0 },
    {
      name: 'Friday 17:50 → Monday 08:20 is 30 min of hours',
      from: '2026-11-27T20:50:00Z',
      to: '2026-11-30T11:20:00Z',
      week: office,
      ms: 30 * MIN,
    },
    {
      name: 'a whole weekend: nothing',
      from: '2026-11-28T03:00:00Z',
      to: '2026-11-30T03:00:00Z',
      week: office,
      ms: 0,
    },
    {
      name: 'a whole week: 50 h',
      from: '2026-11-23T03:00:00Z',
      to: '2026-11-30T03:00:00Z',
      week: office,
      ms: 50 * H,
    },
  ];
  test.each(cases)('$name', ({ from, to, week: w, ms }) => {
    expect(businessTimeBetween(new Date(from), new Date(to), w, SP)).toBe(ms);
  });

  test('adding what was measured lands on the end (when the end is open)', () => {
    for (const [from, to] of [
      ['2026-11-27T20:50:00Z', '2026-11-30T11:20:00Z'],
      ['2026-11-23T11:00:00Z', '2026-11-26T19:45:10Z'],
    ] as const) {
      const ms = businessTimeBetween(new Date(from), new Date(to), office, SP);
      expect(addBusinessTime(new Date(from), ms, office, SP)?.toISOString()).toBe(new Date(to).toISOString());
    }
  });

  test('zone offsets', () => {
    expect(zoneOffset(Date.parse('2026-11-27T12:00:00Z'), SP)).toBe(-3 * H);
    expect(zoneOffset(Date.parse('2026-07-01T12:00:00Z'), 'Europe/Lisbon')).toBe(1 * H);
  });
});
