import type { MessageView } from '../../api/messages.js';

import { formatDate, formatDateTime, formatLongDate, formatTime } from '../../i18n/format.js';

export { localeOf } from '../../i18n/format.js';

/** Ticket list time: the hour today, else the short date. */
export function listTime(iso: string | undefined, lang: string, now = new Date()) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const today = d.toDateString() === now.toDateString();
  return today ? formatTime(d, lang) : formatDate(d, lang, { short: true });
}

export const clockTime = (iso: string, lang: string) => formatTime(iso, lang);

export const dateTime = (iso: string, lang: string) => formatDateTime(iso, lang);

/** Day separator label: today, yesterday, or the date. */
export function dayLabel(iso: string, lang: string, t: (k: string) => string, now = new Date()) {
  const d = new Date(iso);
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (d.toDateString() === now.toDateString()) return t('tickets.messages.today');
  if (d.toDateString() === yesterday.toDateString()) return t('tickets.messages.yesterday');
  return formatLongDate(d, lang);
}

export type ChatRow =
  { kind: 'day'; key: string; label: string } | { kind: 'message'; key: string; message: MessageView };

/** Messages with a separator before each new day. */
export function chatRows(messages: MessageView[], label: (iso: string) => string): ChatRow[] {
  const rows: ChatRow[] = [];
  let lastDay = '';
  for (const m of messages) {
    const day = new Date(m.createdAt).toDateString();
    if (day !== lastDay) {
      rows.push({ kind: 'day', key: `day-${day}`, label: label(m.createdAt) });
      lastDay = day;
    }
    rows.push({ kind: 'message', key: `m-${m.id}`, message: m });
  }
  return rows;
}

/**
 * Virtuoso's firstItemIndex: the rows before the first message of the newest page were prepended by
 * older pages; lowering the index by their number keeps the view where it was.
 */
export const FIRST_INDEX_BASE = 1_000_000;
export function firstItemIndex(rows: ChatRow[], anchorId: number | null) {
  if (anchorId === null) return FIRST_INDEX_BASE;
  const at = rows.findIndex((r) => r.kind === 'message' && r.message.id === anchorId);
  // Alone, the newest page starts with its day separator and then the anchor (row 1): the anchor keeps
  // its absolute index, whatever older pages bring before it.
  return FIRST_INDEX_BASE - Math.max(0, at - 1);
}

/** The body with the signature the input adds (docs/product.md#states: the user's name in bold and a new line). */
export const signBody = (body: string, name: string, sign: boolean) =>
  sign && body ? `*${name}*:\n${body}` : body;

/** Quick-reply label preview: cut at 35 characters. */
export const QUICK_LABEL_MAX = 35;
export const cutLabel = (s: string, max = QUICK_LABEL_MAX) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** Audio recordings under this many bytes are discarded (docs/product.md#constants). */
export const MIN_AUDIO_BYTES = 10_000;

/** File extension for a recorded audio mime type; the server accepts the type without parameters. */
export function audioFileOf(mime: string, now = Date.now()) {
  const base = (mime.split(';')[0] || 'audio/webm').trim();
  const ext = base.includes('mpeg')
    ? 'mp3'
    : base.includes('ogg')
      ? 'ogg'
      : base.includes('mp4')
        ? 'm4a'
        : 'webm';
  return { name: `audio-record-${now}.${ext}`, type: base };
}

/** WhatsApp's light and dark chat colors. */
export function chatColors(mode: 'light' | 'dark') {
  return mode === 'light'
    ? {
        wallpaper: '#efeae2',
        mine: '#d9fdd3',
        theirs: '#ffffff',
        text: '#111b21',
        meta: '#667781',
        read: '#53bdeb',
        chip: '#ffffffe6',
        quoteMine: '#cfe9c6',
        quoteTheirs: '#f0f2f5',
      }
    : {
        wallpaper: '#0b141a',
        mine: '#005c4b',
        theirs: '#202c33',
        text: '#e9edef',
        meta: '#8696a0',
        read: '#53bdeb',
        chip: '#182229',
        quoteMine: '#025144',
        quoteTheirs: '#1d282f',
      };
}

/** Lower case without accents, one character for one: "Ação" → "acao", with each position kept. */
function fold(text: string): string {
  let out = '';
  for (const ch of text) {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    // A character that folds to several (or none) keeps its place as itself.
    out += f.length === ch.length ? f : ch;
  }
  return out;
}

/** Where `term` occurs in `text`, ignoring case and accents: [start, end) ranges of the original text. */
export function matchRanges(text: string, term: string): [number, number][] {
  const needle = fold(term.trim());
  if (!needle || !text) return [];
  const hay = fold(text);
  if (hay.length !== text.length) return [];
  const out: [number, number][] = [];
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length))
    out.push([at, at + needle.length]);
  return out;
}

/** Whether a message's text (or its file name) holds the search term. */
export const messageMatches = (m: MessageView, term: string) =>
  !m.isDeleted && (matchRanges(m.body, term).length > 0 || matchRanges(m.mediaName ?? '', term).length > 0);
