import { and, eq, sql } from 'drizzle-orm';
import {
  CONDITION_ELSE_EXIT,
  SETTING_DEFAULTS,
  conditionRuleExit,
  questionOptionExit,
  randomizerBranchExit,
  type FlowConditionRule,
  type FlowOption,
  checkCustomFieldValue,
} from '@recado/contracts';
import {
  companies,
  contactCustomFields,
  contacts,
  queues,
  ticketHistories,
  tickets,
  ticketTags,
} from '../../../db/schema/index.js';
import { executeRows, rowOf } from '../../../db/rows.js';
import { ticketQueries } from '../../tickets/ticket-queries.js';
import { applyCustomFields, customFieldDefinitionsOf } from '../../custom-fields/custom-field-service.js';
import { readSettings } from '../../settings/setting-service.js';
import { isOpen, localMoment } from '../../bot/business-hours.js';
import { registerFlowNodeExecutor, type FlowExecContext, type TicketRow } from '../flow-executors.js';
import { fold, interactiveOptions, pickReply, readAnswer, readNumber } from './answers.js';

/**
 * The built-in node executors (docs/flows.md#node-types-and-exits): start, message, question, condition, set,
 * wait, transfer (queue/user; to a flow is the engine's), close, randomizer.
 */

registerFlowNodeExecutor('start', {
  execute: async () => ({ exit: 'next' }),
});

registerFlowNodeExecutor('message', {
  async execute(ctx) {
    // Woken on this node (a crash after its send left the run here): already sent, move on.
    if (ctx.event.kind !== 'enter') return { exit: 'next' };
    const d = ctx.node.data;
    const text = ctx.render(d.text);
    const options = d.options.map((o) => ({ ...o, label: ctx.render(o.label) }));
    await ctx.send(text, {
      options,
      optionsDisplay: d.optionsDisplay,
      ...interactiveFor(ctx, text, options, d.optionsDisplay),
      fileListId: d.fileListId ?? null,
      fileId: d.fileId ?? null,
    });
    return { exit: 'next' };
  },
});

registerFlowNodeExecutor('question', {
  async execute(ctx) {
    const d = ctx.node.data;
    const ask = (raw: string) => {
      const text = ctx.render(raw);
      const options = d.options.map((o) => ({ ...o, label: ctx.render(o.label) }));
      return ctx.send(text, {
        options,
        optionsDisplay: d.optionsDisplay,
        ...interactiveFor(ctx, text, options, d.optionsDisplay),
      });
    };
    const timer = { name: 'timeout', minutes: d.timeoutMinutes };
    switch (ctx.event.kind) {
      case 'enter':
        await ask(d.text);
        return { hold: { status: 'waiting', state: { retries: 0 }, timer } };
      case 'timer':
        return { exit: 'timeout' };
      case 'resume':
        return { hold: { status: 'waiting', state: { ...ctx.nodeState } } };
      case 'message': {
        // A button or list reply names its option by id (docs/flows.md#buttons-and-lists); typed text is read.
        const replied = pickReply(ctx.node.id, ctx.event.message.replyId, d.options);
        const answer = replied
          ? { value: replied.value || replied.label, option: replied }
          : readAnswer(d.validation, ctx.event.message.body, d.options);
        if (answer) {
          const variables = { [d.variable]: answer.value };
          if (answer.option) {
            const exit = questionOptionExit(answer.option.id);
            if (ctx.graph.edges.some((e) => e.source === ctx.node.id && e.sourceHandle === exit))
              return { exit, variables };
          }
          return { exit: 'answered', variables };
        }
        const retries = Number(ctx.nodeState.retries ?? 0) + 1;
        if (retries > d.maxRetries) return { exit: 'invalid' };
        await ask(d.retryMessage.trim() ? d.retryMessage : d.text);
        return { hold: { status: 'waiting', state: { retries } } };
      }
    }
  },
});

type Ctx = Omit<FlowExecContext, 'node'>;

/**
 * Options as reply buttons or a list on a Cloud API connection; Baileys, the simulator and the others keep the
 * numbered text (buttons are unreliable outside the official API).
 */
function interactiveFor(
  ctx: FlowExecContext<'message'> | FlowExecContext<'question'>,
  text: string,
  options: FlowOption[],
  display: 'buttons' | 'list' | 'text',
) {
  if (ctx.connection?.channel !== 'cloud_api') return {};
  const interactive = interactiveOptions(ctx.node.id, text, options, display);
  return interactive ? { interactive } : {};
}

async function companyTimeZone(ctx: Ctx) {
  const settings = await readSettings(ctx.deps.db, ctx.companyId);
  return settings.find((s) => s.key === 'timezone')?.value || SETTING_DEFAULTS.timezone;
}

function compare(op: string, left: unknown, right: string): boolean {
  const l =
    left === undefined || left === null ? '' : typeof left === 'object' ? JSON.stringify(left) : String(left);
  switch (op) {
    case 'empty':
      return l.trim() === '';
    case 'not_empty':
      return l.trim() !== '';
    case 'eq':
      return fold(l) === fold(right);
    case 'neq':
      return fold(l) !== fold(right);
    case 'contains':
      return fold(l).includes(fold(right));
    case 'not_contains':
      return !fold(l).includes(fold(right));
    case 'starts_with':
      return fold(l).startsWith(fold(right));
    default: {
      const a = typeof left === 'number' ? left : readNumber(l);
      const b = readNumber(right);
      if (a === null || b === null) return false;
      return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
    }
  }
}

async function ruleHolds(ctx: Ctx, rule: FlowConditionRule): Promise<boolean> {
  const { db } = ctx.deps;
  switch (rule.kind) {
    case 'variable':
      return compare(rule.op, ctx.variables[rule.name], ctx.render(rule.value));
    case 'contact_field':
      return compare(rule.op, ctx.render(`{{contact.${rule.field}}}`), ctx.render(rule.value));
    case 'tag': {
      const [has] = await db
        .select({ id: ticketTags.tagId })
        .from(ticketTags)
        .where(and(eq(ticketTags.ticketId, ctx.ticket.id), eq(ticketTags.tagId, rule.tagId)));
      return rule.op === 'has' ? Boolean(has) : !has;
    }
    case 'business_hours': {
      let schedules;
      if (rule.queueId) {
        const [q] = await db
          .select({ schedules: queues.schedules })
          .from(queues)
          .where(and(eq(queues.id, rule.queueId), eq(queues.companyId, ctx.companyId)));
        if (!q) throw new Error(`queue ${rule.queueId} not found`);
        schedules = q.schedules;
      } else {
        const [c] = await db
          .select({ schedules: companies.schedules })
          .from(companies)
          .where(eq(companies.id, ctx.companyId));
        schedules = c?.schedules ?? [];
      }
      const open = isOpen(schedules ?? [], ctx.now, await companyTimeZone(ctx));
      return rule.op === 'open' ? open : !open;
    }
    case 'weekday_time': {
      const now = localMoment(ctx.now, await companyTimeZone(ctx));
      const mins = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));
      const from = mins(rule.from);
      let to = mins(rule.to);
      if (to === 0) to = 24 * 60;
      return rule.weekdays.includes(now.weekday) && now.minutes >= from && now.minutes < to;
    }
    case 'channel': {
      const is = ctx.connection?.channel === rule.channel;
      return rule.op === 'is' ? is : !is;
    }
  }
}

registerFlowNodeExecutor('condition', {
  async execute(ctx) {
    const d = ctx.node.data;
    if (d.mode === 'switch') {
      for (const r of d.rules) if (await ruleHolds(ctx, r)) return { exit: conditionRuleExit(r.id) };
      return { exit: CONDITION_ELSE_EXIT };
    }
    const results: boolean[] = [];
    for (const r of d.rules) results.push(await ruleHolds(ctx, r));
    const ok = d.mode === 'all' ? results.every(Boolean) : results.some(Boolean);
    return { exit: ok ? 'true' : 'false' };
  },
});

async function announceTicket(
  ctx: Ctx,
  before: Pick<TicketRow, 'id' | 'status' | 'queueId' | 'userId'>,
  action: 'update' | 'transfer' | 'close',
) {
  const view = await ticketQueries.byId(ctx.deps.db, ctx.companyId, before.id);
  if (view)
    ctx.deps.emitTicket(ctx.companyId, view, {
      actor: 'bot',
      action,
      before: { status: before.status, queueId: before.queueId, userId: before.userId },
    });
}

registerFlowNodeExecutor('set', {
  async execute(ctx) {
    const { db } = ctx.deps;
    const variables: Record<string, unknown> = {};
    let tagsChanged = false;
    for (const a of ctx.node.data.actions) {
      if (a.kind === 'variable') {
        // Later actions read earlier ones.
        variables[a.name] = renderWith(ctx, variables, a.value);
      } else if (a.kind === 'contact_field') {
        const value = renderWith(ctx, variables, a.value);
        const field = a.field.trim();
        if (field.startsWith('custom.')) {
          // #32.7 A typed custom field (`custom.<key>`): checked against its definition; a bad value is skipped.
          const key = field.slice(7).toLowerCase();
          const def = (await customFieldDefinitionsOf(db, ctx.companyId, 'contact')).find(
            (d) => d.key === key,
          );
          const checked = def && value.trim() !== '' ? checkCustomFieldValue(def, value.trim()) : undefined;
          if (def && (value.trim() === '' || checked?.ok))
            await db
              .update(contacts)
              .set({
                customFields: applyCustomFields(
                  contacts.customFields,
                  checked?.ok ? { set: { [key]: checked.value }, unset: [] } : { set: {}, unset: [key] },
                ),
                updatedAt: ctx.deps.clock.now(),
              })
              .where(and(eq(contacts.id, ctx.contact.id), eq(contacts.companyId, ctx.companyId)));
        } else if (field === 'name' || field === 'email') {
          await db
            .update(contacts)
            .set({ [field]: value, updatedAt: ctx.deps.clock.now() })
            .where(and(eq(contacts.id, ctx.contact.id), eq(contacts.companyId, ctx.companyId)));
        } else {
          const updated = await db
            .update(contactCustomFields)
            .set({ value })
            .where(
              and(eq(contactCustomFields.contactId, ctx.contact.id), eq(contactCustomFields.name, field)),
            )
            .returning({ id: contactCustomFields.id });
          if (!updated.length)
            await db.insert(contactCustomFields).values({ contactId: ctx.contact.id, name: field, value });
        }
      } else {
        await assertCompanyTag(ctx, a.tagId);
        if (a.op === 'add')
          await db
            .insert(ticketTags)
            .values({ ticketId: ctx.ticket.id, tagId: a.tagId })
            .onConflictDoNothing();
        else
          await db
            .delete(ticketTags)
            .where(and(eq(ticketTags.ticketId, ctx.ticket.id), eq(ticketTags.tagId, a.tagId)));
        tagsChanged = true;
      }
    }
    if (tagsChanged) await announceTicket(ctx, ctx.ticket, 'update');
    return { exit: 'next', variables };
  },
});

function renderWith(ctx: Ctx, extra: Record<string, unknown>, text: string) {
  // ctx.render reads the run's variables; values set earlier in this node come first.
  return ctx.render(
    text.replace(/\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g, (m, k: string) =>
      k in extra ? String(extra[k]) : m,
    ),
  );
}

async function assertCompanyTag(ctx: Ctx, tagId: number) {
  const rows = await ctx.deps.db.execute(
    sql`select 1 from tags where id = ${tagId} and company_id = ${ctx.companyId}`,
  );
  const list = (rows as unknown as { rows?: unknown[] }).rows ?? (rows as unknown as unknown[]);
  if (!list.length) throw new Error(`tag ${tagId} not found`);
}

registerFlowNodeExecutor('wait', {
  async execute(ctx) {
    if (ctx.event.kind === 'timer') return { exit: 'next' };
    if (ctx.event.kind === 'enter')
      return { hold: { status: 'waiting', timer: { name: 'wait', minutes: ctx.node.data.minutes } } };
    // A message while waiting: the wait goes on (same timer).
    return { hold: { status: 'waiting', state: { ...ctx.nodeState } } };
  },
});

registerFlowNodeExecutor('transfer', {
  async execute(ctx) {
    const { db, clock } = ctx.deps;
    const d = ctx.node.data;
    const queueId = d.queueId || null;
    let userId: number | null = null;
    if (d.target === 'user') {
      if (!d.userId) throw new Error('no attendant chosen');
      userId = d.userId;
    } else if (!queueId) throw new Error('no queue chosen');
    const rendered = ctx.render(d.note);
    const note = rendered.trim() ? rendered : null;
    // #31 The ticket as it was and as it is now, from the update itself (no read before it), its history row
    // and the transfer's note: one statement, which also checks that the queue and the attendant are this
    // company's (no move otherwise). No queue chosen (to an attendant): it stays in its queue.
    const [moved] = await executeRows<{
      after: Record<string, unknown> | string | null;
      before: Record<string, unknown> | string | null;
      queue_ok: boolean;
      user_ok: boolean;
    }>(
      db,
      sql`with q as (select id from queues where id = ${queueId}::int and company_id = ${ctx.companyId}),
          u as (select id from users where id = ${userId}::int and company_id = ${ctx.companyId}),
          ok as (select (${queueId}::int is null or exists (select 1 from q))
              and (${userId}::int is null or exists (select 1 from u)) as go),
          b as (select id, status, user_id, queue_id from tickets
            where id = ${ctx.ticket.id} and company_id = ${ctx.companyId} and (select go from ok)),
          a as (update tickets t set queue_id = coalesce(${queueId}::int, b.queue_id), user_id = ${userId}::int,
              status = ${userId ? 'open' : 'pending'}, chatbot = false, updated_at = ${clock.now().toISOString()}::timestamptz
            from b where t.id = b.id returning t.*),
          h as (insert into ticket_histories (company_id, ticket_id, action, user_id, queue_id, whatsapp_id, status, data)
            select ${ctx.companyId}::int, a.id, 'transfer', null, a.queue_id, a.whatsapp_id, a.status,
              jsonb_build_object('by', 'flow', 'flowId', ${ctx.run.flowId}::int, 'nodeId', ${ctx.node.id}::text,
                'from', jsonb_build_object('status', b.status, 'userId', b.user_id, 'queueId', b.queue_id))
            from a, b),
          n as (insert into ticket_notes (company_id, ticket_id, contact_id, user_id, note)
            select ${ctx.companyId}::int, a.id, a.contact_id, null, ${note}::text from a where ${note}::text is not null)
        select (select row_to_json(a) from a) as after, (select row_to_json(b) from b) as before,
          ${queueId}::int is null or exists (select 1 from q) as queue_ok,
          ${userId}::int is null or exists (select 1 from u) as user_ok`,
      'flow_transfer',
    );
    if (!moved?.queue_ok) throw new Error(`queue ${queueId} not found`);
    if (!moved.user_ok) throw new Error(`attendant ${userId} not found`);
    if (!moved.after || !moved.before) throw new Error('the ticket is gone');
    const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
    const after = rowOf(tickets, json(moved.after));
    const was = json(moved.before);
    const before = {
      id: after.id,
      status: was.status as string,
      userId: was.user_id as number | null,
      queueId: was.queue_id as number | null,
    };
    // Once the step's position is saved (the run ended here): the lists hear of the move, and a ticket put in
    // a queue waiting for anyone goes to the queue's own automation (AI prompt, Typebot, n8n…) the same way it
    // does when the bot's menu puts the customer there (the bot's onQueued hook) — after the flow's last
    // message, with the run no longer active.
    ctx.afterStep(async (saved) => {
      await announceTicket(ctx, before, 'transfer');
      if (saved && !userId && after.queueId !== null)
        await ctx.deps.automation?.onQueued(ctx.companyId, after.id, after);
    });
    return { end: 'transferred' };
  },
});

registerFlowNodeExecutor('close', {
  async execute(ctx) {
    const { db, clock } = ctx.deps;
    const text = ctx.render(ctx.node.data.message);
    if (text.trim()) await ctx.send(text);
    const [before] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, ctx.ticket.id), eq(tickets.companyId, ctx.companyId)));
    if (!before) throw new Error('the ticket is gone');
    const [after] = await db
      .update(tickets)
      .set({ status: 'closed', chatbot: false, unreadMessages: 0, updatedAt: clock.now() })
      .where(and(eq(tickets.id, before.id), eq(tickets.companyId, ctx.companyId)))
      .returning();
    if (after) {
      await db.insert(ticketHistories).values({
        companyId: ctx.companyId,
        ticketId: after.id,
        action: 'close',
        userId: null,
        queueId: after.queueId,
        whatsappId: after.whatsappId,
        status: 'closed',
        data: { by: 'flow', flowId: ctx.run.flowId, nodeId: ctx.node.id },
      });
      await announceTicket(ctx, before, 'close');
    }
    return { end: 'completed' };
  },
});

/** Tests replace it to make the split deterministic. */
export const randomizerDice = { roll: () => Math.random() };

registerFlowNodeExecutor('randomizer', {
  async execute(ctx) {
    const branches = ctx.node.data.branches;
    let r = randomizerDice.roll() * 100;
    for (const b of branches) {
      if (r < b.percent) return { exit: randomizerBranchExit(b.id) };
      r -= b.percent;
    }
    const last = [...branches].reverse().find((b) => b.percent > 0) ?? branches[branches.length - 1]!;
    return { exit: randomizerBranchExit(last.id) };
  },
});
