import { BOT_TEXT_DEFAULTS, COMPANY_LANGUAGES } from '@recado/contracts';

/**
 * The bot's text menus: how a list is written to the customer, and how the customer's answer is read.
 * WhatsApp buttons and lists are not offered by our channels, so every chatBotType is written as text.
 */

export interface Choice {
  /** What the customer types: "1", "2"... (queue positions, or an option's own key). */
  key: string;
  label: string;
}

/** Keys that go one level up in an option tree ("0" only while no option of that level uses it). */
export const BACK_KEYS = ['0', '#'] as const;
/** The Portuguese defaults; the bot writes the company's texts (botText in contracts) instead. */
export const BACK_LABEL = BOT_TEXT_DEFAULTS.pt.botBackLabel;
/** Put above a menu sent again after an answer that matched none of its choices. */
export const INVALID_ANSWER_NOTICE = BOT_TEXT_DEFAULTS.pt.botInvalidAnswer;
/** Words that go back whatever the company's language ("voltar", "back", "volver"). */
const BACK_WORDS = COMPANY_LANGUAGES.map((l) => BOT_TEXT_DEFAULTS[l].botBackLabel);

const KEYCAP = /([0-9#*])\uFE0F?\u20E3/gu;

/** Case, accents and surrounding blanks do not matter when a name is typed instead of a number. */
const fold = (s: string) =>
  s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The key an answer starts with: "2", " 2 ", "2.", "*2*", "[2]", "02", "2️⃣", "２" and
 * "2 - Enviado do meu iPhone" all read as "2"; "#" reads as "#"; "a) boletos" as "a". Null for an
 * answer that starts with nothing a key could be (an empty text, a picture).
 */
export function answerKey(body: string): string | null {
  const text = body
    .replace(KEYCAP, '$1')
    .replace(/\u{1F51F}/gu, '10')
    .normalize('NFKC')
    .trim()
    .replace(/^[\s*_~[("'“‘]+/u, '');
  const m = /^(#|\d+|[\p{L}\p{N}]+)/u.exec(text);
  if (!m) return null;
  const token = m[1]!;
  if (/^\d+$/.test(token)) return token.length > 6 ? token : String(Number(token));
  return fold(token);
}

const sameKey = (a: string, b: string) => {
  const ka = /^\d+$/.test(a) ? String(Number(a)) : fold(a);
  const kb = /^\d+$/.test(b) ? String(Number(b)) : fold(b);
  return ka === kb;
};

export type Pick = { kind: 'choice'; index: number } | { kind: 'back' } | { kind: 'invalid' };

/**
 * Reads an answer against a menu: a choice by its key, or by its whole label typed out ("Vendas");
 * with `back`, "0", "#", "voltar" (or "back", "volver", or the company's own back label) go up (a choice
 * whose key is "0" wins over going back).
 */
export function readAnswer(body: string, choices: Choice[], back: boolean, backLabel = BACK_LABEL): Pick {
  const key = answerKey(body);
  if (key !== null) {
    const index = choices.findIndex((c) => sameKey(c.key, key));
    if (index >= 0) return { kind: 'choice', index };
  }
  const whole = fold(body);
  if (whole) {
    const index = choices.findIndex((c) => fold(c.label) === whole);
    if (index >= 0) return { kind: 'choice', index };
  }
  const backWord = [...BACK_WORDS, backLabel].some((w) => fold(w) === whole);
  if (back && (key === '#' || key === '0' || (whole && backWord))) return { kind: 'back' };
  return { kind: 'invalid' };
}

/** Numeric keys in number order, then the others alphabetically. */
export function sortByKey<T extends { option: string }>(items: T[]): T[] {
  const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number.POSITIVE_INFINITY);
  return [...items].sort((a, b) => num(a.option) - num(b.option) || a.option.localeCompare(b.option));
}

/** The back key shown under a sub-menu: "0" unless an option of that level already uses it. */
export const backKeyFor = (choices: Choice[]) => (choices.some((c) => sameKey(c.key, '0')) ? '#' : '0');

/** The header, a blank line and one "*key* - label" line per choice (and the way back, when there is one). */
export function renderMenu(header: string, choices: Choice[], back: boolean, backLabel = BACK_LABEL): string {
  const lines = choices.map((c) => `*${c.key}* - ${c.label}`);
  if (back) lines.push(`*${backKeyFor(choices)}* - ${backLabel}`);
  const head = header.trim();
  return head ? `${head}\n\n${lines.join('\n')}` : lines.join('\n');
}
