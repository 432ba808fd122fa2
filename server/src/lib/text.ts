/**
 * Text that goes into the database. PostgreSQL's text and jsonb refuse the NUL character and lone
 * UTF-16 surrogates (half an emoji); a cut with `.slice(0, n)` can make the second one out of a whole
 * emoji. Cut with `truncate` and clean what customers and uploads send with `cleanText`.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** NUL bytes removed, lone surrogates replaced by U+FFFD: a string PostgreSQL stores as given otherwise. */
export function cleanText(s: string): string {
  // Fast path: most text has neither.
  if (!/[\0\ud800-\udfff]/.test(s)) return s;
  return s.replace(/\0/g, '').replace(LONE_SURROGATE, '\ufffd');
}

/** Every string inside a JSON-like value cleaned (keys too); other values as they are. */
export function cleanDeep<T>(value: T): T {
  if (typeof value === 'string') return cleanText(value) as T;
  if (Array.isArray(value)) return value.map(cleanDeep) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[cleanText(k)] = cleanDeep(v);
    return out as T;
  }
  return value;
}

let segmenter: Intl.Segmenter | undefined;

/**
 * At most `max` UTF-16 units, cut between grapheme clusters (an emoji with its skin tone or a flag stays
 * whole or goes whole), so the result is never ill-formed because of the cut.
 */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let end = 0;
  // Only the part that can fit is segmented (plus one cluster's worth of look-ahead).
  for (const { segment, index } of segmenter.segment(s.slice(0, max + 64))) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  return s.slice(0, end);
}

/**
 * A long text as several pieces of at most `max` characters (a channel's message limit: Telegram's 4,096,
 * Messenger's 2,000), cut at a line break in the second half of a piece when there is one, never inside an
 * emoji's surrogate pair. An empty text is one empty piece.
 */
export function splitText(text: string, max: number): string[] {
  const out: string[] = [];
  for (let rest = text; rest.length;) {
    let cut = rest.length <= max ? rest.length : rest.lastIndexOf('\n', max);
    if (cut < max / 2) cut = Math.min(rest.length, max);
    // Never split a surrogate pair (half an emoji on each side).
    if (cut < rest.length && /[\ud800-\udbff]/.test(rest[cut - 1] ?? '')) cut -= 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  return out.length ? out : [''];
}
