import { DEFAULT_QUEUE_SCHEDULES, WEEKDAYS, type DaySchedule } from '@recado/contracts';

type Weekday = (typeof WEEKDAYS)[number];

/** The wall clock of a time zone at one instant: its weekday, its date and the minutes since midnight. */
export function localMoment(at: Date, timeZone: string): { weekday: Weekday; date: string; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'long',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    weekday: get('weekday').toLowerCase() as Weekday,
    date: `${get('year')}-${get('month')}-${get('day')}`,
    minutes: Number(get('hour')) * 60 + Number(get('minute')),
  };
}

const toMinutes = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/**
 * One day's open interval in minutes, or null when the day is closed: empty times, start equal to end
 * (the default Sunday 00:00–00:00) or an end before the start. An end of 00:00 after a later start means
 * midnight (08:00–00:00 is open until the day ends).
 */
export function openInterval(day: DaySchedule | undefined): [number, number] | null {
  if (!day?.startTime || !day.endTime) return null;
  const start = toMinutes(day.startTime);
  let end = toMinutes(day.endTime);
  if (end === 0 && start > 0) end = 24 * 60;
  return end > start ? [start, end] : null;
}

/** A stored week, or the default week of docs/bot.md when nothing was saved (what the screens show). */
export const weekOf = (stored: DaySchedule[] | null | undefined): DaySchedule[] =>
  DEFAULT_QUEUE_SCHEDULES.map((d) => stored?.find((s) => s.weekdayEn === d.weekdayEn) ?? d);

export function isOpen(schedules: DaySchedule[], at: Date, timeZone: string): boolean {
  const now = localMoment(at, timeZone);
  const interval = openInterval(weekOf(schedules).find((d) => d.weekdayEn === now.weekday));
  return Boolean(interval && now.minutes >= interval[0] && now.minutes < interval[1]);
}

const addDays = (isoDate: string, days: number) => {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/**
 * Null while open. Closed: a name for this closed period, the local date and time it ends (the next
 * opening, e.g. "2026-11-23T08:00"), so every moment of one night or weekend shares one key and the next
 * closed period has another; "never" when the week has no open hour at all.
 */
export function closedPeriodKey(schedules: DaySchedule[], at: Date, timeZone: string): string | null {
  if (isOpen(schedules, at, timeZone)) return null;
  const week = weekOf(schedules);
  const now = localMoment(at, timeZone);
  const today = WEEKDAYS.indexOf(now.weekday);
  for (let k = 0; k <= 7; k++) {
    const day = week.find((d) => d.weekdayEn === WEEKDAYS[(today + k) % 7]);
    const interval = openInterval(day);
    if (!interval || (k === 0 && now.minutes >= interval[0])) continue;
    return `${addDays(now.date, k)}T${day!.startTime}`;
  }
  return 'never';
}
