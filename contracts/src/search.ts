/**
 * The browser's side of the accent- and case-blind search (docs/search.md): the server compares
 * search_norm(x) = lower(unaccent(x)) in the database; the web client decides with these whether a row
 * that arrives by socket belongs in a list cached under a search, so it must agree with the server.
 * Dropping the combining marks after NFD covers what the database's unaccent rules do for the Latin
 * letters customers type (á à â ã ä ç é ê í ó ô õ ú ü ñ...); ligatures such as æ, ß, ø are also
 * unfolded by unaccent and by SEARCH_FOLDS below.
 */
const SEARCH_FOLDS: Record<string, string> = { æ: 'ae', œ: 'oe', ß: 'ss', ø: 'o', đ: 'd', ł: 'l', ı: 'i' };

/** `text` as searches compare it: lower case, accents removed. */
export const searchKey = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[æœßøđłı]/g, (c) => SEARCH_FOLDS[c] ?? c);

/** Whether `text` contains `search`, blind to accents and case ("joao" finds "João"). */
export const containsSearch = (text: string | null | undefined, search: string): boolean =>
  searchKey(text ?? '').includes(searchKey(search));
