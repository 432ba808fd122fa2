import type { FlowGraph, FlowNode, FlowNodeOf, FlowNodeType, FlowOption } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import type { contacts, tickets, whatsapps } from '../../db/schema/index.js';
import type { DomainBus } from '../../events/domain-events.js';
import type { OutboxBus } from '../../events/outbox.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { InteractiveSend } from '../../messaging/channel.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { AutomationService } from '../automation/automation-service.js';
import type { MessageService } from '../messages/message-service.js';
import type { EmitTicket } from '../tickets/ticket-service.js';

/**
 * NODE EXECUTORS (docs/flows.md#runtime): what one node type does when a run reaches it or when something
 * happens while the run stands on it. The engine (flow-runtime.ts) owns everything else — loading and
 * locking the run, idempotency per message, the step bound, durable timers, moving along edges, ending runs,
 * handing a failed node's ticket to people — so an executor only decides and acts for its node.
 *
 * Registering one (the "flownodes" helper's http / ai_prompt / typebot / n8n live in their own files):
 *
 * ```ts
 * // server/src/modules/flows/nodes/http-node.ts
 * import { registerFlowNodeExecutor } from '../flow-executors.js';
 * registerFlowNodeExecutor('http', {
 *   async execute(ctx) {               // ctx.node is typed FlowNodeOf<'http'>
 *     const url = ctx.render(ctx.node.data.url);
 *     ...                              // ctx.deps: db, clock, jobs, messages, emitTicket, bus, box, media, config
 *     return { exit: 'success', variables: { customerName: 'Ana' } };
 *   },
 * });
 * // and one import line in server/src/modules/flows/nodes/integrations.ts: import './http-node.js';
 * ```
 *
 * The engine calls `execute(ctx)` with `ctx.event`:
 * - `{ kind: 'enter' }` — the run just arrived at the node (always first);
 * - `{ kind: 'message', message }` — a customer message while the run WAITS or is HELD on this node
 *   (only for nodes that answered `hold`); already claimed: a redelivery never reaches the executor twice;
 * - `{ kind: 'timer', name }` — a timer the node asked for (`hold.timer`) fired (a durable job; survives
 *   restarts and other processes taking over; a stale timer of an older position never arrives);
 * - `{ kind: 'resume', data }` — something outside woke the held run: `runtime.resume(companyId, runId, data)`
 *   (e.g. the AI prompt's hand-off, the Typebot session's end). The executor answers an exit.
 *
 * Result:
 * - `{ exit: 'name' }` — leave by that exit (an edge from it → its target runs next in the same step; no
 *   edge → the run is completed). `variables` (merged into the run's) are saved with the move.
 * - `{ hold: { status: 'waiting' | 'held', state?, timer? } }` — stay here. `state` replaces the node's
 *   `ctx.nodeState` (e.g. retries); `timer: { name, minutes }` schedules the wake-up (replacing any earlier one).
 *   'waiting' = waits for the customer (question, wait), 'held' = another system holds the conversation.
 * - `{ end: 'completed' | 'transferred' }` — the run ends here (transfer, close): the executor already did
 *   the ticket's change. `{ fail: 'why' }` or a thrown error — the engine fails the run and hands the ticket
 *   to people (pending in its queue, chatbot off) with an internal note naming the node and the reason.
 */
export type FlowExecEvent =
  | { kind: 'enter' }
  | { kind: 'message'; message: FlowInboundMessage }
  | { kind: 'timer'; name: string }
  | { kind: 'resume'; data: Record<string, unknown> };

export interface FlowInboundMessage {
  /** The stored message's id (what idempotency keys on). */
  id: number;
  body: string;
  /** A button or list reply's id (Cloud API `interactive.button_reply.id` / `list_reply.id`). */
  replyId?: string | null;
  mediaType?: string | null;
}

export interface FlowExecResult {
  exit?: string;
  variables?: Record<string, unknown>;
  hold?: {
    status: 'waiting' | 'held';
    state?: Record<string, unknown>;
    timer?: { name: string; minutes: number };
  };
  end?: 'completed' | 'transferred';
  fail?: string;
}

export type TicketRow = typeof tickets.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;
export type ConnectionRow = typeof whatsapps.$inferSelect;

/** Services every executor may use (the same instances the rest of the app uses). */
export interface FlowDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  messages: MessageService;
  emitTicket: EmitTicket;
  /** The app's bus; the outbox's `stageStatement` when it has one (a step's event goes in its save). */
  bus: DomainBus & Partial<Pick<OutboxBus, 'stageStatement'>>;
  box: SecretBox;
  media: MediaStore;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  config: { allowPrivateUrls: boolean; openaiBaseUrl?: string };
  /**
   * The automation engine's hold (ai_prompt / typebot / n8n nodes, nodes/automation-nodes.ts): hands the
   * ticket to a prompt or integration of the company; its end comes back as `automation.ended`. `onQueued`:
   * a transfer into a queue starts that queue's automation, as the bot's menu does.
   */
  automation?: Pick<AutomationService, 'engageForFlow' | 'onQueued'>;
}

export interface FlowSendOptions {
  options?: FlowOption[];
  /** buttons | list | text: numbered text (`1 - Label`) everywhere; see `interactive`. */
  optionsDisplay?: 'buttons' | 'list' | 'text';
  /**
   * The same options as reply buttons or a list (Cloud API connections; nodes/answers.ts interactiveOptions):
   * sent as such by channels that have them, the numbered text by the others.
   */
  interactive?: InteractiveSend;
  fileListId?: number | null;
  fileId?: number | null;
}

export interface FlowExecContext<T extends FlowNodeType = FlowNodeType> {
  companyId: number;
  run: {
    id: number;
    flowId: number;
    /** null for a try of the draft. */
    version: number | null;
    isTry: boolean;
    trigger: string;
  };
  node: FlowNodeOf<T>;
  graph: FlowGraph;
  ticket: TicketRow;
  contact: ContactRow;
  connection: ConnectionRow | null;
  /** The run's variables as they are now (read-only: return `variables` to change them). */
  variables: Readonly<Record<string, unknown>>;
  /** This node's own state (what the last `hold.state` saved); {} on enter. */
  nodeState: Readonly<Record<string, unknown>>;
  event: FlowExecEvent;
  now: Date;
  /** `{{name}}`, `{{contact.<field>}}`, `{{ticket.id}}`, answers by name: the run's values. */
  render(text: string): string;
  /** Sends to the customer on the ticket's connection (options as numbered text; files of a file list). */
  send(text: string, options?: FlowSendOptions): Promise<void>;
  /** Writes an internal note on the ticket (what a person sees when they take it). */
  note(text: string): Promise<void>;
  /**
   * Work the node's change sets off outside the flow (announcing a moved ticket, the queue's own
   * automation): run once the step's position is saved, in order; `saved` false when the run was
   * cancelled meanwhile (a person took the ticket). A failure is logged, never the step's.
   */
  afterStep(work: (saved: boolean) => Promise<void>): void;
  deps: FlowDeps;
}

export interface FlowNodeExecutor<T extends FlowNodeType = FlowNodeType> {
  execute(ctx: FlowExecContext<T>): Promise<FlowExecResult>;
}

type AnyExecutor = FlowNodeExecutor<FlowNodeType>;
const registry = new Map<FlowNodeType, AnyExecutor>();

/** Registers (or replaces) the executor of a node type. Executors are stateless: state is in ctx. */
export function registerFlowNodeExecutor<T extends FlowNodeType>(type: T, executor: FlowNodeExecutor<T>) {
  registry.set(type, executor as unknown as AnyExecutor);
}

/** The executor of a node, or undefined (the engine then fails the node: "no executor for <type>"). */
export const flowNodeExecutor = (node: FlowNode): AnyExecutor | undefined => registry.get(node.type);

/** Registered types (tests). */
export const registeredFlowNodeTypes = () => [...registry.keys()];
