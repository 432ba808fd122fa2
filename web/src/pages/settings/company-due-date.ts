import { RECURRENCE_MONTHS, type Recurrence } from '@recado/contracts';
import { formatDate } from '../../i18n/format.js';

/**
 * How a company row is tinted by its due date (docs/billing.md): exactly 5 days ahead pale yellow; from
 * 3 days past to 4 days ahead orange; exactly 4 days past red; otherwise no tint.
 */
export type DueDateTone = 'upcoming' | 'due' | 'overdue' | null;

const DAY_MS = 86_400_000;

/** Calendar days from `today` (local date) to `dueDate` (YYYY-MM-DD...); negative when past. */
export function daysUntilDue(dueDate: string, today: Date = new Date()): number {
  const [y, m, d] = dueDate.slice(0, 10).split('-').map(Number);
  const due = Date.UTC(y!, m! - 1, d!);
  const now = Date.UTC(today.getFullYear(), today.getMonth(), today.getDate());
  return Math.round((due - now) / DAY_MS);
}

export function dueDateTone(dueDate: string | null | undefined, today: Date = new Date()): DueDateTone {
  if (!dueDate || !/^\d{4}-\d{2}-\d{2}/.test(dueDate)) return null;
  const days = daysUntilDue(dueDate, today);
  if (days === 5) return 'upcoming';
  if (days >= -3 && days <= 4) return 'due';
  if (days === -4) return 'overdue';
  return null;
}

const pad = (n: number) => String(n).padStart(2, '0');
const isoDate = (y: number, m: number, d: number) => `${y}-${pad(m + 1)}-${pad(d)}`;

/**
 * The "expire" action: dueDate moved forward by one recurrence period (RECURRENCE_MONTHS), keeping the
 * day of the month where it exists (31 Jan + 1 month = 28/29 Feb). A company without a due date starts
 * from today.
 */
export function advanceDueDate(
  dueDate: string | null | undefined,
  recurrence: string,
  today: Date = new Date(),
): string {
  const months = RECURRENCE_MONTHS[recurrence as Recurrence] ?? 1;
  const [y, m, d] =
    dueDate && /^\d{4}-\d{2}-\d{2}/.test(dueDate)
      ? dueDate.slice(0, 10).split('-').map(Number)
      : [today.getFullYear(), today.getMonth() + 1, today.getDate()];
  const total = y! * 12 + (m! - 1) + months;
  const year = Math.floor(total / 12);
  const month = total % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return isoDate(year, month, Math.min(d!, lastDay));
}

/** YYYY-MM-DD shown in the reader's locale, without time-zone shifts. */
export function formatDueDate(dueDate: string | null | undefined, locale: string): string {
  if (!dueDate) return '';
  const [y, m, d] = dueDate.slice(0, 10).split('-').map(Number);
  // A local calendar day: the one formatter writes it as the day it is, in any time zone.
  return formatDate(new Date(y!, m! - 1, d!), locale);
}
