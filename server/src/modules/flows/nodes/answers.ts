import {
  isValidCnpj,
  isValidCpf,
  onlyDigits,
  type FlowOption,
  type QuestionValidation,
} from '@recado/contracts';
import type { InteractiveSend } from '../../../messaging/channel.js';

/** Lower case, no accents, single spaces: how answers and keywords are compared. */
export const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

/** Options as numbered lines under the text (what every channel stores, and sends without interactive messages). */
export function numberedOptions(text: string, options: FlowOption[]): string {
  if (!options.length) return text;
  const lines = options.map((o, i) => `*${i + 1}* - ${o.label}`).join('\n');
  return text.trim() ? `${text}\n\n${lines}` : lines;
}

/** Graph's limits (WhatsApp Cloud API interactive messages). */
const BUTTONS_MAX = 3;
const BUTTON_TITLE_MAX = 20;
const BUTTON_BODY_MAX = 1024;
const LIST_ROWS_MAX = 10;
const ROW_TITLE_MAX = 24;
const ROW_DESCRIPTION_MAX = 72;
const LIST_BODY_MAX = 4096;
/** The list's button (what the customer taps to open it). */
export const LIST_BUTTON_LABEL = 'Ver opções';

/** The id an option's button or list row carries: the node's and the option's, so a stale reply is told apart. */
export const optionReplyId = (nodeId: string, optionId: string) => `${nodeId}:${optionId}`;

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/**
 * Options as a WhatsApp Cloud API interactive message (docs/flows.md#buttons-and-lists): reply buttons when the
 * node asks for buttons and they fit (at most 3, titles of at most 20 characters), otherwise a list (at most
 * 10 rows; a label longer than a row's 24-character title is cut there and given whole, up to 72, as the
 * row's description). Undefined — numbered text — for `text`, no options, or no text to carry them.
 */
export function interactiveOptions(
  nodeId: string,
  text: string,
  options: FlowOption[],
  display: 'buttons' | 'list' | 'text' | undefined,
): InteractiveSend | undefined {
  if (!options.length || display === 'text' || !text.trim()) return undefined;
  if (
    display !== 'list' &&
    options.length <= BUTTONS_MAX &&
    options.every((o) => o.label.length <= BUTTON_TITLE_MAX) &&
    text.length <= BUTTON_BODY_MAX
  )
    return {
      type: 'button',
      body: { text },
      action: {
        buttons: options.map((o) => ({
          type: 'reply' as const,
          reply: { id: optionReplyId(nodeId, o.id), title: o.label },
        })),
      },
    };
  if (options.length > LIST_ROWS_MAX || text.length > LIST_BODY_MAX) return undefined;
  return {
    type: 'list',
    body: { text },
    action: {
      button: LIST_BUTTON_LABEL,
      sections: [
        {
          rows: options.map((o) => ({
            id: optionReplyId(nodeId, o.id),
            title: cut(o.label, ROW_TITLE_MAX),
            ...(o.label.length > ROW_TITLE_MAX ? { description: cut(o.label, ROW_DESCRIPTION_MAX) } : {}),
          })),
        },
      ],
    },
  };
}

/** The option a button or list reply chose on this node (its id), or undefined (typed text, another node's). */
export function pickReply(
  nodeId: string,
  replyId: string | null | undefined,
  options: FlowOption[],
): FlowOption | undefined {
  if (!replyId) return undefined;
  return options.find((o) => optionReplyId(nodeId, o.id) === replyId);
}

/** The option an answer names: its number, its label or its value (case and accents ignored). */
export function pickOption(answer: string, options: FlowOption[]): FlowOption | undefined {
  const a = fold(answer).replace(/^\*|\*$/g, '');
  if (!a) return undefined;
  const n = Number(a);
  if (Number.isInteger(n) && n >= 1 && n <= options.length) return options[n - 1];
  return options.find((o) => fold(o.label) === a || (o.value !== undefined && fold(o.value) === a));
}

/** Reads "1.234,56", "1234.56", "-3" as a number; null when it is not one. */
export function readNumber(s: string): number | null {
  let t = s.trim().replace(/\s/g, '');
  if (!/^-?[\d.,]+$/.test(t)) return null;
  if (t.includes(',')) t = t.replace(/\./g, '').replace(',', '.');
  else if ((t.match(/\./g) ?? []).length > 1) t = t.replace(/\./g, '');
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** dd/mm/yyyy (or dd-mm-yyyy, dd.mm.yyyy, yyyy-mm-dd) → yyyy-mm-dd when it is a real date. */
export function readDate(s: string): string | null {
  const t = s.trim();
  let y: number, m: number, d: number;
  let r = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(t);
  if (r) [d, m, y] = [Number(r[1]), Number(r[2]), Number(r[3])];
  else if ((r = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t))) [y, m, d] = [Number(r[1]), Number(r[2]), Number(r[3])];
  else return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * A question's answer, validated and normalised (docs/flows.md#node-types-and-exits): the value to store, or
 * null when invalid. `option` also says which option was chosen.
 */
export function readAnswer(
  validation: QuestionValidation,
  raw: string,
  options: FlowOption[],
): { value: string | number; option?: FlowOption } | null {
  const s = raw.trim();
  if (!s) return null;
  switch (validation) {
    case 'text':
      return { value: s };
    case 'number': {
      const n = readNumber(s);
      return n === null ? null : { value: n };
    }
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(s) ? { value: s.toLowerCase() } : null;
    case 'phone': {
      const d = onlyDigits(s);
      return /^[\d\s()+.-]+$/.test(s) && d.length >= 10 && d.length <= 13 ? { value: d } : null;
    }
    case 'cpf':
      return isValidCpf(s) && /^[\d.\s-]+$/.test(s) ? { value: onlyDigits(s) } : null;
    case 'cnpj':
      return isValidCnpj(s) && /^[\d./\s-]+$/.test(s) ? { value: onlyDigits(s) } : null;
    case 'cpf_cnpj':
      return (isValidCpf(s) || isValidCnpj(s)) && /^[\d./\s-]+$/.test(s) ? { value: onlyDigits(s) } : null;
    case 'date': {
      const d = readDate(s);
      return d ? { value: d } : null;
    }
    case 'option': {
      const o = pickOption(s, options);
      return o ? { value: o.value || o.label, option: o } : null;
    }
  }
}
