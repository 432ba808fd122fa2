/**
 * The contacts CSV (GET /contacts/export.csv, #32.6): `;`-separated, CRLF, a BOM so spreadsheets read UTF-8
 * accents; the fixed columns headed as the web headed them, in the requesting user's language (users.language,
 * pt the fallback), so the import reads the file back.
 */
const HEADERS = {
  pt: { name: 'Nome', number: 'Número', email: 'E-mail' },
  en: { name: 'Name', number: 'Number', email: 'E-mail' },
  es: { name: 'Nombre', number: 'Número', email: 'Correo' },
} as const;

export const contactCsvHeaders = (language: string | null | undefined) =>
  HEADERS[(language ?? 'pt') as keyof typeof HEADERS] ?? HEADERS.pt;

export const CONTACT_EXPORT_FILE_NAME = 'contatos.csv';
export const CSV_BOM = '\uFEFF';

/**
 * One field: a leading = + - @ (or tab, CR) gets an apostrophe so a spreadsheet never runs a value as a
 * formula; quoted when it holds the separator, a quote, a line break or edge spaces (quotes doubled).
 */
export function csvCell(value: string): string {
  let v = value;
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[";\r\n]/.test(v) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** A record with its CRLF. */
export const csvLine = (cells: string[]): string => `${cells.map(csvCell).join(';')}\r\n`;
