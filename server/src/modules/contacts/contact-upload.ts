import {
  CONTACT_UPLOAD_COLUMNS,
  ContactInput,
  columnKey,
  type ContactInputParsed,
  type ContactUploadError,
} from '@recado/contracts';
import { truncate } from '../../lib/text.js';

type Field = keyof typeof CONTACT_UPLOAD_COLUMNS;

const FIELD_OF = new Map<string, Field>(
  (Object.entries(CONTACT_UPLOAD_COLUMNS) as [Field, readonly string[]][]).flatMap(([field, names]) =>
    names.map((n) => [n, field] as const),
  ),
);

/** A cell as text: spreadsheets give numbers for phone columns; anything else is left as is to fail validation. */
const cellText = (v: unknown): unknown => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v);

export type ParsedRow =
  { ok: true; input: ContactInputParsed } | { ok: false; error: Omit<ContactUploadError, 'row'> };

/**
 * One spreadsheet row → a contact input, or why not. Columns may be named in English or Portuguese
 * (name/nome, number/numero/número/telefone, email/e-mail), in any case and with or without accents.
 */
export function parseUploadRow(raw: unknown): ParsedRow {
  const picked: Partial<Record<Field, unknown>> = {};
  if (raw && typeof raw === 'object' && !Array.isArray(raw))
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const field = FIELD_OF.get(columnKey(key));
      if (field && picked[field] === undefined) picked[field] = cellText(value);
    }
  const contactName = typeof picked.name === 'string' ? truncate(picked.name.trim(), 100) : '';
  const number = typeof picked.number === 'string' ? truncate(picked.number.trim(), 60) : '';
  const parsed = ContactInput.safeParse({
    name: picked.name,
    number: picked.number,
    email: picked.email === undefined || picked.email === null ? '' : picked.email,
    extraInfo: [],
  });
  if (parsed.success) return { ok: true, input: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  return {
    ok: false,
    error: {
      contactName,
      number,
      error: { code: 'ERR_VALIDATION', field, message: `${field || 'row'}: ${issue.message}` },
    },
  };
}
