/**
 * WhatsApp's text formatting as a tree, for the one renderer (WhatsAppText): *bold*, _italic_, ~strike~,
 * ```monospace``` and `inline code`, and plain links. Pure: no markup is ever produced here, so the
 * renderer builds React elements and a message can never inject HTML.
 *
 * As on the phone, a marker opens only at the start of the text or after a space or punctuation, the
 * text inside neither starts nor ends with a space, and the closing marker is not followed by a letter
 * or digit: "2*3*4" and "snake_case_name" stay as typed. Styles nest (*_both_*); code is literal.
 */
export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'link'; href: string }
  | { kind: 'style'; style: 'bold' | 'italic' | 'strike'; children: Segment[] }
  | { kind: 'code'; block: boolean; text: string };

const STYLES: Record<string, 'bold' | 'italic' | 'strike'> = { '*': 'bold', _: 'italic', '~': 'strike' };
const WORD = /[\p{L}\p{N}]/u;
const LINK = /^https?:\/\/[^\s<>"]+/;

/** Whether a marker may open at `i`: after nothing, a space or punctuation (not a letter or digit). */
const canOpen = (s: string, i: number) => i === 0 || !WORD.test(s[i - 1]!);
/** Whether a marker may close at `j`: the next character is not a letter or digit. */
const canClose = (s: string, j: number) => j + 1 >= s.length || !WORD.test(s[j + 1]!);

function findClose(s: string, marker: string, from: number, multiline: boolean): number {
  for (let j = s.indexOf(marker, from); j >= 0; j = s.indexOf(marker, j + 1)) {
    const inner = s.slice(from, j);
    if (!inner || (!multiline && inner.includes('\n'))) return -1;
    if (/^\s|\s$/.test(inner)) continue;
    if (canClose(s, j + marker.length - 1)) return j;
  }
  return -1;
}

export function parseWhatsApp(text: string): Segment[] {
  const out: Segment[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === 'h' && canOpen(text, i)) {
      const link = LINK.exec(text.slice(i));
      if (link) {
        // A sentence's full stop or closing bracket is not part of the address.
        const href = link[0].replace(/[.,;:!?)\]]+$/, '');
        flush();
        out.push({ kind: 'link', href });
        i += href.length;
        continue;
      }
    }
    if (text.startsWith('```', i)) {
      const end = text.indexOf('```', i + 3);
      if (end > i + 3) {
        flush();
        out.push({ kind: 'code', block: true, text: text.slice(i + 3, end) });
        i = end + 3;
        continue;
      }
    }
    if (ch === '`' && canOpen(text, i)) {
      const end = findClose(text, '`', i + 1, false);
      if (end > 0) {
        flush();
        out.push({ kind: 'code', block: false, text: text.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    const style = STYLES[ch];
    if (style && canOpen(text, i)) {
      const end = findClose(text, ch, i + 1, false);
      if (end > 0) {
        flush();
        out.push({ kind: 'style', style, children: parseWhatsApp(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

/** The text without its markers: for titles, tooltips and anything that cannot hold elements. */
export function plainWhatsApp(text: string): string {
  const one = (s: Segment): string => {
    if (s.kind === 'link') return s.href;
    if (s.kind === 'style') return walk(s.children);
    return s.text;
  };
  const walk = (segments: Segment[]): string => segments.map(one).join('');
  return walk(parseWhatsApp(text));
}
