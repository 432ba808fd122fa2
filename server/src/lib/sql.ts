import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** A LIKE pattern that matches `text` anywhere, with the user's % and _ taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `value` contains `search`, blind to accents and case: "joao" and "JOAO" find "João" (docs/search.md).
 * Both sides go through the database's search_norm() (lower(unaccent(x)), migration 0015), the expression
 * the trigram indexes on contacts.name and messages.body are built on, so those searches use them.
 */
export const containsText = (value: SQLWrapper, search: string): SQL =>
  sql`search_norm(${value}) like search_norm(${containsPattern(search)})`;

/**
 * containsText for a column that already holds search_norm() of the text (a stored generated column, such as
 * messages.body_search, migration 0067): only the search is normalised, the row's value is read as it is, and
 * the trigram index on that column serves it (docs/search.md).
 */
export const containsNormalised = (normalised: SQLWrapper, search: string): SQL =>
  sql`${normalised} like search_norm(${containsPattern(search)})`;

/** The largest value of a PostgreSQL `integer` (serial ids): a larger id names no row. */
export const MAX_DB_ID = 2_147_483_647;
export const isDbId = (n: number): boolean => Number.isInteger(n) && n > 0 && n <= MAX_DB_ID;
