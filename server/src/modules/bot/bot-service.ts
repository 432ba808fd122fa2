import { and, asc, eq, gt, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { SETTING_DEFAULTS, botText, priorityOf, type DaySchedule, type TicketView } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import {
  companies,
  queueOptions,
  queues,
  ticketBotStates,
  ticketHistories,
  tickets,
  whatsappQueues,
  whatsapps,
} from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import type { Clock } from '../../lib/clock.js';
import { z } from 'zod';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import { readSettings } from '../settings/setting-service.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import type { MessageService } from '../messages/message-service.js';
import { closedPeriodKey } from './business-hours.js';
import { readAnswer, renderMenu, sortByKey, type Choice } from './bot-menu.js';
import type { EmitTicket } from '../tickets/ticket-service.js';
import { recordTicketEvent } from '../timeline/record.js';

type TicketRow = typeof tickets.$inferSelect;
type StateRow = typeof ticketBotStates.$inferSelect;
type QueueRow = typeof queues.$inferSelect;
type OptionRow = typeof queueOptions.$inferSelect;
type ConnectionRow = typeof whatsapps.$inferSelect;

/** maxUseBotQueues 0 (or less) counts as the default, so that every conversation with the bot ends. */
export const DEFAULT_MAX_INVALID_ANSWERS = 3;
/** Answers of any kind after which the bot ends anyway (a customer walking back and forth forever). */
export const MAX_BOT_ANSWERS = 30;
export const BOT_TIMEOUT_JOB = 'bot-timeout';

export type BotEndReason =
  | 'queue' // a queue without options was chosen (or the connection has only one)
  | 'option' // a leaf option was chosen
  | 'closed' // queue-level hours: the chosen queue is closed
  | 'rounds' // maxUseBotQueues invalid answers
  | 'time' // timeUseBotQueues minutes since the bot started
  | 'steps' // MAX_BOT_ANSWERS answers
  | 'handled' // the ticket was accepted, transferred or given a queue by a person
  | 'human' // a person acted on the ticket while the bot ran
  | 'greeting'; // a connection without queues: its greeting went out, there is nothing more to offer

/** What the inbound pipeline hands over after a customer message was stored and announced. */
export interface StoredInbound {
  ticket: Pick<
    TicketView,
    'id' | 'status' | 'userId' | 'isGroup' | 'useIntegration' | 'integrationId' | 'promptId' | 'chatbot'
  >;
  message: { id: number; fromMe: boolean; body: string };
}

interface Context {
  connection: ConnectionRow;
  queues: QueueRow[];
  settings: Record<string, string>;
  now: Date;
}

/**
 * The automatic attendant. It answers customer messages of pending tickets that nobody handles (no user,
 * not a group, no integration or prompt) on connections with queues: it offers the queues, walks a queue's
 * option tree, and sends the out-of-hours notices. Its state lives in ticket_bot_states, so a restart
 * continues the conversation. Messages of one ticket are handled one at a time, in order; each inbound
 * message is claimed in the database before anything is sent, so handling it twice sends nothing twice.
 */
/** How long "this connection has no bot" is remembered, per company and connection. */
const PRECHECK_MS = 5_000;

export function botService(deps: {
  db: Db;
  messages: MessageService;
  emitTicket: EmitTicket;
  clock: Clock;
  jobs?: JobQueue;
  log: { warn(o: object, m: string): void };
  /** The bot put the ticket in a queue and is done: that queue's AI prompt or integration may take it. */
  onQueued?: (companyId: number, ticketId: number) => Promise<void>;
  /** A flow took this message (its listener runs first, docs/flows.md#runtime): the bot stays out. */
  flowTook?: (messageId: number) => boolean;
}) {
  const { db, clock, log } = deps;

  const minutes = (n: number) => n * 60_000;

  // ---- reading ----------------------------------------------------------------------------------------

  async function loadContext(companyId: number, whatsappId: number): Promise<Context | null> {
    const [connection] = await db
      .select()
      .from(whatsapps)
      .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
    if (!connection) return null;
    const rows = await db
      .select({ queue: queues })
      .from(whatsappQueues)
      .innerJoin(queues, eq(queues.id, whatsappQueues.queueId))
      .where(and(eq(whatsappQueues.whatsappId, whatsappId), eq(queues.companyId, companyId)))
      .orderBy(sql`${queues.orderQueue} asc nulls last`, asc(queues.name), asc(queues.id));
    const settings = Object.fromEntries((await readSettings(db, companyId)).map((s) => [s.key, s.value]));
    return { connection, queues: rows.map((r) => r.queue), settings, now: clock.now() };
  }

  const optionsOf = (companyId: number, queueId: number) =>
    db
      .select()
      .from(queueOptions)
      .where(and(eq(queueOptions.queueId, queueId), eq(queueOptions.companyId, companyId)));

  const childrenOf = (all: OptionRow[], parentId: number | null) =>
    sortByKey(all.filter((o) => o.parentId === parentId));

  const maxInvalid = (c: ConnectionRow) =>
    c.maxUseBotQueues > 0 ? c.maxUseBotQueues : DEFAULT_MAX_INVALID_ANSWERS;

  const timeZone = (ctx: Context) => ctx.settings.timezone || SETTING_DEFAULTS.timezone;

  async function companySchedules(companyId: number): Promise<DaySchedule[]> {
    const [c] = await db
      .select({ schedules: companies.schedules })
      .from(companies)
      .where(eq(companies.id, companyId));
    return c?.schedules ?? [];
  }

  // ---- writing ----------------------------------------------------------------------------------------

  async function saveState(ticketId: number, patch: Partial<StateRow>) {
    const [s] = await db
      .update(ticketBotStates)
      .set({ ...patch, updatedAt: clock.now() })
      .where(eq(ticketBotStates.ticketId, ticketId))
      .returning();
    return s!;
  }

  /**
   * Changes the ticket while it still waits for anyone (pending, no user): the bot never overrides a
   * person. A queue change is written in the history (by the bot: no user) and announced.
   */
  async function updateTicket(
    companyId: number,
    current: TicketRow,
    set: Partial<Pick<TicketRow, 'queueId' | 'chatbot' | 'queueOptionId' | 'priority'>>,
    /** #32.5 The customer's menu choice this change follows: a 'bot' entry on the ticket's timeline. */
    step?: Record<string, unknown>,
  ): Promise<TicketRow | null> {
    const [updated] = await db
      .update(tickets)
      .set({ ...set, updatedAt: clock.now() })
      .where(
        and(
          eq(tickets.id, current.id),
          eq(tickets.companyId, companyId),
          eq(tickets.status, 'pending'),
          isNull(tickets.userId),
        ),
      )
      .returning();
    if (!updated) return null;
    if (set.queueId !== undefined && set.queueId !== current.queueId)
      await db.insert(ticketHistories).values({
        companyId,
        ticketId: updated.id,
        action: 'transfer',
        userId: null,
        queueId: updated.queueId,
        whatsappId: updated.whatsappId,
        status: updated.status,
        data: { by: 'bot', from: { status: current.status, userId: null, queueId: current.queueId } },
      });
    if (step)
      await recordTicketEvent(db, {
        companyId,
        ticketId: updated.id,
        type: 'bot',
        actorKind: 'bot',
        data: step,
      });
    const view = await ticketQueries.byId(db, companyId, updated.id);
    if (view)
      deps.emitTicket(companyId, view, {
        actor: 'bot',
        action: 'transfer',
        before: current,
        recorded: !!step,
      });
    return updated;
  }

  /** Sends a bot message (a company message without a user); returns the stored message's id. */
  async function send(companyId: number, ticket: TicketRow, body: string): Promise<number> {
    if (!body.trim()) return 0;
    try {
      const sent = await deps.messages.deliver(companyId, ticket, { body, userId: null });
      if (sent && typeof (sent as { id?: unknown }).id === 'number') return (sent as { id: number }).id;
    } catch (err) {
      // Stored with its error (visible in the chat) or not stored at all: the conversation goes on.
      log.warn({ err, ticketId: ticket.id }, 'bot message not sent');
    }
    const [last] = await executeRows<{ id: number | string | null }>(
      db,
      sql`select max(id) as id from messages where ticket_id = ${ticket.id} and from_me`,
    );
    return Number(last?.id ?? 0);
  }

  async function end(companyId: number, ticketId: number, reason: BotEndReason) {
    const [ended] = await db
      .update(ticketBotStates)
      .set({ endedAt: clock.now(), endReason: reason, updatedAt: clock.now() })
      .where(and(eq(ticketBotStates.ticketId, ticketId), isNull(ticketBotStates.endedAt)))
      .returning();
    if (!ended) return;
    if (deps.jobs) await deps.jobs.cancel(timeoutJob, String(ticketId)).catch(() => undefined);
    const [t] = await db
      .update(tickets)
      .set({ chatbot: false, updatedAt: clock.now() })
      .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId), eq(tickets.chatbot, true)))
      .returning({ id: tickets.id, status: tickets.status });
    if (t) {
      const view = await ticketQueries.byId(db, companyId, t.id);
      if (view) deps.emitTicket(companyId, view, { actor: 'bot', action: 'update', before: {} });
    }
  }

  /** The first menu: the clock of timeUseBotQueues starts, the ticket shows the bot at work. */
  async function start(ctx: Context, ticket: TicketRow, chatbot: boolean): Promise<TicketRow | null> {
    const [h] = await executeRows<{ id: number | null }>(
      db,
      sql`select max(id)::int as id from ticket_histories where ticket_id = ${ticket.id}`,
    );
    await saveState(ticket.id, { startedAt: ctx.now, sinceHistoryId: h?.id ?? 0 });
    const minutesLimit = ctx.connection.timeUseBotQueues;
    if (deps.jobs && minutesLimit > 0)
      await deps.jobs.schedule(timeoutJob, {
        key: String(ticket.id),
        runAt: new Date(ctx.now.getTime() + minutes(minutesLimit)),
        companyId: ticket.companyId,
        payload: { ticketId: ticket.id },
      });
    return chatbot && !ticket.chatbot ? updateTicket(ticket.companyId, ticket, { chatbot: true }) : ticket;
  }

  // ---- menus ------------------------------------------------------------------------------------------

  const queueChoices = (ctx: Context): Choice[] =>
    ctx.queues.map((q, i) => ({ key: String(i + 1), label: q.name }));
  const optionChoices = (opts: OptionRow[]): Choice[] => opts.map((o) => ({ key: o.option, label: o.title }));

  const queueMenu = (ctx: Context) => renderMenu(ctx.connection.greetingMessage, queueChoices(ctx), false);
  const backLabel = (ctx: Context) => botText(ctx.settings, 'botBackLabel');
  /** An out-of-hours message of its own, or the company's default text (a closed company always answers). */
  const outOfHoursText = (ctx: Context, own: string) =>
    own.trim() ? own : botText(ctx.settings, 'botOutOfHours');

  /** The menu of one level of a queue's tree: the option's message (or the queue's greeting) as header. */
  function optionMenu(ctx: Context, queue: QueueRow, all: OptionRow[], at: number | null) {
    const here = at === null ? undefined : all.find((o) => o.id === at);
    const header = here ? here.message : queue.greetingMessage;
    const back = !(at === null && ctx.queues.length === 1);
    return renderMenu(header, optionChoices(childrenOf(all, here?.id ?? null)), back, backLabel(ctx));
  }

  // ---- steps ------------------------------------------------------------------------------------------

  /** The customer chose a queue (or the connection has only one). */
  async function chooseQueue(ctx: Context, ticket: TicketRow, queue: QueueRow) {
    const companyId = ticket.companyId;
    const single = ctx.queues.length === 1;
    if (ctx.settings.scheduleType === 'queue') {
      const key = closedPeriodKey(queue.schedules, ctx.now, timeZone(ctx));
      if (key) {
        // Out of the queue's hours: the ticket waits in it, and the customer is told once.
        const moved = await updateTicket(
          companyId,
          ticket,
          { queueId: queue.id, chatbot: false },
          { queue: { id: queue.id, name: queue.name }, closed: true },
        );
        await end(companyId, ticket.id, 'closed');
        if (moved)
          await notifyClosed(
            companyId,
            moved,
            `queue-${queue.id}:${key}`,
            outOfHoursText(ctx, queue.outOfHoursMessage),
          );
        return;
      }
    }
    const all = await optionsOf(companyId, queue.id);
    const roots = childrenOf(all, null);
    if (roots.length) {
      const moved = await updateTicket(
        companyId,
        ticket,
        { queueId: queue.id, chatbot: true },
        { queue: { id: queue.id, name: queue.name } },
      );
      if (!moved) return end(companyId, ticket.id, 'handled');
      await saveState(ticket.id, { queueId: queue.id, optionId: null });
      const id = await send(companyId, moved, optionMenu(ctx, queue, all, null));
      await saveState(ticket.id, { promptMessageId: id });
      return;
    }
    const moved = await updateTicket(
      companyId,
      ticket,
      { queueId: queue.id, chatbot: false },
      { queue: { id: queue.id, name: queue.name } },
    );
    await end(companyId, ticket.id, 'queue');
    if (!moved) return;
    const greet = !single || ctx.settings.sendGreetingMessageOneQueues === 'enabled';
    if (greet) await send(companyId, moved, queue.greetingMessage);
    await deps.onQueued?.(companyId, moved.id);
  }

  /** The out-of-hours message, at most once per ticket and closed period (claimed before it is sent). */
  async function notifyClosed(companyId: number, ticket: TicketRow, key: string, message: string) {
    const [claimed] = await db
      .update(ticketBotStates)
      .set({ outOfHoursKey: key, updatedAt: clock.now() })
      .where(
        and(
          eq(ticketBotStates.ticketId, ticket.id),
          sql`${ticketBotStates.outOfHoursKey} is distinct from ${key}`,
        ),
      )
      .returning();
    if (claimed) await send(companyId, ticket, message);
  }

  /** An answer that matched nothing: the same menu again, until maxUseBotQueues such answers. */
  async function invalid(ctx: Context, ticket: TicketRow, state: StateRow, messageId: number, menu: string) {
    // Written before the menu it would answer went out (a burst of "oi", "tudo bem?"): not an answer.
    if (messageId < state.promptMessageId) return;
    const count = state.invalidAnswers + 1;
    if (count >= maxInvalid(ctx.connection)) {
      await saveState(ticket.id, { invalidAnswers: count });
      return end(ticket.companyId, ticket.id, 'rounds');
    }
    await saveState(ticket.id, { invalidAnswers: count });
    const notice = botText(ctx.settings, 'botInvalidAnswer');
    const id = await send(ticket.companyId, ticket, `${notice}\n\n${menu}`);
    await saveState(ticket.id, { promptMessageId: id });
  }

  /** An answer while the bot shows the list of queues or a level of a queue's option tree. */
  async function answer(ctx: Context, ticket: TicketRow, state: StateRow, message: StoredInbound['message']) {
    const companyId = ticket.companyId;
    const queue = state.queueId ? ctx.queues.find((q) => q.id === state.queueId) : undefined;
    if (!queue) {
      // The list of queues (also when the queue being walked left the connection).
      const pick = readAnswer(message.body, queueChoices(ctx), false);
      if (pick.kind === 'choice') return chooseQueue(ctx, ticket, ctx.queues[pick.index]!);
      return invalid(ctx, ticket, state, message.id, queueMenu(ctx));
    }
    const all = await optionsOf(companyId, queue.id);
    const at = state.optionId && all.some((o) => o.id === state.optionId) ? state.optionId : null;
    const level = childrenOf(all, at);
    const single = ctx.queues.length === 1;
    const pick = readAnswer(message.body, optionChoices(level), !(at === null && single), backLabel(ctx));
    if (pick.kind === 'choice') {
      const chosen = level[pick.index]!;
      const below = childrenOf(all, chosen.id);
      if (below.length) {
        await saveState(ticket.id, { optionId: chosen.id });
        await recordTicketEvent(db, {
          companyId,
          ticketId: ticket.id,
          type: 'bot',
          actorKind: 'bot',
          data: { queue: { id: queue.id, name: queue.name }, option: { id: chosen.id, title: chosen.title } },
        });
        const id = await send(companyId, ticket, optionMenu(ctx, queue, all, chosen.id));
        await saveState(ticket.id, { promptMessageId: id });
        return;
      }
      // A leaf: the bot's work is done, the ticket waits in the queue.
      // An option with a priority (#30.6) gives it to the ticket ("Urgente: sem sinal" → urgent).
      const moved = await updateTicket(
        companyId,
        ticket,
        {
          queueOptionId: chosen.id,
          chatbot: false,
          ...(chosen.priority !== null ? { priority: chosen.priority } : {}),
        },
        {
          queue: { id: queue.id, name: queue.name },
          option: { id: chosen.id, title: chosen.title },
          ...(chosen.priority !== null ? { priority: priorityOf(chosen.priority) } : {}),
        },
      );
      await end(companyId, ticket.id, 'option');
      if (moved) await send(companyId, moved, chosen.message);
      if (moved) await deps.onQueued?.(companyId, moved.id);
      return;
    }
    if (pick.kind === 'back') {
      if (at === null) {
        // Back to the list of queues: the ticket leaves the queue it had chosen.
        const moved = await updateTicket(
          companyId,
          ticket,
          { queueId: null, queueOptionId: null },
          { back: true, from: { id: queue.id, name: queue.name } },
        );
        if (!moved) return end(companyId, ticket.id, 'handled');
        await saveState(ticket.id, { queueId: null, optionId: null });
        const id = await send(companyId, moved, queueMenu(ctx));
        await saveState(ticket.id, { promptMessageId: id });
        return;
      }
      const parent = all.find((o) => o.id === at)?.parentId ?? null;
      await saveState(ticket.id, { optionId: parent });
      const id = await send(companyId, ticket, optionMenu(ctx, queue, all, parent));
      await saveState(ticket.id, { promptMessageId: id });
      return;
    }
    return invalid(ctx, ticket, state, message.id, optionMenu(ctx, queue, all, at));
  }

  /** Whether nobody else handles the ticket: pending, no user, no group, no integration, no prompt. */
  const waitsForAnyone = (t: TicketRow, whatsappId: number) =>
    t.status === 'pending' &&
    t.userId === null &&
    !t.isGroup &&
    !t.useIntegration &&
    t.integrationId === null &&
    t.promptId === null &&
    t.whatsappId === whatsappId;

  const prechecks = new Map<
    string,
    { row: { queues: number; greets: boolean; schedule_type: string | null } | undefined; until: number }
  >();

  async function handle(
    ref: { id: number; companyId: number },
    ticketId: number,
    message: StoredInbound['message'],
  ) {
    const companyId = ref.companyId;
    // The common case first: a connection without queues and no business hours. What the connection
    // offers is remembered for a few seconds (keyed by company and connection), so a busy connection
    // costs no statement per message here; a change to its queues or hours applies within PRECHECK_MS.
    const preKey = `${companyId}:${ref.id}`;
    let cached = prechecks.get(preKey);
    if (!cached || cached.until < Date.now()) {
      const [row] = await executeRows<{ queues: number; greets: boolean; schedule_type: string | null }>(
        db,
        sql`select (select count(*)::int from whatsapp_queues where whatsapp_id = ${ref.id}) as queues,
          coalesce((select btrim(greeting_message) <> '' from whatsapps
            where id = ${ref.id} and company_id = ${companyId}), false) as greets,
          (select value from settings where company_id = ${companyId} and key = 'scheduleType') as schedule_type`,
      );
      cached = { row, until: Date.now() + PRECHECK_MS };
      // Only "nothing to do" is remembered: a connection with a bot is read anew on every message.
      const idle =
        !row?.queues && !row?.greets && row?.schedule_type !== 'company' && row?.schedule_type !== 'queue';
      if (idle) {
        if (prechecks.size > 10_000) prechecks.clear();
        prechecks.set(preKey, cached);
      }
    }
    const pre = cached.row;
    const scheduleType = pre?.schedule_type ?? SETTING_DEFAULTS.scheduleType;
    if (!pre?.queues && !pre?.greets && scheduleType !== 'company' && scheduleType !== 'queue') return;

    const [ticket] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
    if (!ticket) return;
    let [state] = await db.select().from(ticketBotStates).where(eq(ticketBotStates.ticketId, ticketId));
    const active = Boolean(state?.startedAt && !state.endedAt);
    if (!waitsForAnyone(ticket, ref.id)) {
      if (active) await end(companyId, ticketId, 'handled');
      return;
    }
    const ctx = await loadContext(companyId, ref.id);
    if (!ctx) return;

    // Out of hours: the notice (once per closed period), and no menu.
    let closed: { key: string; message: string } | null = null;
    if (scheduleType === 'company') {
      const key = closedPeriodKey(await companySchedules(companyId), ctx.now, timeZone(ctx));
      if (key)
        closed = { key: `company:${key}`, message: outOfHoursText(ctx, ctx.connection.outOfHoursMessage) };
    } else if (scheduleType === 'queue' && ticket.queueId !== null) {
      const [q] = await db
        .select()
        .from(queues)
        .where(and(eq(queues.id, ticket.queueId), eq(queues.companyId, companyId)));
      const key = q ? closedPeriodKey(q.schedules, ctx.now, timeZone(ctx)) : null;
      if (q && key)
        closed = { key: `queue-${q.id}:${key}`, message: outOfHoursText(ctx, q.outOfHoursMessage) };
    }

    // The bot itself: a ticket without a queue, or one whose queue the bot chose and still walks.
    const botTurn =
      !state?.endedAt &&
      ctx.queues.length > 0 &&
      (ticket.queueId === null || (active && state!.queueId === ticket.queueId));
    // A connection without queues still greets: once per ticket, at the customer's first message.
    const greetTurn =
      !closed &&
      ctx.queues.length === 0 &&
      ctx.connection.greetingMessage.trim() !== '' &&
      !state?.startedAt &&
      !state?.endedAt;
    if (!closed && !botTurn && !greetTurn) {
      if (active) await end(companyId, ticketId, 'handled');
      return;
    }

    // Claim this message: whoever handles it a second time finds it taken and sends nothing.
    if (!state)
      await db
        .insert(ticketBotStates)
        .values({ ticketId, companyId, whatsappId: ref.id, updatedAt: ctx.now })
        .onConflictDoNothing();
    [state] = await db
      .update(ticketBotStates)
      .set({ lastMessageId: message.id, answers: sql`${ticketBotStates.answers} + 1`, updatedAt: ctx.now })
      .where(and(eq(ticketBotStates.ticketId, ticketId), lt(ticketBotStates.lastMessageId, message.id)))
      .returning();
    if (!state) return;

    if (closed) {
      await notifyClosed(companyId, ticket, closed.key, closed.message);
      // Queue-level hours: the queue being walked closed meanwhile; the ticket waits in it.
      if (scheduleType === 'queue' && active) await end(companyId, ticketId, 'closed');
      return;
    }

    if (greetTurn) {
      await saveState(ticketId, { startedAt: ctx.now });
      await end(companyId, ticketId, 'greeting');
      await send(companyId, ticket, ctx.connection.greetingMessage);
      return;
    }

    if (state.startedAt) {
      const limit = ctx.connection.timeUseBotQueues;
      if (limit > 0 && ctx.now.getTime() - state.startedAt.getTime() >= minutes(limit))
        return end(companyId, ticketId, 'time');
      const [person] = await db
        .select({ id: ticketHistories.id })
        .from(ticketHistories)
        .where(
          and(
            eq(ticketHistories.ticketId, ticketId),
            gt(ticketHistories.id, state.sinceHistoryId),
            isNotNull(ticketHistories.userId),
          ),
        )
        .limit(1);
      if (person) return end(companyId, ticketId, 'human');
      if (state.answers > MAX_BOT_ANSWERS) return end(companyId, ticketId, 'steps');
      return answer(ctx, ticket, state, message);
    }

    // A new conversation: one queue is chosen at once, several are offered.
    const single = ctx.queues.length === 1;
    const started = await start(ctx, ticket, !single);
    if (!started) return end(companyId, ticketId, 'handled');
    if (single) return chooseQueue(ctx, started, ctx.queues[0]!);
    const id = await send(companyId, started, queueMenu(ctx));
    await saveState(ticketId, { promptMessageId: id });
  }

  /** timeUseBotQueues reached with no answer: the bot ends quietly (the ticket no longer shows it). */
  const timeoutJob = defineJob({
    kind: BOT_TIMEOUT_JOB,
    payload: z.object({ ticketId: z.number().int() }),
    handler: async (job) => {
      const { ticketId } = job.payload;
      if (job.companyId === null) return;
      const [row] = await db
        .select({ state: ticketBotStates, limit: whatsapps.timeUseBotQueues })
        .from(ticketBotStates)
        .innerJoin(whatsapps, eq(whatsapps.id, ticketBotStates.whatsappId))
        .where(and(eq(ticketBotStates.ticketId, ticketId), eq(ticketBotStates.companyId, job.companyId)));
      if (!row?.state.startedAt || row.state.endedAt || !row.limit) return;
      const s = row.state as StateRow & { startedAt: Date };
      if (clock.now().getTime() - s.startedAt.getTime() < minutes(row.limit)) return;
      await end(job.companyId, ticketId, 'time');
    },
  });

  return {
    /** Registered by app.ts. */
    jobs: { timeout: timeoutJob },
    /**
     * A message was stored and announced (`message.stored`, bot-listener.ts). The bus hands a ticket's
     * messages over one at a time, in order.
     */
    async onStored(ref: { id: number; companyId: number }, stored: StoredInbound): Promise<void> {
      const { ticket, message } = stored;
      if (message.fromMe || ticket.isGroup) return;
      if (deps.flowTook?.(message.id)) return;
      const taken =
        ticket.status !== 'pending' ||
        ticket.userId !== null ||
        ticket.useIntegration ||
        ticket.integrationId !== null ||
        ticket.promptId !== null;
      // Someone else has the ticket; a bot still marked on it (accepted in the middle of a menu) ends now.
      if (taken && !ticket.chatbot) return;
      if (taken) await end(ref.companyId, ticket.id, 'handled');
      else await handle(ref, ticket.id, message);
    },

    /**
     * #33.3 A message recovered after an outage (or a group's): nothing is said, but a new ticket on a
     * connection with one queue still lands in that queue, as a live one would (docs/messaging.md).
     */
    async placeQuietly(
      ref: { id: number; companyId: number },
      ticket: StoredInbound['ticket'] & { queueId: number | null },
    ) {
      if (ticket.isGroup || ticket.status !== 'pending' || ticket.userId !== null || ticket.queueId !== null)
        return;
      const ctx = await loadContext(ref.companyId, ref.id);
      if (ctx?.queues.length !== 1) return;
      const [row] = await db
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, ref.companyId)));
      const queue = ctx.queues[0]!;
      if (row && row.queueId === null)
        await updateTicket(
          ref.companyId,
          row,
          { queueId: queue.id },
          { queue: { id: queue.id, name: queue.name } },
        );
    },

    /** The bot's state of a ticket of the company, or null. */
    async state(companyId: number, ticketId: number): Promise<StateRow | null> {
      const [s] = await db
        .select()
        .from(ticketBotStates)
        .where(and(eq(ticketBotStates.ticketId, ticketId), eq(ticketBotStates.companyId, companyId)));
      return s ?? null;
    },
  };
}
export type BotService = ReturnType<typeof botService>;
