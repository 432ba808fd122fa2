import {
  CONTACT_OWNER_COLUMNS,
  CONTACT_UPLOAD_COLUMNS,
  ContactInput,
  checkCustomFieldValue,
  columnKey,
  type CustomFieldValue,
  type CustomFieldView,
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
  | {
      ok: true;
      input: ContactInputParsed;
      /** The owner column's e-mail (#30.4), when the row has one. */ owner?: string;
    }
  | { ok: false; error: Omit<ContactUploadError, 'row'> };

const OWNER_COLUMNS = new Set<string>(CONTACT_OWNER_COLUMNS);

/**
 * One spreadsheet row → a contact input, or why not. Columns may be named in English or Portuguese
 * (name/nome, number/numero/número/telefone, email/e-mail), in any case and with or without accents.
 */
export function parseUploadRow(raw: unknown): ParsedRow {
  const picked: Partial<Record<Field, unknown>> = {};
  let owner: unknown;
  if (raw && typeof raw === 'object' && !Array.isArray(raw))
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const column = columnKey(key);
      const field = FIELD_OF.get(column);
      if (field && picked[field] === undefined) picked[field] = cellText(value);
      else if (OWNER_COLUMNS.has(column) && owner === undefined) owner = value;
    }
  const contactName = typeof picked.name === 'string' ? truncate(picked.name.trim(), 100) : '';
  const number = typeof picked.number === 'string' ? truncate(picked.number.trim(), 60) : '';
  const parsed = ContactInput.safeParse({
    name: picked.name,
    number: picked.number,
    email: picked.email === undefined || picked.email === null ? '' : picked.email,
    extraInfo: [],
  });
  if (owner !== undefined && owner !== null && typeof owner !== 'string')
    return {
      ok: false,
      error: {
        contactName,
        number,
        error: {
          code: 'ERR_VALIDATION',
          field: 'ownerId',
          message: "ownerId: the owner column takes a user's e-mail",
        },
      },
    };
  const ownerEmail = typeof owner === 'string' ? owner.trim() : '';
  if (parsed.success) return { ok: true, input: parsed.data, ...(ownerEmail ? { owner: ownerEmail } : {}) };
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

const YES = new Set(['true', '1', 'sim', 'yes', 'si', 's', 'y', 'x']);
const NO = new Set(['false', '0', 'nao', 'no', 'n']);

/**
 * #32.7 A row's custom field columns (headed by the field's label or key, as the export writes them): the
 * values to store, or the first bad one named `customFields.<key>`. Empty cells are left out.
 */
export function parseCustomFieldCells(
  raw: unknown,
  defs: CustomFieldView[],
): { ok: true; values: Record<string, CustomFieldValue> } | { ok: false; field: string; message: string } {
  const values: Record<string, CustomFieldValue> = {};
  if (!defs.length || !raw || typeof raw !== 'object' || Array.isArray(raw)) return { ok: true, values };
  const cells = new Map<string, unknown>();
  for (const [header, value] of Object.entries(raw as Record<string, unknown>)) {
    const column = columnKey(header);
    if (!cells.has(column)) cells.set(column, value);
  }
  for (const def of defs) {
    let cell = cells.get(columnKey(def.label)) ?? cells.get(def.key);
    if (cell === undefined || cell === null || (typeof cell === 'string' && cell.trim() === '')) continue;
    if (def.type === 'boolean' && typeof cell === 'string') {
      const word = columnKey(cell);
      cell = YES.has(word) ? true : NO.has(word) ? false : cell;
    } else if (typeof cell === 'string') cell = cell.trim();
    if (def.type !== 'number' && def.type !== 'boolean' && typeof cell === 'number') cell = String(cell);
    const checked = checkCustomFieldValue(def, cell);
    if (!checked.ok) return { ok: false, field: `customFields.${def.key}`, message: checked.message };
    values[def.key] = checked.value;
  }
  return { ok: true, values };
}
