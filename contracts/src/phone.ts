import { onlyDigits } from './documents.js';

/**
 * Phone numbers are stored as digits in one canonical form, so one person is one contact:
 * - a Brazilian number typed without the country code (DDD + 8 digits, or DDD + 9 + 8 digits) gets 55;
 *   a leading + means the country code is already there;
 * - a Brazilian mobile without the ninth digit (55 + DDD + 8 digits starting 6–9) gets it.
 * Landlines (8 digits starting 2–5) and other countries are kept as given.
 */
export function normalizeNumber(raw: string): string {
  let d = onlyDigits(raw);
  if (!raw.trim().startsWith('+') && isBrazilianLocal(d)) d = `55${d}`;
  if (d.length === 12 && d.startsWith('55') && /[6-9]/.test(d[4]!)) d = `${d.slice(0, 4)}9${d.slice(4)}`;
  return d;
}

const isBrazilianLocal = (d: string) =>
  /^[1-9]\d/.test(d) && ((d.length === 10 && /[2-9]/.test(d[2]!)) || (d.length === 11 && d[2] === '9'));

/** The other form WhatsApp may use for the same Brazilian mobile (without the ninth digit), or null. */
export function legacyBrazilianNumber(canonical: string): string | null {
  if (
    canonical.length === 13 &&
    canonical.startsWith('55') &&
    canonical[4] === '9' &&
    /[6-9]/.test(canonical[5]!)
  )
    return `${canonical.slice(0, 4)}${canonical.slice(5)}`;
  return null;
}

/** (DD) NNNNN-NNNN or (DD) NNNN-NNNN for Brazilian numbers; + and digits otherwise. */
export function formatNumber(number: string): string {
  const d = onlyDigits(number);
  const local = d.startsWith('55') && (d.length === 12 || d.length === 13) ? d.slice(2) : d;
  if (isBrazilianLocal(local)) {
    const ddd = local.slice(0, 2);
    const rest = local.slice(2);
    return `(${ddd}) ${rest.slice(0, rest.length - 4)}-${rest.slice(-4)}`;
  }
  return d ? `+${d}` : '';
}

/** What the contact form shows when editing: the number without the 55 prefix (docs/product.md#validation). */
export const numberForEdit = (number: string): string =>
  number.startsWith('55') && (number.length === 12 || number.length === 13) ? number.slice(2) : number;
