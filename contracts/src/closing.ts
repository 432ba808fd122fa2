import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/**
 * #32.3 Closing reasons and #32.4 protocol numbers (docs/productivity.md "Closing reasons", "Protocol
 * numbers").
 */

/** The company setting `closingReasonMode`: never asked, asked on resolve, or required to resolve. */
export const CLOSING_REASON_MODES = ['off', 'optional', 'required'] as const;
export type ClosingReasonMode = (typeof CLOSING_REASON_MODES)[number];

/** A company's reason to close a ticket ("Venda realizada", "Sem retorno"). */
export const ClosingReason = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    name: z.string(),
    /** Inactive reasons stay on the tickets they closed but are not offered any more. */
    active: z.boolean(),
    /** The order they are offered in (lower first). */
    position: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'ClosingReason' });
export type ClosingReason = Wire<typeof ClosingReason>;

export const ClosingReasonInput = z.object({
  name: z.string().trim().min(1).max(80),
  active: z.boolean().default(true),
  position: z.coerce.number().int().min(0).max(10000).default(0),
});
export type ClosingReasonInput = z.infer<typeof ClosingReasonInput>;

/** PUT /closing-reasons/{id}: only what is sent changes. */
export const ClosingReasonUpdate = z.object({
  name: ClosingReasonInput.shape.name.optional(),
  active: z.boolean().optional(),
  position: z.coerce.number().int().min(0).max(10000).optional(),
});
export type ClosingReasonUpdate = z.infer<typeof ClosingReasonUpdate>;

/** The largest sale value stored (numeric(14,2)). */
export const MAX_SALE_VALUE = 999_999_999_999.99;

/** A sale value: a number ≥ 0 with at most two decimals (12.5, 1999.99). */
export const SaleValue = z
  .number()
  .min(0)
  .max(MAX_SALE_VALUE)
  .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, 'at most two decimals');

/** The default protocol pattern: the date and a six-digit sequence (20260131-000123). */
export const DEFAULT_PROTOCOL_PATTERN = 'YYYYMMDD-000123';
/** The date tokens a pattern may carry; the one run of digits is the sequence and its width. */
export const PROTOCOL_DATE_TOKENS = ['YYYY', 'YY', 'MM', 'DD'] as const;

/**
 * Why a protocol pattern is refused, or null when it is fine: letters, digits and - / . _ # space, up to 40
 * characters, with exactly one run of digits (the sequence, 1 to 12 digits wide).
 */
export function protocolPatternProblem(pattern: string): string | null {
  if (!pattern || pattern.length > 40) return 'the pattern must have 1 to 40 characters';
  if (!/^[A-Za-z0-9\-/._# ]+$/.test(pattern))
    return 'the pattern may use letters, digits, spaces and - / . _ #';
  const runs = pattern.match(/[0-9]+/g) ?? [];
  if (runs.length === 0) return 'the pattern needs a sequence part: a run of digits such as 000123';
  if (runs.length > 1) return 'the pattern must have exactly one sequence part (one run of digits)';
  if (runs[0]!.length > 12) return 'the sequence part may have at most 12 digits';
  return null;
}

/**
 * The protocol a pattern gives for a sequence number at a local date: what the database's
 * `recado_format_protocol` computes (the web's settings preview uses it). The sequence is zero-padded to
 * the width of the pattern's digit run and grows past it when it must.
 */
export function formatProtocol(
  pattern: string,
  seq: number,
  local: { year: number; month: number; day: number },
): string {
  const run = /[0-9]+/.exec(pattern);
  const width = run ? run[0].length : 6;
  const head = run ? pattern.slice(0, run.index) : pattern;
  const tail = run ? pattern.slice(run.index + run[0].length) : '';
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  const dates = (s: string) =>
    s
      .replaceAll('YYYY', pad(local.year, 4))
      .replaceAll('YY', pad(local.year % 100, 2))
      .replaceAll('MM', pad(local.month, 2))
      .replaceAll('DD', pad(local.day, 2));
  return dates(head) + pad(seq, width) + dates(tail);
}

/** One line of the dashboard's closing figures: tickets closed in the period and the sum of their sale values. */
export const ClosingStatLine = z.looseObject({
  /** The reason's or the attendant's id; null: closed without a reason / with nobody on it. */
  id: z.number().nullable(),
  name: z.string().nullable(),
  count: z.number(),
  saleValue: z.number(),
});
export type ClosingStatLine = Wire<typeof ClosingStatLine>;

/** GET /dashboard/closing: the tickets closed in the period by reason and by attendant (docs/metrics.md). */
export const ClosingStats = z
  .looseObject({
    byReason: z.array(ClosingStatLine),
    byAttendant: z.array(ClosingStatLine),
    total: z.looseObject({ count: z.number(), saleValue: z.number() }),
  })
  .meta({ id: 'ClosingStats' });
export type ClosingStats = Wire<typeof ClosingStats>;
