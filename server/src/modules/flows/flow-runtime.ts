import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import {
  FLOW_TRY_EVENT,
  MAX_FLOW_STEPS_PER_MESSAGE,
  SETTING_DEFAULTS,
  flowTryRoom,
  type FlowGraph,
  type FlowNode,
  type FlowRunStatus,
  type FlowTryEvent,
  type DaySchedule,
  customFieldText,
} from '@recado/contracts';
import {
  contactCustomFields,
  contacts,
  files,
  filesOptions,
  flowRuns,
  flows,
  flowVersions,
  ticketHistories,
  ticketNotes,
  tickets,
  whatsapps,
} from '../../db/schema/index.js';
import { executeRows, preparedQuery, rowOf } from '../../db/rows.js';
import type { Db, Tx } from '../../db/client.js';
import { defineJob, noPayload } from '../../jobs/job-queue.js';
import { mimeOf } from '../../http/uploads.js';
import type { Events } from '../../realtime/events.js';
import type { EmitMeta } from '../../events/bus.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import { readSettings } from '../settings/setting-service.js';
import { closedPeriodKey } from '../bot/business-hours.js';
import {
  flowNodeExecutor,
  type FlowDeps,
  type FlowExecContext,
  type FlowExecEvent,
  type FlowExecResult,
  type FlowInboundMessage,
  type FlowSendOptions,
  type TicketRow,
} from './flow-executors.js';
import { fold, numberedOptions } from './nodes/answers.js';
import './nodes/builtin-nodes.js';
import './nodes/integrations.js';

type RunRow = typeof flowRuns.$inferSelect;
type Step = { nodeId: string; kind: 'start' | 'enter' | 'exit' | 'end'; exit?: string };

/** The engine's own key in a run's node_state: the pending timer (name and when), kept across retries. */
const TIMER_KEY = '__timer';
/** processed_message_ids keeps this many of the latest message ids. */
const PROCESSED_KEEP = 50;
const ACTIVE: FlowRunStatus[] = ['running', 'waiting', 'held'];

/** What commits with a step's messages (messageService.deliverMany's `also`). */
type FlushAlso = { name: string; returning?: SQL; others?: SQL[]; afterReturning?: SQL[] };

/** A step's ticket, contact (with its custom fields) and connection: one prepared statement (flowRuntime). */
export const loadTicketQuery = preparedQuery((db: Db) =>
  db
    .select({
      ticket: tickets,
      contact: contacts,
      connection: whatsapps,
      extra: sql<unknown>`coalesce((select json_agg(json_build_object('name', f.name, 'value', f.value) order by f.id)
          from ${contactCustomFields} f where f.contact_id = ${contacts.id}), '[]'::json)`,
    })
    .from(tickets)
    .innerJoin(contacts, eq(contacts.id, tickets.contactId))
    .leftJoin(whatsapps, eq(whatsapps.id, tickets.whatsappId))
    .where(
      and(eq(tickets.id, sql.placeholder('ticketId')), eq(tickets.companyId, sql.placeholder('companyId'))),
    )
    .prepare('flow_load_ticket'),
);

/**
 * loadTicketQuery's row as JSON, for the pre-check to read with everything else: only when the ticket has an
 * active run or the connection a flow (a message no flow concerns costs nothing more).
 */
export const loadedJson = (
  companyId: number,
  ticketId: number,
  whatsappId: number,
) => sql`(select json_build_object(
    'ticket', row_to_json(t), 'contact', row_to_json(c), 'connection', case when w.id is null then null else row_to_json(w) end,
    'extra', coalesce((select json_agg(json_build_object('name', f.name, 'value', f.value) order by f.id)
      from contact_custom_fields f where f.contact_id = c.id), '[]'::json))
  from tickets t join contacts c on c.id = t.contact_id left join whatsapps w on w.id = t.whatsapp_id
  where t.id = ${ticketId} and t.company_id = ${companyId}
    and (exists (select 1 from flow_runs where ticket_id = ${ticketId} and status in ('running', 'waiting', 'held'))
      or exists (select 1 from whatsapps w2 where w2.id = ${whatsappId} and w2.company_id = ${companyId}
        and w2.flow_id is not null)))`;

type Contact = typeof contacts.$inferSelect;
/** What a step works with: the ticket, its contact (with its custom fields) and its connection. */
export type FlowTicketLoad = {
  ticket: TicketRow;
  contact: Contact;
  connection: typeof whatsapps.$inferSelect | null;
  extra: { name: string; value: string }[];
};

/** What the pre-check read of the ticket (`loadedJson`), as loadTicket answers it. */
export function loadedFromJson(raw: unknown): FlowTicketLoad | null {
  if (raw === null || raw === undefined) return null;
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
    ticket: Record<string, unknown>;
    contact: Record<string, unknown>;
    connection: Record<string, unknown> | null;
    extra: FlowTicketLoad['extra'];
  };
  return {
    ticket: rowOf(tickets, j.ticket),
    contact: rowOf(contacts, j.contact),
    connection: j.connection ? rowOf(whatsapps, j.connection) : null,
    extra: j.extra,
  };
}

/** The claim of an active run for a customer message (the common claim): one prepared statement. */
const claimForMessageQuery = preparedQuery((db: Db) =>
  db
    .update(flowRuns)
    .set({
      seq: sql`${flowRuns.seq} + 1`,
      updatedAt: sql`${sql.placeholder('now')}::timestamptz`,
      processedMessageIds: sql`(array_append(${flowRuns.processedMessageIds}, ${sql.placeholder('mid')}::text))[greatest(1, cardinality(${flowRuns.processedMessageIds}) + 2 - ${PROCESSED_KEEP}):]`,
    })
    .where(
      and(
        eq(flowRuns.id, sql.placeholder('id')),
        eq(flowRuns.seq, sql.placeholder('seq')),
        inArray(flowRuns.status, ACTIVE),
        sql`not (${sql.placeholder('mid')}::text = any(${flowRuns.processedMessageIds}))`,
      ),
    )
    .returning()
    .prepare('flow_claim_for_message'),
);

/** Start-node triggers as stored on flows.triggers at publish. */
export interface FlowTriggers {
  keywords: string[];
  keywordMatch: 'exact' | 'contains';
  priority: number;
  campaignReply: boolean;
  campaignIds: number[];
  outOfHours: boolean;
}

/**
 * The flow runtime (docs/flows.md#runtime): starts runs, advances them one step per inbound message, timer or
 * resume, and ends them. Position and variables live in `flow_runs`; every move first CLAIMS the run (a
 * conditional UPDATE on its `seq`, recording the message id), so a redelivered message or a stale timer
 * never advances it twice, whichever process runs it.
 */
export function flowRuntime(deps: FlowDeps & { events: Events }) {
  const { db, clock, log } = deps;

  // ---- graphs ------------------------------------------------------------------------------------------

  /** Published graphs are immutable: cached by version id. */
  const versionCache = new Map<number, FlowGraph>();
  async function graphOf(run: RunRow): Promise<FlowGraph | null> {
    if (run.tryGraph) return run.tryGraph;
    if (!run.versionId) return null;
    const hit = versionCache.get(run.versionId);
    if (hit) return hit;
    const [v] = await db
      .select({ graph: flowVersions.graph })
      .from(flowVersions)
      .where(eq(flowVersions.id, run.versionId));
    if (!v) return null;
    if (versionCache.size > 500) versionCache.clear();
    versionCache.set(run.versionId, v.graph);
    return v.graph;
  }

  const nodeName = (n: FlowNode) => (n.data.label ? `"${n.data.label}" (${n.id})` : n.id);

  // ---- variables ---------------------------------------------------------------------------------------

  async function customFields(contactId: number) {
    return db.select().from(contactCustomFields).where(eq(contactCustomFields.contactId, contactId));
  }

  type Loaded = FlowTicketLoad;

  /** The ticket and everything a step reads about it, in one statement. */
  async function loadTicket(companyId: number, ticketId: number): Promise<Loaded | null> {
    const [row] = await loadTicketQuery(db).execute({ companyId, ticketId });
    if (!row) return null;
    const extra = (typeof row.extra === 'string' ? JSON.parse(row.extra) : row.extra) as Loaded['extra'];
    return { ticket: row.ticket, contact: row.contact, connection: row.connection, extra };
  }

  function renderer(
    vars: Record<string, unknown>,
    contact: Contact,
    extra: { name: string; value: string }[],
    ticket: TicketRow,
  ) {
    const fieldOf = (f: string): unknown => {
      if (f === 'name') return contact.name;
      if (f === 'number') return contact.number;
      if (f === 'email') return contact.email;
      if (f === 'firstName') return contact.name.split(/\s+/)[0] ?? '';
      // #32.7 {{contact.custom.<key>}}: a typed custom field's value.
      if (f.startsWith('custom.')) return customFieldText(contact.customFields?.[f.slice(7).toLowerCase()]);
      return extra.find((x) => fold(x.name) === fold(f))?.value;
    };
    const value = (key: string): unknown => {
      if (key.startsWith('contact.')) return fieldOf(key.slice(8));
      if (key === 'ticket.id') return ticket.id;
      if (key === 'ticket.protocol' || key === 'protocol') return ticket.protocol || ticket.uuid; // #32.4
      if (key in vars) return vars[key];
      const nested = key.split('.');
      if (nested.length > 1 && nested[0]! in vars) {
        let v: unknown = vars[nested[0]!];
        for (const p of nested.slice(1))
          v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
        return v;
      }
      if (key === 'name' || key === 'number' || key === 'firstName') return fieldOf(key);
      return undefined;
    };
    return (text: string) =>
      text.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_, k: string) => {
        const v = value(k);
        if (v === undefined || v === null) return '';
        return typeof v === 'object' ? JSON.stringify(v) : String(v);
      });
  }

  // ---- sending -----------------------------------------------------------------------------------------

  async function send(
    companyId: number,
    ticket: TicketRow,
    runId: number,
    text: string,
    o: FlowSendOptions = {},
    checkpoint?: (tx: Tx) => Promise<void>,
    /** The ticket's contact and connection as the step holds them (deliver does not read them again). */
    known: { contact?: Contact; channel?: string } = {},
  ) {
    const body = numberedOptions(text, o.options ?? []);
    const data = { flowRunId: runId };
    const onStored = checkpoint ? (tx: Tx) => checkpoint(tx) : undefined;
    if (o.fileListId) {
      const [list] = await db
        .select()
        .from(files)
        .where(and(eq(files.id, o.fileListId), eq(files.companyId, companyId)));
      if (!list) throw new Error(`file list ${o.fileListId} not found`);
      const opts = await db
        .select()
        .from(filesOptions)
        .where(
          and(
            eq(filesOptions.fileId, list.id),
            eq(filesOptions.companyId, companyId),
            o.fileId ? eq(filesOptions.id, o.fileId) : undefined,
          ),
        )
        .orderBy(asc(filesOptions.id));
      if (o.fileId && !opts.length) throw new Error(`file ${o.fileId} not in file list ${list.id}`);
      let first = true;
      for (const f of opts.filter((x) => x.path)) {
        const filename = f.fileName || f.name || 'file';
        await deps.messages.deliver(
          companyId,
          ticket,
          {
            body: first ? body : '',
            userId: null,
            data,
            onStored,
            file: { data: await deps.media.read(f.path), mimetype: mimeOf(f.fileName || f.path), filename },
          },
          known,
        );
        first = false;
      }
      if (!first) return;
    }
    if (body.trim())
      await deps.messages.deliver(
        companyId,
        ticket,
        // Reply buttons / a list where the channel has them (Cloud API); `body` stays the numbered text.
        { body, userId: null, data, onStored, ...(o.interactive ? { interactive: o.interactive } : {}) },
        known,
      );
  }

  async function note(companyId: number, ticket: TicketRow, text: string) {
    if (!text.trim()) return;
    await db
      .insert(ticketNotes)
      .values({ companyId, ticketId: ticket.id, contactId: ticket.contactId, userId: null, note: text });
  }

  // ---- ticket changes ---------------------------------------------------------------------------------

  async function announce(
    companyId: number,
    before: TicketRow,
    after: TicketRow,
    action: 'update' | 'transfer' | 'close',
  ) {
    const view = await ticketQueries.byId(db, companyId, after.id);
    if (view)
      deps.emitTicket(companyId, view, {
        actor: 'bot',
        action,
        before: { status: before.status, queueId: before.queueId, userId: before.userId },
      });
  }

  /**
   * The bot marker on or off; `release`: the ticket also leaves its attendant (pending, nobody's). `known`:
   * the ticket as the caller read it in this step (not read again). Answers the ticket as it is now.
   */
  async function setChatbot(
    companyId: number,
    ticketId: number,
    on: boolean,
    release = false,
    known?: TicketRow,
    /** Announce later (the caller runs it once its step is saved): the row and the announcement apart. */
    later?: { announce?: () => Promise<void> },
  ): Promise<TicketRow | undefined> {
    const [before] =
      known?.id === ticketId
        ? [known]
        : await db
            .select()
            .from(tickets)
            .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
    const moves = release && (before?.status !== 'pending' || before?.userId !== null);
    if (!before || (before.chatbot === on && !moves)) return before;
    const [after] = await db
      .update(tickets)
      .set({ chatbot: on, ...(moves ? { status: 'pending', userId: null } : {}), updatedAt: clock.now() })
      .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)))
      .returning();
    // (A release is told at once: the record shows the ticket leaving its attendant before the flow's steps.)
    if (after && later && !moves) later.announce = () => announce(companyId, before, after, 'update');
    else if (after) await announce(companyId, before, after, moves ? 'transfer' : 'update');
    return after;
  }

  /** A failed node: the ticket goes to people (pending in its queue, bot off) with a note saying why. */
  async function handToPeople(companyId: number, ticketId: number, text: string) {
    const [before] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
    if (!before) return;
    await note(companyId, before, text);
    const [after] = await db
      .update(tickets)
      .set({
        chatbot: false,
        status: before.status === 'closed' ? before.status : 'pending',
        updatedAt: clock.now(),
      })
      .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)))
      .returning();
    if (after) {
      await db.insert(ticketHistories).values({
        companyId,
        ticketId,
        action: 'transfer',
        userId: null,
        queueId: after.queueId,
        whatsappId: after.whatsappId,
        status: after.status,
        data: { by: 'flow', reason: text },
      });
      await announce(companyId, before, after, 'transfer');
    }
  }

  // ---- events --------------------------------------------------------------------------------------------

  function tell(
    run: RunRow,
    nodeId: string | null,
    status: FlowRunStatus,
    vars: Record<string, unknown>,
    exit?: string,
    error?: string,
  ) {
    if (!run.tryGraph) return;
    const payload: FlowTryEvent = {
      flowId: run.flowId,
      runId: run.id,
      ticketId: run.ticketId,
      nodeId,
      status,
      variables: vars,
      ...(exit ? { exit } : {}),
      ...(error ? { error } : {}),
    };
    deps.events.toRoomNamed(flowTryRoom(run.companyId, run.flowId), FLOW_TRY_EVENT, payload);
  }

  // ---- the step ------------------------------------------------------------------------------------------

  /**
   * Nodes that only talk (or decide from what the run holds): their messages may wait for the step's batch.
   * Any other node (an HTTP call, a transfer, a wait, a tag…) sends what was said before it first.
   */
  function speaksOnly(node: FlowNode): boolean {
    switch (node.type) {
      case 'start':
      case 'question':
      case 'condition':
      case 'randomizer':
        return true;
      case 'message':
        return !node.data.fileListId;
      case 'set':
        return node.data.actions.every((a) => a.kind === 'variable');
      default:
        return false;
    }
  }

  /**
   * Claims the run for one move: bumps `seq` from what was read (and records the message id), so two
   * processes or a redelivery cannot both move it. Null: someone else moved it, it ended, or the message was
   * already taken.
   */
  async function claim(
    run: Pick<RunRow, 'id' | 'seq'>,
    messageId?: number,
    statuses: FlowRunStatus[] = ACTIVE,
  ): Promise<RunRow | null> {
    const mid = messageId === undefined ? null : String(messageId);
    if (mid && statuses === ACTIVE) {
      const [claimed] = await claimForMessageQuery(db).execute({
        id: run.id,
        seq: run.seq,
        mid,
        now: clock.now().toISOString(),
      });
      return claimed ?? null;
    }
    const [claimed] = await db
      .update(flowRuns)
      .set({
        seq: sql`${flowRuns.seq} + 1`,
        updatedAt: clock.now(),
        ...(mid
          ? {
              processedMessageIds: sql`(array_append(${flowRuns.processedMessageIds}, ${mid}::text))[greatest(1, cardinality(${flowRuns.processedMessageIds}) + 2 - ${PROCESSED_KEEP}):]`,
            }
          : {}),
      })
      .where(
        and(
          eq(flowRuns.id, run.id),
          eq(flowRuns.seq, run.seq),
          inArray(flowRuns.status, statuses),
          mid ? sql`not (${mid}::text = any(${flowRuns.processedMessageIds}))` : undefined,
        ),
      )
      .returning();
    return claimed ?? null;
  }

  const timerJob = defineJob({
    kind: 'flow.timer',
    payload: z.object({ runId: z.number().int(), seq: z.number().int(), name: z.string() }),
    handler: async (job) => {
      const { runId, seq, name } = job.payload;
      const [run] = await db.select().from(flowRuns).where(eq(flowRuns.id, runId));
      // A timer of a position the run has left (or a run that ended) does nothing.
      if (!run || run.seq !== seq || !ACTIVE.includes(run.status as FlowRunStatus)) return;
      const claimed = await claim(run);
      if (!claimed) return;
      await advance(claimed, { kind: 'timer', name });
    },
    options: { maxAttempts: 3 },
  });

  /**
   * Waits and question timeouts whose job is missing (docs/flows.md#runtime): a process that died after
   * saving a run as waiting and before scheduling its `flow.timer` left the run with its timer written in
   * node_state (`__timer`) and no job. Each run found (waiting, timer due or not, saved over `graceMs` ago,
   * no queued or running timer job, nor a failed one of this position) gets its job again, for the same
   * position (`seq`) and time, inside a transaction that re-reads the run locked: a run that moved meanwhile
   * is left alone (its own step scheduled its own timer).
   */
  async function rescheduleLostTimers(graceMs = 30_000): Promise<number> {
    const rows = await executeRows<{ id: number; company_id: number; seq: number; timer: unknown }>(
      db,
      sql`select r.id, r.company_id, r.seq, r.node_state -> ${TIMER_KEY} as timer from flow_runs r
        where r.status = 'waiting' and r.node_state -> ${TIMER_KEY} is not null
          and r.updated_at < ${new Date(clock.now().getTime() - graceMs)}
          and not exists (select 1 from jobs j where j.kind = ${timerJob.kind} and j.key = 'run:' || r.id
            and (j.status in ('queued', 'running') or (j.status = 'failed' and (j.payload ->> 'seq')::int = r.seq)))
        order by r.id limit 500`,
    );
    let n = 0;
    for (const r of rows) {
      const timer = (typeof r.timer === 'string' ? JSON.parse(r.timer) : r.timer) as {
        name?: unknown;
        at?: unknown;
      };
      const at = new Date(String(timer?.at));
      if (typeof timer?.name !== 'string' || Number.isNaN(at.getTime())) continue;
      await db.transaction(async (tx) => {
        const [still] = await tx
          .select({ id: flowRuns.id })
          .from(flowRuns)
          .where(and(eq(flowRuns.id, r.id), eq(flowRuns.seq, r.seq), eq(flowRuns.status, 'waiting')))
          .for('update');
        if (!still) return;
        await deps.jobs.schedule(
          timerJob,
          {
            key: `run:${r.id}`,
            runAt: at,
            companyId: r.company_id,
            payload: { runId: r.id, seq: r.seq, name: timer.name as string },
          },
          tx,
        );
        n++;
      });
    }
    if (n) log.warn({ runs: n }, 'flow timers rescheduled (their job was missing)');
    return n;
  }

  const timerSweepJob = defineJob({
    kind: 'flow.timer-sweep',
    payload: noPayload,
    handler: async () => {
      await rescheduleLostTimers();
    },
    options: { every: 60_000 },
  });

  /**
   * Runs the claimed run from its current node with `event`, node after node, until one holds, the run
   * ends, or the step bound is reached; then saves the position (same `seq`: nobody else can have moved it).
   */
  async function advance(
    run: RunRow,
    first: FlowExecEvent,
    opening: Step[] = [],
    /** The ticket as the caller read it in this step (onStored, start): not read again. */
    known?: Loaded | null,
    /** The caller's own work for after the step's save (start: the bot marker's announcement). */
    after: ((saved: boolean) => Promise<void>)[] = [],
  ): Promise<RunRow | undefined> {
    const companyId = run.companyId;
    const steps: Step[] = [...opening];
    let vars: Record<string, unknown> = { ...run.variables };
    let nodeState: Record<string, unknown> = { ...run.nodeState };
    let nodeId = run.currentNodeId;
    let event: FlowExecEvent = first;
    let status: FlowRunStatus = 'running';
    let error: string | undefined;
    let failedNode: FlowNode | undefined;
    let startFlow: number | null = null;
    let timer: { name: string; at: Date } | undefined;
    const pending: {
      body: string;
      interactive?: FlowSendOptions['interactive'];
      nodeId: string;
      vars: Record<string, unknown>;
    }[] = [];
    let flush: (
      also?: FlushAlso,
    ) => Promise<{ row: Record<string, unknown> | null; staged: boolean } | null> = async () => null;
    /** In the transaction storing a node's messages: the run stands ON that node (a crash never asks twice). */
    const checkpoint = async (tx: Tx, at: string, v: Record<string, unknown>) => {
      await tx
        .update(flowRuns)
        .set({ currentNodeId: at, variables: v, nodeState: {}, status: 'running' })
        .where(and(eq(flowRuns.id, run.id), eq(flowRuns.seq, run.seq)));
    };

    /** What nodes set off outside the flow (ctx.afterStep): run once the position is saved. */
    const afterStep: ((saved: boolean) => Promise<void>)[] = [...after];
    const runAfterStep = async (saved: boolean) => {
      for (const work of afterStep.splice(0))
        await work(saved).catch((err: unknown) =>
          log.warn({ err, runId: run.id, ticketId: run.ticketId }, 'flow: work after the step failed'),
        );
    };
    const graph = await graphOf(run);
    const row =
      known?.ticket.id === run.ticketId && known.ticket.companyId === companyId
        ? known
        : await loadTicket(companyId, run.ticketId);
    if (!graph || !row) {
      status = 'failed';
      error = !graph ? 'the flow version is gone' : 'the ticket is gone';
    } else {
      let extra = row.extra;
      let executed = 0;
      // The step's messages not stored yet (docs/flows.md "A step's messages"): stored and sent together,
      // in one transaction with the run's position — at the step's end, or before a node that acts outside
      // the conversation (an HTTP call, a transfer, a wait…) so that what was said before it is out first.
      flush = async (also) => {
        if (!pending.length) return null;
        const batch = pending.splice(0);
        const last = batch[batch.length - 1]!;
        try {
          const stored = await deps.messages.deliverMany(
            companyId,
            row.ticket,
            batch.map((b) => ({
              body: b.body,
              userId: null,
              data: { flowRunId: run.id },
              ...(b.interactive ? { interactive: b.interactive } : {}),
            })),
            { contact: row.contact, channel: row.connection?.channel },
            also ?? {
              name: 'flow_checkpoint',
              others: [
                sql`update flow_runs set current_node_id = ${last.nodeId}, variables = ${JSON.stringify(last.vars)}::jsonb,
                  node_state = '{}'::jsonb, status = 'running' where id = ${run.id} and seq = ${run.seq}`,
              ],
            },
          );
          return { row: stored.also, staged: stored.staged };
        } catch (err) {
          // The node that said it fails (as when its message went out alone).
          throw Object.assign(err instanceof Error ? err : new Error(String(err)), {
            flowNodeId: last.nodeId,
          });
        }
      };
      while (nodeId) {
        const node = graph.nodes.find((n) => n.id === nodeId);
        if (!node) {
          status = 'failed';
          error = `node ${nodeId} is not in the flow`;
          break;
        }
        if (event.kind === 'enter') {
          if (++executed > MAX_FLOW_STEPS_PER_MESSAGE) {
            status = 'failed';
            failedNode = node;
            error = `more than ${MAX_FLOW_STEPS_PER_MESSAGE} nodes in one step (a loop?)`;
            break;
          }
          nodeState = {};
          steps.push({ nodeId: node.id, kind: 'enter' });
          tell(run, node.id, 'running', vars);
        }
        let result: FlowExecResult;
        try {
          if (!speaksOnly(node)) await flush();
        } catch (err) {
          status = 'failed';
          failedNode = graph.nodes.find((n) => n.id === (err as { flowNodeId?: string }).flowNodeId) ?? node;
          error = err instanceof Error ? err.message : String(err);
          break;
        }
        try {
          if (node.type === 'transfer' && node.data.target === 'flow') {
            // Another flow: this run ends, the other starts on the same ticket (see below).
            startFlow = node.data.flowId ?? null;
            if (!startFlow) throw new Error('no flow chosen');
            result = { end: 'transferred' };
          } else {
            const executor = flowNodeExecutor(node);
            if (!executor) throw new Error(`no executor for ${node.type} nodes`);
            const render = renderer(vars, row.contact, extra, row.ticket);
            const ctx: FlowExecContext = {
              companyId,
              run: {
                id: run.id,
                flowId: run.flowId,
                version: run.version,
                isTry: Boolean(run.tryGraph),
                trigger: run.trigger,
              },
              node,
              graph,
              ticket: row.ticket,
              contact: row.contact,
              connection: row.connection,
              variables: vars,
              nodeState: Object.fromEntries(Object.entries(nodeState).filter(([k]) => k !== TIMER_KEY)),
              event,
              now: clock.now(),
              render,
              // The message and the run's position are stored together: a crash right after a send
              // leaves the run ON this node (its message out), never before it (asked twice).
              // A text joins the step's batch (stored with the run's position when the step ends or before
              // a node that acts outside); files still go one by one, after the batch.
              send: async (text, o = {}) => {
                if (!o.fileListId) {
                  const body = numberedOptions(text, o.options ?? []);
                  if (body.trim())
                    pending.push({ body, interactive: o.interactive, nodeId: node.id, vars: { ...vars } });
                  return;
                }
                await flush();
                await send(companyId, row.ticket, run.id, text, o, (tx) => checkpoint(tx, node.id, vars), {
                  contact: row.contact,
                  channel: row.connection?.channel,
                });
              },
              note: (text) => note(companyId, row.ticket, text),
              afterStep: (work) => void afterStep.push(work),
              deps,
            };
            result = await executor.execute(ctx);
          }
        } catch (err) {
          result = { fail: err instanceof Error ? err.message : String(err) };
        }
        if (result.variables) vars = { ...vars, ...result.variables };
        if (node.type === 'set' && node.data.actions.some((a) => a.kind === 'contact_field')) {
          // The contact changed: later nodes read its new fields.
          const [fresh] = await db.select().from(contacts).where(eq(contacts.id, row.contact.id));
          if (fresh) row.contact = fresh;
          extra = await customFields(row.contact.id);
        }
        if (result.fail !== undefined) {
          status = 'failed';
          failedNode = node;
          error = result.fail || 'failed';
          break;
        }
        if (result.hold) {
          status = result.hold.status;
          const kept = nodeState[TIMER_KEY] as { name: string; at: string } | undefined;
          nodeState = { ...(result.hold.state ?? nodeState) };
          if (result.hold.timer)
            timer = {
              name: result.hold.timer.name,
              at: new Date(clock.now().getTime() + result.hold.timer.minutes * 60_000),
            };
          else if (kept) timer = { name: kept.name, at: new Date(kept.at) };
          if (timer) nodeState[TIMER_KEY] = { name: timer.name, at: timer.at.toISOString() };
          break;
        }
        if (result.end) {
          status = 'completed';
          steps.push({ nodeId: node.id, kind: 'end', exit: result.end });
          nodeId = node.id;
          break;
        }
        const exit = result.exit ?? 'next';
        steps.push({ nodeId: node.id, kind: 'exit', exit });
        const edge = graph.edges.find((e) => e.source === node.id && e.sourceHandle === exit);
        tell(run, edge?.target ?? null, edge ? 'running' : 'completed', vars, exit);
        if (!edge) {
          status = 'completed';
          steps.push({ nodeId: node.id, kind: 'end', exit: 'completed' });
          break;
        }
        nodeId = edge.target;
        event = { kind: 'enter' };
      }
    }

    /** The run's timer job, while it waits (keyed by run; its `seq` makes a stale one do nothing). */
    const timerInput = () => ({
      key: `run:${run.id}`,
      runAt: timer!.at,
      companyId,
      payload: { runId: run.id, seq: run.seq, name: timer!.name },
    });
    /** The run's new position, on the `seq` it claimed (`ended_at` only when it ended). */
    const saveStatement = () => {
      const ended = status === 'completed' || status === 'failed';
      const now = clock.now().toISOString();
      return sql`update flow_runs set current_node_id = ${nodeId}, variables = ${JSON.stringify(vars)}::jsonb,
          node_state = ${JSON.stringify(ended ? {} : nodeState)}::jsonb, status = ${status}, error = ${error ?? null},
          updated_at = ${now}::timestamptz, ended_at = coalesce(${ended ? now : null}::timestamptz, ended_at)
          where id = ${run.id} and seq = ${run.seq} returning *`;
    };
    const waitsOnTimer = () => Boolean(timer) && status !== 'completed' && status !== 'failed';
    /** Without messages: the position, then its timer (a crash between: the timer sweep schedules it again). */
    /** An ended run whose position had a timer (node_state records it): its job goes with the last save. */
    const cancelsTimer = () =>
      (status === 'completed' || status === 'failed') && Boolean(run.nodeState?.[TIMER_KEY]);
    /** The step's `flow.steps` event as it stands (a failed run: its last step ends at the failed node). */
    const stepsEvent = () => ({
      companyId,
      flowId: run.flowId,
      runId: run.id,
      ticketId: run.ticketId,
      isTry: Boolean(run.tryGraph),
      steps:
        status === 'failed'
          ? [...steps, { nodeId: failedNode?.id ?? nodeId ?? '', kind: 'end' as const, exit: 'failed' }]
          : steps,
    });
    /**
     * The event's outbox row in the save's own statement, written only if the save changed the run (`when`,
     * naming the save's CTE): no statement of its own, and never a row for a step that was not saved.
     */
    const stageSteps = (when: SQL) => {
      const e = stepsEvent();
      if (!e.steps.length || !deps.bus.stageStatement) return null;
      const st = deps.bus.stageStatement([{ event: 'flow.steps', payload: e }], when);
      return st.statement ? { statement: st.statement, meta: st.metas[0], payload: e } : null;
    };
    /**
     * The outbox row a statement of this step wrote for its `flow.steps` (the save's, or the messages' whose
     * send then failed): the event is emitted with its meta, no second row.
     */
    let stepsRow: { meta: EmitMeta | undefined; payload: ReturnType<typeof stepsEvent> } | null = null;
    const save = async () => {
      const st = stepsRow ? null : stageSteps(sql`exists (select 1 from s)`);
      // The position, with the ended run's timer job and the step's event row when there are.
      const cancel = cancelsTimer();
      const ctes = [
        ...(cancel ? [sql`, d as (${deps.jobs.cancelStatement(timerJob, `run:${run.id}`)})`] : []),
        ...(st ? [sql`, o as (${st.statement})`] : []),
      ];
      const [raw] = await executeRows(
        db,
        sql`with s as (${saveStatement()})${sql.join(ctes, sql``)} select * from s`,
        `flow_save_run${cancel ? '_end' : ''}${st ? '_o' : ''}`,
      );
      if (raw && st) stepsRow = { meta: st.meta, payload: st.payload };
      if (raw && waitsOnTimer()) await deps.jobs.schedule(timerJob, timerInput());
      return raw ? rowOf(flowRuns, raw) : undefined;
    };
    let saved: RunRow | undefined;
    let savedWithMessages = false;
    if (pending.length) {
      // The step's last messages, its new position, its timer and its flow.steps event: one statement
      // (messageService.deliverMany).
      const st = stageSteps(sql`exists (select 1 from r)`);
      try {
        // A timer of a position the run has left (cancelled meanwhile) does nothing when it fires (its seq).
        const done = await flush({
          name: `${waitsOnTimer() ? 'flow_save_timer' : cancelsTimer() ? 'flow_save_end' : 'flow_save'}${st ? '_o' : ''}`,
          returning: saveStatement(),
          others: waitsOnTimer()
            ? [deps.jobs.scheduleStatement(timerJob, timerInput())]
            : cancelsTimer()
              ? [deps.jobs.cancelStatement(timerJob, `run:${run.id}`)]
              : [],
          afterReturning: st ? [st.statement] : [],
        });
        savedWithMessages = true;
        saved = done?.row ? rowOf(flowRuns, done.row) : undefined;
        if (saved && st && done?.staged) stepsRow = { meta: st.meta, payload: st.payload };
      } catch (err) {
        // Not stored (refused before), or stored and not sent: the run fails at the node that said it.
        failedNode =
          graph?.nodes.find((n) => n.id === (err as { flowNodeId?: string }).flowNodeId) ?? failedNode;
        nodeId = failedNode?.id ?? nodeId;
        status = 'failed';
        error = err instanceof Error ? err.message : String(err);
        savedWithMessages = false;
        // Stored, the statement also wrote the event's row: the save below writes no second one, and the
        // event (now ending at the failed node) goes out with that row's meta.
        if (st && (err as { staged?: boolean }).staged) stepsRow = { meta: st.meta, payload: stepsEvent() };
      }
    }
    const ended = status === 'completed' || status === 'failed';
    if (!savedWithMessages) saved = await save();
    if (!saved) {
      await runAfterStep(false);
      return undefined; // cancelled meanwhile (a person took the ticket)
    }

    tell(run, ended ? null : nodeId, status, vars, undefined, error);
    const told = stepsRow ?? { payload: stepsEvent(), meta: undefined };
    if (told.payload.steps.length) void deps.bus.emit('flow.steps', told.payload, told.meta);
    await runAfterStep(true);
    if (!ended) return saved;

    if (status === 'failed') {
      const [f] = await db.select({ name: flows.name }).from(flows).where(eq(flows.id, run.flowId));
      const where = failedNode
        ? `node ${nodeName(failedNode)} (${failedNode.type})`
        : `node ${nodeId ?? '?'}`;
      const text = `Flow "${f?.name ?? run.flowId}": ${where} failed: ${error}`;
      log.warn(
        { runId: run.id, ticketId: run.ticketId, nodeId: failedNode?.id ?? nodeId },
        'flow node failed',
      );
      await handToPeople(companyId, run.ticketId, text);
    } else if (!startFlow && !steps.some((x) => x.kind === 'end' && x.exit === 'transferred')) {
      // (A transfer node already took the bot off in its own statement.)
      await setChatbot(companyId, run.ticketId, false);
    }
    void deps.bus.emit('flow.ended', {
      companyId,
      flowId: run.flowId,
      runId: run.id,
      ticketId: run.ticketId,
      version: run.version,
      isTry: Boolean(run.tryGraph),
      status: status === 'failed' ? 'failed' : 'completed',
      nodeId: failedNode?.id ?? nodeId,
      variables: vars,
      ...(error ? { error } : {}),
    });
    if (startFlow) {
      const started = await startPublished(companyId, run.ticketId, startFlow, 'flow', vars);
      if (!started)
        await handToPeople(
          companyId,
          run.ticketId,
          `Flow transfer: flow ${startFlow} has no published version`,
        );
    }
    return saved;
  }

  // ---- starting ------------------------------------------------------------------------------------------

  /** Starts a run on a ticket (any active run is cancelled first) and runs its first step at once. */
  async function start(o: {
    companyId: number;
    ticket: Pick<TicketRow, 'id' | 'contactId' | 'whatsappId'>;
    flowId: number;
    version: { id: number; version: number; graph: FlowGraph } | null;
    tryGraph?: FlowGraph;
    trigger: string;
    variables?: Record<string, unknown>;
    messageId?: number;
    /** The ticket leaves its attendant (send-to-flow): pending, nobody's, announced. */
    release?: boolean;
    /** The ticket as the caller read it in this step (onStored): not read again. */
    loaded?: Loaded | null;
    /** The caller saw no active run on the ticket in this step: nothing to cancel. */
    noActiveRun?: boolean;
  }): Promise<RunRow | null> {
    const graph = o.tryGraph ?? o.version?.graph;
    const startNode = graph?.nodes.find((n) => n.type === 'start');
    if (!graph || !startNode) return null;
    if (!o.noActiveRun) await cancelTicket(o.companyId, o.ticket.id);
    let run: RunRow | undefined;
    try {
      [run] = await db
        .insert(flowRuns)
        .values({
          companyId: o.companyId,
          flowId: o.flowId,
          versionId: o.version?.id ?? null,
          version: o.version?.version ?? null,
          tryGraph: o.tryGraph ?? null,
          ticketId: o.ticket.id,
          contactId: o.ticket.contactId,
          whatsappId: o.ticket.whatsappId,
          currentNodeId: startNode.id,
          status: 'running',
          // Born claimed for its first step (what claim() would make of it): nobody else moved it yet.
          seq: 1,
          variables: o.variables ?? {},
          trigger: o.trigger,
          processedMessageIds: o.messageId !== undefined ? [String(o.messageId)] : [],
          createdAt: clock.now(),
          updatedAt: clock.now(),
        })
        .returning();
    } catch (err) {
      // Another start won the race for this ticket (the one-active-run index).
      log.warn({ err, ticketId: o.ticket.id }, 'flow run not started');
      return null;
    }
    if (!run) return null;
    if (o.version) versionCache.set(o.version.id, o.version.graph);
    const loaded = o.loaded?.ticket.id === o.ticket.id ? { ...o.loaded } : null;
    // The bot marker goes on now; the lists hear of it once the first step is saved (its messages' events
    // carry the ticket with the marker already).
    const later: { announce?: () => Promise<void> } = {};
    const ticketNow = await setChatbot(o.companyId, o.ticket.id, true, o.release, loaded?.ticket, later);
    if (loaded && ticketNow) loaded.ticket = ticketNow;
    const saved = await advance(
      run,
      { kind: 'enter' },
      [{ nodeId: startNode.id, kind: 'start', exit: o.trigger }],
      loaded,
      [async () => later.announce?.()],
    );
    if (saved) return saved;
    const [after] = await db.select().from(flowRuns).where(eq(flowRuns.id, run.id));
    return after ?? run;
  }

  /** Starts a flow's PUBLISHED version (false when it has none or is not this company's). */
  async function startPublished(
    companyId: number,
    ticketId: number,
    flowId: number,
    trigger: string,
    variables?: Record<string, unknown>,
    messageId?: number,
    release?: boolean,
    /**
     * What onStored read in this step: the flow's published version (id and number, read with the company
     * check), the ticket, and that no run was active on it.
     */
    known?: { version?: { id: number; version: number } | null; loaded?: Loaded; noActiveRun?: boolean },
  ) {
    let v: { id: number; version: number; graph: FlowGraph } | undefined;
    const hit = known?.version ? versionCache.get(known.version.id) : undefined;
    if (known?.version && hit) v = { ...known.version, graph: hit };
    else if (known?.version) {
      const [g] = await db
        .select({ graph: flowVersions.graph })
        .from(flowVersions)
        .where(and(eq(flowVersions.id, known.version.id), eq(flowVersions.flowId, flowId)));
      if (g) v = { ...known.version, graph: g.graph };
    } else {
      const [f] = await db
        .select({ v: flowVersions })
        .from(flows)
        .innerJoin(
          flowVersions,
          and(eq(flowVersions.flowId, flows.id), eq(flowVersions.version, flows.publishedVersion)),
        )
        .where(and(eq(flows.id, flowId), eq(flows.companyId, companyId)));
      v = f?.v;
    }
    const [t] =
      known?.loaded?.ticket.id === ticketId
        ? [known.loaded.ticket]
        : await db
            .select()
            .from(tickets)
            .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
    if (!v || !t) return null;
    return start({
      companyId,
      ticket: t,
      flowId,
      version: v,
      trigger,
      variables,
      messageId,
      release,
      loaded: known?.loaded,
      noActiveRun: known?.noActiveRun,
    });
  }

  /** Ends a ticket's active run without a step (a person took the ticket, another flow starts). */
  async function cancelTicket(companyId: number, ticketId: number) {
    const ended = await db
      .update(flowRuns)
      .set({
        status: 'cancelled',
        seq: sql`${flowRuns.seq} + 1`,
        endedAt: clock.now(),
        updatedAt: clock.now(),
        nodeState: {},
      })
      .where(
        and(
          eq(flowRuns.ticketId, ticketId),
          eq(flowRuns.companyId, companyId),
          inArray(flowRuns.status, ACTIVE),
        ),
      )
      .returning();
    for (const r of ended) {
      await deps.jobs.cancel(timerJob, `run:${r.id}`).catch(() => undefined);
      tell(r, null, 'cancelled', r.variables);
      void deps.bus.emit('flow.ended', {
        companyId,
        flowId: r.flowId,
        runId: r.id,
        ticketId: r.ticketId,
        version: r.version,
        isTry: Boolean(r.tryGraph),
        status: 'cancelled',
        nodeId: r.currentNodeId,
        variables: r.variables,
      });
    }
    return ended.length;
  }

  // ---- inbound ------------------------------------------------------------------------------------------

  /** Messages a flow took (the queue bot, listening after us, leaves them alone). */
  const taken = new Set<number>();
  const take = (messageId: number) => {
    if (taken.size > 10_000) taken.clear();
    taken.add(messageId);
  };

  type Published = { id: number; version: number };
  type Pre = {
    use_flows: boolean | null;
    run_id: number | null;
    /** The active run's seq and whether this message is already in its processed ids (as read here). */
    run_seq: number | null;
    run_processed: boolean | null;
    connection_flow: number | null;
    /** The connection's flow's published version (the flow checked to be the company's). */
    connection_version: Published | null;
    runs: number;
    schedule_type: string | null;
    triggers: { id: number; triggers: FlowTriggers; published: Published | null }[] | null;
    /** The ticket as loadTicket reads it (JSON), when the ticket has a run or the connection a flow. */
    loaded: unknown;
  };

  async function triggered(
    companyId: number,
    ticket: TicketRow,
    pre: Pre,
    body: string,
  ): Promise<{ flowId: number; trigger: string } | null> {
    const list = (pre.triggers ?? []).filter((f) => f.triggers);
    // 1. A reply to a campaign (a campaign message reached this contact in the last 3 days).
    const campaignFlows = list.filter((f) => f.triggers.campaignReply);
    if (campaignFlows.length) {
      const rows = await executeRows<{ campaign_id: number }>(
        db,
        sql`select campaign_id from campaign_shippings where company_id = ${companyId} and contact_id = ${ticket.contactId}
          and sent_at > ${new Date(clock.now().getTime() - 3 * 86_400_000)} order by sent_at desc limit 1`,
      );
      const cid = rows[0]?.campaign_id;
      if (cid !== undefined) {
        const hit = campaignFlows
          .filter((f) => !f.triggers.campaignIds.length || f.triggers.campaignIds.includes(Number(cid)))
          .sort((a, b) => a.triggers.priority - b.triggers.priority || a.id - b.id)[0];
        if (hit) return { flowId: hit.id, trigger: 'campaign' };
      }
    }
    // 2. Keywords, by precedence.
    const text = fold(body);
    if (text) {
      const hit = list
        .filter((f) =>
          f.triggers.keywords.some((k) => {
            const kw = fold(k);
            return kw && (f.triggers.keywordMatch === 'contains' ? text.includes(kw) : text === kw);
          }),
        )
        .sort((a, b) => a.triggers.priority - b.triggers.priority || a.id - b.id)[0];
      if (hit) return { flowId: hit.id, trigger: 'keyword' };
    }
    const firstRun = Number(pre.runs) === 0;
    const fresh = firstRun && ticket.queueId === null;
    // 3. Out of hours, for a conversation no flow has run on yet: the hours of the ticket's queue when it has
    // one (queues keep their own week), the company's otherwise. Off while scheduleType is "disabled".
    const oohFlows = list.filter((f) => f.triggers.outOfHours);
    if (firstRun && oohFlows.length && (pre.schedule_type ?? SETTING_DEFAULTS.scheduleType) !== 'disabled') {
      const settings = Object.fromEntries((await readSettings(db, companyId)).map((s) => [s.key, s.value]));
      const [c] = await executeRows<{ schedules: unknown }>(
        db,
        ticket.queueId !== null
          ? sql`select schedules from queues where id = ${ticket.queueId} and company_id = ${companyId}`
          : sql`select schedules from companies where id = ${companyId}`,
      );
      const closed = closedPeriodKey(
        (c?.schedules as DaySchedule[] | null) ?? [],
        clock.now(),
        settings.timezone || SETTING_DEFAULTS.timezone,
      );
      if (closed) {
        const hit = oohFlows.sort((a, b) => a.triggers.priority - b.triggers.priority || a.id - b.id)[0]!;
        return { flowId: hit.id, trigger: 'out_of_hours' };
      }
    }
    // 4. The connection's flow, for a new conversation.
    if (fresh && pre.connection_flow) return { flowId: pre.connection_flow, trigger: 'connection' };
    return null;
  }

  const waitsForAnyone = (
    t: Pick<TicketRow, 'status' | 'userId' | 'isGroup' | 'useIntegration' | 'integrationId' | 'promptId'>,
  ) =>
    t.status === 'pending' &&
    t.userId === null &&
    !t.isGroup &&
    !t.useIntegration &&
    t.integrationId === null &&
    t.promptId === null;

  /**
   * A customer message was stored (`message.stored`): advance the ticket's run by one step, or start the
   * flow a trigger names. Runs before the queue bot; `took(messageId)` tells it the message was a flow's.
   */
  async function onStored(
    ref: { id: number; companyId: number },
    ticketId: number,
    message: FlowInboundMessage & { fromMe: boolean },
  ) {
    if (message.fromMe) return;
    const companyId = ref.companyId;
    const mid = String(message.id);
    // Everything the step decides on, in one statement: no flow on the connection, no run and no trigger
    // costs nothing more; an active run is claimed from what is read here.
    const [pre] = await executeRows<Pre>(
      db,
      sql`select (select p.use_flows from companies c join plans p on p.id = c.plan_id where c.id = ${companyId}) as use_flows,
        (select id from flow_runs where ticket_id = ${ticketId} and status in ('running', 'waiting', 'held')) as run_id,
        (select seq from flow_runs where ticket_id = ${ticketId} and status in ('running', 'waiting', 'held')) as run_seq,
        (select ${mid}::text = any(processed_message_ids) from flow_runs
          where ticket_id = ${ticketId} and status in ('running', 'waiting', 'held')) as run_processed,
        (select flow_id from whatsapps where id = ${ref.id} and company_id = ${companyId}) as connection_flow,
        (select json_build_object('id', v.id, 'version', v.version) from whatsapps w
          join flows f on f.id = w.flow_id and f.company_id = ${companyId}
          join flow_versions v on v.flow_id = f.id and v.version = f.published_version
          where w.id = ${ref.id} and w.company_id = ${companyId}) as connection_version,
        (select count(*)::int from flow_runs where ticket_id = ${ticketId}) as runs,
        (select value from settings where company_id = ${companyId} and key = 'scheduleType') as schedule_type,
        (select json_agg(json_build_object('id', id, 'triggers', triggers, 'published',
            (select json_build_object('id', v.id, 'version', v.version) from flow_versions v
              where v.flow_id = flows.id and v.version = flows.published_version))) from flows
          where company_id = ${companyId} and active and published_version is not null and triggers is not null
          and (jsonb_array_length(coalesce(triggers->'keywords', '[]'::jsonb)) > 0
            or (triggers->>'campaignReply')::boolean or (triggers->>'outOfHours')::boolean)) as triggers,
        ${loadedJson(companyId, ticketId, ref.id)} as loaded`,
      // Every customer message of a company on a connection asks this: prepared (planned once per connection).
      'flow_precheck',
    );
    if (!pre) return;
    // A connection with a flow never shows the queue menu, whatever happens below.
    if (pre.connection_flow) take(message.id);
    if (!pre.run_id && !pre.connection_flow && !pre.triggers?.length) return;
    if (pre.run_id) {
      take(message.id);
      if (pre.run_processed) return; // a redelivery
      // The ticket and the run's claim side by side (from what the statement above read): a claim whose
      // ticket turns out to be a person's only bumped the run's seq before it is cancelled.
      const [loaded, first] = await Promise.all([
        pre.loaded ? loadedFromJson(pre.loaded) : loadTicket(companyId, ticketId),
        pre.run_seq !== null
          ? claim({ id: pre.run_id, seq: Number(pre.run_seq) }, message.id)
          : Promise.resolve(null),
      ]);
      const ticket = loaded?.ticket;
      if (!loaded || !ticket || ticket.isGroup) return;
      if (!waitsForAnyone(ticket) && !(ticket.status === 'pending' && ticket.userId === null)) {
        // A person has the ticket: the flow is over.
        await cancelTicket(companyId, ticketId);
        return;
      }
      if (first) {
        await advance(first, { kind: 'message', message }, [], loaded);
        return;
      }
      for (let attempt = 1; attempt < 3; attempt++) {
        // After a lost race: from the run as it is now.
        const [run] = (await db.select().from(flowRuns).where(eq(flowRuns.id, pre.run_id)))
          .filter((r) => ACTIVE.includes(r.status as FlowRunStatus))
          .map((r) => ({ id: r.id, seq: r.seq, processed: r.processedMessageIds.includes(mid) }));
        if (!run) return;
        if (run.processed) return; // a redelivery
        const claimed = await claim(run, message.id);
        if (claimed) {
          await advance(claimed, { kind: 'message', message }, [], loaded);
          return;
        }
      }
      return;
    }
    const loaded = pre.loaded ? loadedFromJson(pre.loaded) : await loadTicket(companyId, ticketId);
    const ticket = loaded?.ticket;
    if (!loaded || !ticket || ticket.isGroup) return;
    if (pre.use_flows === false || !waitsForAnyone(ticket)) return;
    const hit = await triggered(companyId, ticket, pre, message.body);
    if (!hit) return;
    take(message.id);
    const version =
      hit.flowId === pre.connection_flow
        ? pre.connection_version
        : pre.triggers?.find((f) => f.id === hit.flowId)?.published;
    const started = await startPublished(
      companyId,
      ticketId,
      hit.flowId,
      hit.trigger,
      undefined,
      message.id,
      undefined,
      { version, loaded, noActiveRun: true },
    );
    if (!started)
      log.warn({ flowId: hit.flowId, ticketId }, 'flow trigger names a flow with no published version');
  }

  return {
    jobs: { timer: timerJob, timerSweep: timerSweepJob },
    /** The sweep's pass (tests call it with graceMs 0). */
    rescheduleLostTimers,
    onStored,
    /** Whether a flow took this message (the queue bot then stays out). */
    took: (messageId: number) => taken.has(messageId),
    start,
    startPublished,
    cancelTicket,
    /**
     * Wakes a HELD run from outside (an AI prompt's hand-off, a Typebot session's end): its node's executor
     * gets `{ kind: 'resume', data }` and answers the exit. False when the run is not held any more.
     */
    async resume(companyId: number, runId: number, data: Record<string, unknown> = {}): Promise<boolean> {
      const [run] = await db
        .select()
        .from(flowRuns)
        .where(and(eq(flowRuns.id, runId), eq(flowRuns.companyId, companyId)));
      if (!run || run.status !== 'held') return false;
      const claimed = await claim(run, undefined, ['held']);
      if (!claimed) return false;
      await advance(claimed, { kind: 'resume', data });
      return true;
    },
    /** The ticket's active run, or null. */
    async activeRun(companyId: number, ticketId: number): Promise<RunRow | null> {
      const [r] = await db
        .select()
        .from(flowRuns)
        .where(
          and(
            eq(flowRuns.ticketId, ticketId),
            eq(flowRuns.companyId, companyId),
            inArray(flowRuns.status, ACTIVE),
          ),
        );
      return r ?? null;
    },
  };
}
export type FlowRuntime = ReturnType<typeof flowRuntime>;
