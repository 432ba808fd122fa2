/** A LIKE pattern that matches `text` anywhere, with the user's % and _ taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The largest value of a PostgreSQL `integer` (serial ids): a larger id names no row. */
export const MAX_DB_ID = 2_147_483_647;
export const isDbId = (n: number): boolean => Number.isInteger(n) && n > 0 && n <= MAX_DB_ID;
