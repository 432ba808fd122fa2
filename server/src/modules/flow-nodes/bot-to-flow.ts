import {
  type FlowEdge,
  type FlowGraph,
  type FlowNode,
  type FlowOption,
  emptyFlowGraph,
  questionOptionExit,
} from '@recado/contracts';

/** What the converter reads of a connection's queue menu (the bot's: docs/bot.md). */
export interface BotMenu {
  greetingMessage: string;
  outOfHoursMessage: string;
  /** The connection's queues in the bot's order (orderQueue, name, id). */
  queues: {
    id: number;
    name: string;
    greetingMessage: string;
    outOfHoursMessage: string;
    options: { id: number; parentId: number | null; title: string; message: string; option: string }[];
  }[];
  /** The company's `scheduleType` setting: company / queue hours are checked as the bot checks them. */
  scheduleType: string;
  /** sendGreetingMessageOneQueues: a single queue's greeting is sent. */
  greetOneQueue: boolean;
  /** The connection's maxUseBotQueues (invalid answers before the bot gives up; 0 = the default). */
  maxInvalidAnswers: number;
  /** timeUseBotQueues in minutes (0: no limit). */
  timeLimitMinutes: number;
  texts: { invalidAnswer: string; backLabel: string; outOfHours: string };
}

/** The bot's default for maxUseBotQueues 0 (bot-service.ts DEFAULT_MAX_INVALID_ANSWERS). */
const DEFAULT_MAX_INVALID = 3;
/** A question with no time limit on the bot waits this long in the flow (a day), then ends quietly. */
const NO_LIMIT_MINUTES = 24 * 60;
const X_STEP = 320;
const Y_STEP = 170;

/** Numeric keys in number order, then the others alphabetically (the bot's sortByKey). */
const byKey = <T extends { option: string }>(items: T[]) => {
  const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number.POSITIVE_INFINITY);
  return [...items].sort((a, b) => num(a.option) - num(b.option) || a.option.localeCompare(b.option));
};

/**
 * The flow equivalent of a connection's queue menu (POST /flows/convert, docs/flows.md "From the queue
 * menu"): the greeting with the queues as options (one queue: chosen at once), each queue's option tree as
 * option questions (with the way back as a last option), a leaf's message then a transfer to its queue; an
 * answer that matches nothing gets the bot's "invalid option" text up to its limit, then the run ends with
 * the ticket waiting (as the bot leaves it); company or queue hours as a business-hours condition in front.
 */
export function botMenuToFlow(menu: BotMenu): FlowGraph {
  const start = emptyFlowGraph().nodes[0]!;
  const nodes: FlowNode[] = [start];
  const edges: FlowEdge[] = [];
  const rows = new Map<number, number>();
  const place = (depth: number) => {
    const row = rows.get(depth) ?? 0;
    rows.set(depth, row + 1);
    return { x: depth * X_STEP, y: row * Y_STEP };
  };
  const link = (source: string, exit: string, target: string) =>
    edges.push({
      id: `e-${source}-${exit.replace(/[^A-Za-z0-9_-]/g, '_')}`,
      source,
      sourceHandle: exit,
      target,
    });
  const maxRetries = Math.min(
    10,
    Math.max(0, (menu.maxInvalidAnswers > 0 ? menu.maxInvalidAnswers : DEFAULT_MAX_INVALID) - 1),
  );
  const timeoutMinutes = menu.timeLimitMinutes > 0 ? menu.timeLimitMinutes : NO_LIMIT_MINUTES;

  function message(id: string, text: string, depth: number): string | null {
    if (!text.trim()) return null;
    nodes.push({
      id,
      type: 'message',
      position: place(depth),
      data: { label: undefined, text, options: [], optionsDisplay: 'text' },
    });
    return id;
  }

  function question(id: string, label: string, text: string, options: FlowOption[], depth: number) {
    nodes.push({
      id,
      type: 'question',
      position: place(depth),
      data: {
        label: label.slice(0, 100),
        // A question needs a text: a menu without a header still lists its options.
        text: text.trim() ? text : label,
        variable: 'menu',
        validation: 'option',
        options,
        optionsDisplay: 'text',
        retryMessage: menu.texts.invalidAnswer,
        maxRetries,
        timeoutMinutes,
      },
    });
  }

  /** A message (when there is one) then the transfer; answers the first node's id. */
  function toQueue(prefix: string, text: string, queueId: number, depth: number): string {
    const transfer = `${prefix}-transfer`;
    const first = message(`${prefix}-message`, text, depth);
    nodes.push({
      id: transfer,
      type: 'transfer',
      position: place(first ? depth + 1 : depth),
      data: { label: undefined, target: 'queue', queueId, note: '' },
    });
    if (first) link(first, 'next', transfer);
    return first ?? transfer;
  }

  /** Queue-level hours in front of a queue: closed → its out-of-hours text, then it waits in the queue. */
  function hoursGate(q: BotMenu['queues'][number], inner: string, depth: number): string {
    if (menu.scheduleType !== 'queue') return inner;
    const id = `q${q.id}-hours`;
    nodes.push({
      id,
      type: 'condition',
      position: place(depth - 1),
      data: {
        label: `${q.name}: open?`.slice(0, 100),
        mode: 'all',
        rules: [{ id: 'open', kind: 'business_hours', op: 'open', queueId: q.id }],
      },
    });
    link(id, 'true', inner);
    const closedText = q.outOfHoursMessage.trim() ? q.outOfHoursMessage : menu.texts.outOfHours;
    link(id, 'false', toQueue(`q${q.id}-closed`, closedText, q.id, depth));
    return id;
  }

  /** One level of a queue's tree: its question, each option's subtree, the way back to `back`. */
  function level(
    q: BotMenu['queues'][number],
    parent: { id: number | null; header: string; label: string },
    back: string | null,
    depth: number,
  ): string {
    const children = byKey(q.options.filter((o) => o.parentId === parent.id));
    const id = parent.id === null ? `q${q.id}-menu` : `o${parent.id}-menu`;
    const options: FlowOption[] = children.map((o) => ({ id: `o${o.id}`, label: o.title.slice(0, 100) }));
    if (back) options.push({ id: 'back', label: menu.texts.backLabel.slice(0, 100) || 'Voltar' });
    question(id, parent.label, parent.header, options, depth);
    for (const o of children) {
      const below = q.options.some((c) => c.parentId === o.id);
      const target = below
        ? level(q, { id: o.id, header: o.message, label: o.title }, id, depth + 1)
        : toQueue(`o${o.id}`, o.message, q.id, depth + 1);
      link(id, questionOptionExit(`o${o.id}`), target);
    }
    if (back) link(id, questionOptionExit('back'), back);
    return id;
  }

  /** A chosen queue: its tree, or its greeting and the transfer. */
  function queueBranch(q: BotMenu['queues'][number], back: string | null, greet: boolean, depth: number) {
    const hasTree = q.options.some((o) => o.parentId === null);
    const inner = hasTree
      ? level(q, { id: null, header: q.greetingMessage, label: q.name }, back, depth + 1)
      : toQueue(`q${q.id}`, greet ? q.greetingMessage : '', q.id, depth + 1);
    return hoursGate(q, inner, depth + 1);
  }

  let first: string | null;
  if (menu.queues.length === 0) {
    // No queues: the bot only greets.
    first = message('greeting', menu.greetingMessage, 1);
  } else if (menu.queues.length === 1) {
    first = queueBranch(menu.queues[0]!, null, menu.greetOneQueue, 0);
  } else {
    const options = menu.queues.map((q) => ({ id: `q${q.id}`, label: q.name.slice(0, 100) }));
    question('queues', 'Menu', menu.greetingMessage, options, 1);
    for (const q of menu.queues)
      link('queues', questionOptionExit(`q${q.id}`), queueBranch(q, 'queues', true, 1));
    first = 'queues';
  }
  if (first && menu.scheduleType === 'company') {
    nodes.push({
      id: 'hours',
      type: 'condition',
      position: place(0.5),
      data: { label: 'Open?', mode: 'all', rules: [{ id: 'open', kind: 'business_hours', op: 'open' }] },
    });
    const closedText = menu.outOfHoursMessage.trim() ? menu.outOfHoursMessage : menu.texts.outOfHours;
    const closed = message('closed', closedText, 1);
    link('hours', 'true', first);
    if (closed) link('hours', 'false', closed);
    first = 'hours';
  }
  if (first) link(start.id, 'next', first);
  return { nodes, edges };
}
