import { tenantFetch } from './outbound-fetch.js';
import type { Clock } from '../../lib/clock.js';
import {
  AutomationError,
  type IntegrationRow,
  type IntegrationRuntime,
  type Outcome,
  type Reply,
  type RunInput,
  type RuntimeLog,
} from './runtime.js';

export const TYPEBOT_TIMEOUT_MS = 15_000;

/** One node of Typebot's rich text (Slate): text leaves with marks, elements with children. */
interface RichNode {
  type?: string;
  text?: string;
  bold?: boolean;
  italic?: boolean;
  strikethrough?: boolean;
  url?: string;
  children?: RichNode[];
}

interface Bubble {
  type: string;
  content?: {
    type?: string;
    richText?: RichNode[];
    markdown?: string;
    html?: string;
    plainText?: string;
    url?: string;
  };
}

interface ChoiceItem {
  id?: string;
  content?: string;
}

interface TypebotAnswer {
  sessionId?: string;
  messages?: Bubble[];
  input?: { type?: string; items?: ChoiceItem[] } | null;
}

/** Session state kept between messages (ticket_automations.data). */
interface TypebotData {
  /** The choices offered by the last answer: the customer answers by number or text. */
  choices?: string[];
  /** The last answer waits for input (false: the flow ended). */
  waiting?: boolean;
}

/** A leaf with WhatsApp's marks: *bold*, _italic_, ~strike~ (spaces kept outside the marks). */
function mark(text: string, n: RichNode): string {
  let out = text;
  const wrap = (s: string, m: string) => {
    const lead = /^\s*/.exec(s)![0];
    const trail = /\s*$/.exec(s)![0];
    const core = s.trim();
    return core ? `${lead}${m}${core}${m}${trail}` : s;
  };
  if (n.bold) out = wrap(out, '*');
  if (n.italic) out = wrap(out, '_');
  if (n.strikethrough) out = wrap(out, '~');
  return out;
}

function flattenNode(n: RichNode): string {
  if (typeof n.text === 'string') return mark(n.text, n);
  const inner = (n.children ?? []).map(flattenNode).join('');
  if (n.type === 'a' && n.url && inner.trim() && inner.trim() !== n.url) return `${inner} (${n.url})`;
  if (n.type === 'a' && n.url) return n.url;
  if (n.type === 'ol' || n.type === 'ul')
    return (n.children ?? [])
      .map((li, i) => `${n.type === 'ol' ? `${i + 1}.` : '•'} ${flattenNode(li)}`)
      .join('\n');
  return inner;
}

/** Typebot's rich text flattened to WhatsApp formatting: one line per paragraph. */
export function richTextToWhatsApp(nodes: RichNode[]): string {
  return nodes
    .map(flattenNode)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** What one bubble becomes in WhatsApp: text, or a media bubble's link (never fetched by Recado). */
export function bubbleText(b: Bubble): string {
  const c = b.content ?? {};
  if (b.type === 'text') {
    if (c.richText) return richTextToWhatsApp(c.richText);
    return (c.markdown ?? c.plainText ?? '').trim();
  }
  if (['image', 'video', 'audio', 'embed', 'file'].includes(b.type) && c.url) return c.url;
  return '';
}

const MEDIA_BUBBLES = ['image', 'video', 'audio', 'file'] as const;
/** What one bubble is sent as: a media bubble with an http(s) URL as that media (the engine fetches it). */
export function bubbleReply(b: Bubble): Reply {
  const url = b.content?.url;
  const kind = MEDIA_BUBBLES.find((k) => k === b.type);
  if (kind && url && /^https?:\/\//i.test(url)) return { media: { url, kind } };
  return bubbleText(b);
}

/** A choice list as a numbered WhatsApp text. */
const choiceList = (items: string[]) => items.map((c, i) => `*${i + 1}* - ${c}`).join('\n');

/** The customer's answer to a choice list: by number or by the option's text (accents and case ignored). */
export function pickChoice(choices: string[], text: string): string | null {
  const fold = (s: string) =>
    s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
  const t = fold(text);
  if (/^\d+$/.test(t)) return choices[Number(t) - 1] ?? null;
  return choices.find((c) => fold(c) === t) ?? null;
}

/**
 * Typebot's chat API (docs.typebot.io, "API > Start chat / Continue chat"):
 * `POST {url}/api/v1/typebots/{publicId}/startChat` `{ prefilledVariables }` → `{ sessionId, messages, input }`,
 * then `POST {url}/api/v1/sessions/{sessionId}/continueChat` `{ message: { type: 'text', text } }` for each
 * answer (`textBubbleContentFormat: 'richText'` on both). The integration's URL is the tenant's: reached
 * through safeFetch only.
 */
export function typebotRuntime(deps: {
  clock: Clock;
  allowPrivateUrls: boolean;
  log: RuntimeLog;
  timeoutMs?: number;
}): IntegrationRuntime {
  const base = (i: IntegrationRow) => i.urlN8N.replace(/\/+$/, '');

  async function call(
    i: IntegrationRow,
    ticketId: number,
    path: string,
    body: unknown,
  ): Promise<{ status: number; answer: TypebotAnswer }> {
    deps.log.info({ ticketId, integrationId: i.id, call: path.split('/')[3] }, 'typebot request');
    let res: Response;
    try {
      res = await tenantFetch({
        allowPrivate: deps.allowPrivateUrls,
        timeoutMs: deps.timeoutMs ?? TYPEBOT_TIMEOUT_MS,
        maxBytes: 2_000_000,
      })(`${base(i)}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (err) {
      const name = err instanceof Error ? (err.name === 'Error' ? err.message : err.name) : 'unknown';
      throw new AutomationError(`Typebot inacessível (${name.slice(0, 80)})`);
    }
    if (res.status === 404) return { status: 404, answer: {} };
    if (!res.ok) throw new AutomationError(`Typebot respondeu ${res.status}`);
    let answer: TypebotAnswer;
    try {
      answer = (await res.json()) as TypebotAnswer;
    } catch {
      throw new AutomationError('Typebot respondeu algo que não é JSON');
    }
    return { status: res.status, answer };
  }

  async function start(i: IntegrationRow, input: RunInput) {
    const { status, answer } = await call(
      i,
      input.ticket.id,
      `/api/v1/typebots/${encodeURIComponent(i.typebotSlug)}/startChat`,
      {
        textBubbleContentFormat: 'richText',
        prefilledVariables: {
          name: input.contact.name,
          number: input.contact.number,
          pushName: input.contact.name,
          ticketId: input.ticket.id,
        },
      },
    );
    if (status === 404) throw new AutomationError(`fluxo "${i.typebotSlug}" não encontrado no Typebot`);
    if (!answer.sessionId) throw new AutomationError('Typebot não devolveu sessionId');
    return answer;
  }

  /** The replies and the session of one Typebot answer. */
  function outcomeOf(i: IntegrationRow, answer: TypebotAnswer, before: string[] = []): Outcome {
    const replies: Reply[] = [
      ...before,
      ...(answer.messages ?? []).map(bubbleReply).filter((r) => typeof r !== 'string' || r.trim()),
    ];
    const choices =
      answer.input?.type === 'choice input'
        ? (answer.input.items ?? []).map((c) => (c.content ?? '').trim()).filter(Boolean)
        : [];
    if (choices.length) replies.push(choiceList(choices));
    const data: TypebotData = { choices, waiting: Boolean(answer.input) };
    return {
      replies,
      delayMs: i.typebotDelayMessage,
      session: { id: answer.sessionId ?? null, data: data as Record<string, unknown> },
      // A flow that asks nothing more has ended: people take the ticket from here.
      handoff: !answer.input,
    };
  }

  return {
    kind: 'typebot',
    label: 'Typebot',
    async run(input) {
      const i = input.integration;
      const text = input.text.trim();
      const fold = (s: string) => s.trim().toLowerCase();
      if (i.typebotKeywordFinish && fold(text) === fold(i.typebotKeywordFinish))
        return { replies: [], handoff: true, session: { id: null, data: null } };
      if (i.typebotKeywordRestart && fold(text) === fold(i.typebotKeywordRestart)) {
        const answer = await start(i, input);
        return outcomeOf(i, answer, i.typebotRestartMessage ? [i.typebotRestartMessage] : []);
      }
      const { sessionId, sessionAt } = input.state;
      const data = (input.state.data ?? {}) as TypebotData;
      const expired =
        i.typebotExpires > 0 &&
        sessionAt !== null &&
        deps.clock.now().getTime() - sessionAt.getTime() > i.typebotExpires * 60_000;
      // First message, or an idle session: a fresh start (the customer's first text only opens it).
      if (!sessionId || expired) return outcomeOf(i, await start(i, input));
      let message = text;
      if (data.choices?.length) {
        const picked = pickChoice(data.choices, text);
        if (!picked)
          return {
            replies: i.typebotUnknownMessage ? [i.typebotUnknownMessage] : [choiceList(data.choices)],
          };
        message = picked;
      }
      if (!message) return { replies: i.typebotUnknownMessage ? [i.typebotUnknownMessage] : [] };
      const { status, answer } = await call(
        i,
        input.ticket.id,
        `/api/v1/sessions/${encodeURIComponent(sessionId)}/continueChat`,
        // The message object of the current API reference (very old self-hosted Typebots took a plain string);
        // text bubbles come back as rich text (Slate).
        { message: { type: 'text', text: message }, textBubbleContentFormat: 'richText' },
      );
      // Typebot forgot the session (expired on its side): start again.
      if (status === 404) return outcomeOf(i, await start(i, input));
      return outcomeOf(i, { ...answer, sessionId });
    },
  };
}
