import { z } from 'zod';

// Calendar days in query strings (the dashboard's periods, a flow's stats): not exported from the index.

/** A calendar day, YYYY-MM-DD, that exists. */
export const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'date YYYY-MM-DD')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'invalid date',
  );

/** How many days from `from` to `to`, both included. */
export const spanDays = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
