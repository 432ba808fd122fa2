import { WEEKDAYS, type DaySchedule } from '@recado/contracts';
import { openInterval, weekOf } from '../bot/business-hours.js';

/**
 * Business-time arithmetic for SLA clocks (docs/metrics.md "SLA"): pure functions of an instant, an amount of
 * milliseconds, a week of opening hours (the bot's `DaySchedule[]`, as companies and queues store it) and a
 * time zone. `week: null` means calendar time (every millisecond counts).
 *
 * They work on the zone's wall clock: an instant becomes "local milliseconds" (its wall time read as if it
 * were UTC), days are cut at local midnight, and the result goes back to an instant. A day's open interval is
 * the bot's (`openInterval`: 08:00–18:00; 08:00–00:00 runs to midnight; an empty or reversed day is closed).
 */

const DAY = 86_400_000;
const MIN = 60_000;
/** A week with no open hour gives no due time: after this many days the search stops. */
const MAX_DAYS = 800;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in ms (São Paulo: −3 h). */
export function zoneOffset(at: number, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const whole = at - (((at % 1000) + 1000) % 1000);
  return wall - whole;
}

const toLocal = (at: number, tz: string) => at + zoneOffset(at, tz);
/** Local wall ms back to an instant (the offset read at the guess, then corrected once for a DST edge). */
function toInstant(local: number, tz: string): number {
  const guess = local - zoneOffset(local, tz);
  return local - zoneOffset(guess, tz);
}

/** The open interval [from, to) in local ms of the local day that starts at `dayStart`, or null if closed. */
function openOn(week: DaySchedule[], dayStart: number): [number, number] | null {
  const weekday = WEEKDAYS[(new Date(dayStart).getUTCDay() + 6) % 7];
  const interval = openInterval(week.find((d) => d.weekdayEn === weekday));
  return interval ? [dayStart + interval[0] * MIN, dayStart + interval[1] * MIN] : null;
}

/**
 * The instant `ms` of business time after `start`: counting only open hours when `week` is given. The due
 * time of a clock that has `ms` left. `ms <= 0` answers `start`; a week without any open hour answers null.
 * When the amount ends exactly at a closing time, the answer is that closing time.
 */
export function addBusinessTime(
  start: Date,
  ms: number,
  week: DaySchedule[] | null,
  timeZone: string,
): Date | null {
  if (ms <= 0) return new Date(start.getTime());
  if (!week) return new Date(start.getTime() + ms);
  const full = weekOf(week);
  let left = ms;
  let cursor = toLocal(start.getTime(), timeZone);
  let dayStart = cursor - (((cursor % DAY) + DAY) % DAY);
  for (let i = 0; i < MAX_DAYS; i++, dayStart += DAY) {
    const open = openOn(full, dayStart);
    if (!open) continue;
    const from = Math.max(cursor, open[0]);
    if (from >= open[1]) continue;
    const available = open[1] - from;
    if (left <= available) return new Date(toInstant(from + left, timeZone));
    left -= available;
    cursor = open[1];
  }
  return null;
}

/** Business time between two instants (0 when `to` is not after `from`); calendar time when `week` is null. */
export function businessTimeBetween(
  from: Date,
  to: Date,
  week: DaySchedule[] | null,
  timeZone: string,
): number {
  const a = from.getTime();
  const b = to.getTime();
  if (b <= a) return 0;
  if (!week) return b - a;
  const full = weekOf(week);
  const start = toLocal(a, timeZone);
  const end = toLocal(b, timeZone);
  let total = 0;
  let dayStart = start - (((start % DAY) + DAY) % DAY);
  for (; dayStart < end; dayStart += DAY) {
    const open = openOn(full, dayStart);
    if (!open) continue;
    const lo = Math.max(start, open[0]);
    const hi = Math.min(end, open[1]);
    if (hi > lo) total += hi - lo;
  }
  return total;
}
