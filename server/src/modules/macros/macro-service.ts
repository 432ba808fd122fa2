import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import {
  MessageSend,
  PAGE_SIZE,
  TICKET_PRIORITIES,
  type Macro,
  type MacroAction,
  type MacroInputParsed,
  type MacroListQuery,
  type MacroRunInput,
  type MacroRunResult,
  type MacroUpdate,
  type TicketView,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { closingReasons, macros, queues, quickMessages, tags, users } from '../../db/schema/index.js';
import type { DomainBus } from '../../events/domain-events.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { mimeOf } from '../../http/uploads.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import { emitEntryChange, isAdmin, visibleEntries } from '../../lib/personal-or-company.js';
import { containsText } from '../../lib/sql.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { Events } from '../../realtime/events.js';
import { messageService, type OutboundFile } from '../messages/message-service.js';
import type { MessageTemplateService } from '../message-templates/message-template-service.js';
import { quickMessageService } from '../quick-messages/quick-message-service.js';
import { snoozeService } from '../snooze/snooze-service.js';
import { tagService } from '../tags/tag-service.js';
import { ticketService } from '../tickets/ticket-service.js';
import { recordTicketEvent } from '../timeline/record.js';

type Row = typeof macros.$inferSelect;
type Owner = { id: number | null; name: string | null } | null;

/** What a user may see and run: their own macros and the company's. */
const visibleTo = (t: Tenant): SQL => visibleEntries(t, macros, eq(macros.visibility, 'company'));

/** A personal macro: its owner. A company macro: the company's admins. */
export const mayEdit = (t: Tenant, r: Pick<Row, 'userId' | 'visibility'>) =>
  r.visibility === 'company' ? isAdmin(t) : r.userId === t.userId;

/** A failing action of one ticket's run: which one, and why. */
class ActionFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super('macro action failed');
  }
}

/**
 * What a service does after its change (socket events, domain events) waits until the ticket's transaction
 * commits, and is dropped when it rolls back: nobody hears of a change that did not happen.
 */
function deferred(events: Events, bus: Pick<DomainBus, 'emit'>, log: { warn(o: object, m: string): void }) {
  const queue: (() => unknown)[] = [];
  const held = new Proxy(events, {
    get: (target, key) => {
      const f = target[key as keyof Events] as (...a: unknown[]) => unknown;
      return (...args: unknown[]) => void queue.push(() => f.apply(target, args));
    },
  });
  const heldBus: Pick<DomainBus, 'emit'> = {
    emit: (name, payload) => {
      queue.push(() => bus.emit(name, payload));
      return Promise.resolve();
    },
  };
  return {
    events: held,
    bus: heldBus,
    async flush() {
      for (const run of queue.splice(0))
        await Promise.resolve()
          .then(run)
          .catch((err: unknown) => log.warn({ err }, 'macro: after-commit step failed'));
    },
  };
}

/**
 * #32.1 Macros (docs/productivity.md "Macros"). Running one reuses the services a person's hand goes through
 * (tickets, tags, messages, snooze, quick messages), built on the ticket's transaction: their checks are the
 * same, and a failing action rolls back that ticket's earlier actions. Messages are stored with their outbox
 * row in the transaction and sent by the outbox worker once it commits (messaging/outbound-sender.ts).
 */
export function macroService(deps: {
  db: Db;
  events: Events;
  bus: Pick<DomainBus, 'emit'>;
  clock: Clock;
  jobs: Pick<JobQueue, 'schedule' | 'cancel'>;
  media: MediaStore;
  templates?: MessageTemplateService;
  blocked?: (companyId: number) => Promise<boolean>;
  log: { warn(o: object, m: string): void; error?(o: object, m: string): void };
}) {
  const { db, events } = deps;

  const select = () =>
    db
      .select({ m: macros, user: { id: users.id, name: users.name } })
      .from(macros)
      .leftJoin(users, eq(users.id, macros.userId));

  const view = (r: Row, user: Owner, t?: Tenant): Macro => ({
    id: r.id,
    companyId: r.companyId,
    userId: r.userId,
    name: r.name,
    visibility: r.visibility === 'company' ? 'company' : 'personal',
    actions: r.actions,
    user: user?.id ? { id: user.id, name: user.name ?? '' } : null,
    canEdit: t ? mayEdit(t, r) : false,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  });

  async function load(t: Tenant, id: number) {
    const [hit] = await select().where(and(eq(macros.id, id), visibleTo(t)));
    // Another user's personal macro is as absent as another company's.
    if (!hit) throw new AppError('ERR_NOT_FOUND', 404, 'Macro not found');
    return hit;
  }

  async function editable(t: Tenant, id: number) {
    const hit = await load(t, id);
    if (!mayEdit(t, hit.m)) throw new AppError('ERR_NO_PERMISSION', 403);
    return hit;
  }

  const emit = (before: Row | null, after: Row | null, user: Owner) =>
    emitEntryChange(events, 'macro', {
      before,
      after,
      shared: (r) => r.visibility === 'company',
      record: (r) => view(r, user),
    });

  /**
   * Every queue, tag, user, quick message and closing reason the actions name must be the company's (and a
   * quick message one the macro's readers may use): otherwise 400 naming the field, nothing saved.
   */
  async function checkRefs(t: Tenant, actions: MacroAction[], visibility: string, ownerId: number | null) {
    const wanted = {
      queue: new Set<number>(),
      user: new Set<number>(),
      tag: new Set<number>(),
      quick: new Set<number>(),
    };
    const closing = new Set<number>();
    for (const a of actions) {
      if (a.type === 'transfer') {
        if (a.queueId) wanted.queue.add(a.queueId);
        if (a.userId) wanted.user.add(a.userId);
      }
      if (a.type === 'add_tags' || a.type === 'remove_tags') a.tagIds.forEach((id) => wanted.tag.add(id));
      if (a.type === 'send_quick_message') wanted.quick.add(a.quickMessageId);
      if (a.type === 'resolve' && a.closingReasonId) closing.add(a.closingReasonId);
    }
    const found = async (
      table: typeof queues | typeof users | typeof tags | typeof closingReasons,
      ids: Set<number>,
    ) =>
      ids.size
        ? new Set(
            (
              await db
                .select({ id: table.id })
                .from(table)
                .where(and(eq(table.companyId, t.companyId), inArray(table.id, [...ids])))
            ).map((r) => r.id),
          )
        : new Set<number>();
    const queueOk = await found(queues, wanted.queue);
    const userOk = await found(users, wanted.user);
    const tagOk = await found(tags, wanted.tag);
    const quickOk = wanted.quick.size
      ? new Set(
          (
            await db
              .select({ id: quickMessages.id })
              .from(quickMessages)
              .where(
                and(
                  eq(quickMessages.companyId, t.companyId),
                  inArray(quickMessages.id, [...wanted.quick]),
                  // A company macro runs for everyone: only company-wide quick messages.
                  visibility === 'company'
                    ? eq(quickMessages.geral, true)
                    : or(eq(quickMessages.geral, true), eq(quickMessages.userId, ownerId ?? t.userId)),
                ),
              )
          ).map((r) => r.id),
        )
      : new Set<number>();
    const closingOk = await found(closingReasons, closing);
    const fields: { path: string; message: string }[] = [];
    actions.forEach((a, i) => {
      const at = (f: string, message: string) => fields.push({ path: `actions.${i}.${f}`, message });
      if (a.type === 'transfer') {
        if (a.queueId && !queueOk.has(a.queueId)) at('queueId', 'unknown queue');
        if (a.userId && !userOk.has(a.userId)) at('userId', 'unknown user');
      }
      if ((a.type === 'add_tags' || a.type === 'remove_tags') && a.tagIds.some((id) => !tagOk.has(id)))
        at('tagIds', 'unknown tag');
      if (a.type === 'send_quick_message' && !quickOk.has(a.quickMessageId))
        at('quickMessageId', 'unknown quick message');
      if (a.type === 'resolve' && a.closingReasonId && !closingOk.has(a.closingReasonId))
        at('closingReasonId', 'unknown closing reason');
    });
    if (fields.length)
      throw new AppError(
        'ERR_VALIDATION',
        400,
        `Unknown reference: ${fields.map((f) => f.path).join(', ')}`,
        {
          fields,
        },
      );
  }

  /** The services a person's hand uses, on this ticket's transaction. */
  function servicesIn(tx: Tx, held: ReturnType<typeof deferred>, blocked: boolean) {
    const txDb = tx as unknown as Db;
    const tickets = ticketService({
      db: txDb,
      events: held.events,
      log: deps.log,
      bus: held.bus,
      clock: deps.clock,
    });
    return {
      tickets,
      tags: tagService({ db: txDb, events: held.events, emitTicket: tickets.emitTicket }),
      snooze: snoozeService({
        db: txDb,
        events: held.events,
        clock: deps.clock,
        jobs: deps.jobs,
        emitTicket: tickets.emitTicket,
        bus: held.bus,
        log: deps.log,
      }),
      // No session "here": the message and its outbox row are stored, and the worker sends after the commit.
      messages: messageService({
        db: txDb,
        events: held.events,
        media: deps.media,
        sessions: () => undefined,
        templates: deps.templates,
        clock: deps.clock,
        bus: held.bus,
        blocked: async () => blocked,
      }),
      quick: quickMessageService({ db: txDb, events: held.events, media: deps.media }),
    };
  }

  /** The macro's placeholders ({{name}}, {{firstName}}, {{number}}, {{email}}, {{protocol}}, {{ticket.id}}, {{user}}). */
  function renderer(ticket: TicketView, userName: string) {
    const contact = ticket.contact as { name?: string; number?: string; email?: string | null };
    const values: Record<string, string> = {
      name: contact.name ?? '',
      firstName: (contact.name ?? '').split(/\s+/)[0] ?? '',
      number: contact.number ?? '',
      email: contact.email ?? '',
      protocol: String((ticket as { protocol?: string | null }).protocol ?? ticket.id),
      'ticket.id': String(ticket.id),
      'ticket.protocol': String((ticket as { protocol?: string | null }).protocol ?? ticket.id),
      user: userName,
    };
    return (text: string) =>
      text.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (whole, k: string) =>
        k in values
          ? values[k]!
          : k.startsWith('contact.') && k.slice(8) in values
            ? values[k.slice(8)]!
            : whole,
      );
  }

  async function apply(
    s: ReturnType<typeof servicesIn>,
    tx: Tx,
    t: Tenant,
    ticketId: number,
    a: MacroAction,
    render: (text: string) => string,
  ) {
    switch (a.type) {
      case 'send_text':
        await s.messages.send(t, ticketId, MessageSend.parse({ body: render(a.text) }));
        return;
      case 'send_quick_message': {
        const q = await s.quick.get(t, a.quickMessageId);
        const files: OutboundFile[] = [];
        if (q.isMedia) {
          const [r] = await tx
            .select({ path: quickMessages.mediaPath, name: quickMessages.mediaName })
            .from(quickMessages)
            .where(and(eq(quickMessages.id, q.id), eq(quickMessages.companyId, t.companyId)));
          if (r?.path) {
            const filename = r.name ?? 'file';
            files.push({
              data: await deps.media.read(r.path),
              filename,
              mimetype: mimeOf(filename),
              asVoice: false,
            });
          }
        }
        await s.messages.send(t, ticketId, MessageSend.parse({ body: render(q.message) }), files);
        return;
      }
      case 'add_tags':
        for (const tagId of a.tagIds) await s.tags.addToTicket(t, ticketId, tagId);
        return;
      case 'remove_tags':
        for (const tagId of a.tagIds) await s.tags.removeFromTicket(t, ticketId, tagId);
        return;
      case 'set_priority':
        await s.tickets.update(t, ticketId, { priority: TICKET_PRIORITIES[a.priority] });
        return;
      case 'transfer':
        await s.tickets.update(t, ticketId, {
          ...(a.queueId ? { queueId: a.queueId } : {}),
          ...(a.userId ? { userId: a.userId } : {}),
        });
        return;
      case 'add_note':
        await s.tickets.addNote(t, { ticketId, note: render(a.text) });
        return;
      case 'snooze': {
        const until = a.until ?? new Date(deps.clock.now().getTime() + a.minutes! * 60_000).toISOString();
        await s.snooze.snooze(t, ticketId, { until });
        return;
      }
      case 'resolve': {
        // The closing reason and sale value go through the ticket service as a person's resolve sends them.
        const input = {
          status: 'closed' as const,
          ...(a.closingReasonId ? { closingReasonId: a.closingReasonId } : {}),
          ...(a.saleValue != null ? { saleValue: a.saleValue } : {}),
        };
        await s.tickets.update(t, ticketId, input);
        return;
      }
    }
  }

  const failure = (err: unknown) => {
    const index = err instanceof ActionFailed ? err.index : undefined;
    const cause = err instanceof ActionFailed ? err.error : err;
    if (cause instanceof AppError)
      return { code: cause.code, message: cause.message, ...(index !== undefined ? { action: index } : {}) };
    deps.log.warn({ err: cause }, 'macro action failed unexpectedly');
    return { code: 'ERR_INTERNAL', ...(index !== undefined ? { action: index } : {}) };
  };

  return {
    async list(t: Tenant, q: MacroListQuery) {
      const term = q.searchParam.trim();
      const rows = await select()
        .where(and(visibleTo(t), term ? containsText(macros.name, term) : undefined))
        .orderBy(sql`lower(${macros.name})`, asc(macros.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      return {
        records: rows.slice(0, PAGE_SIZE).map((r) => view(r.m, r.user, t)),
        hasMore: rows.length > PAGE_SIZE,
      };
    },

    /** Every macro the user may run (the chat header's menu, the command bar). */
    async all(t: Tenant) {
      const rows = await select()
        .where(visibleTo(t))
        .orderBy(sql`lower(${macros.name})`, asc(macros.id))
        .limit(500);
      return rows.map((r) => view(r.m, r.user, t));
    },

    async get(t: Tenant, id: number) {
      const hit = await load(t, id);
      return view(hit.m, hit.user, t);
    },

    async create(t: Tenant, input: MacroInputParsed) {
      if (input.visibility === 'company' && !isAdmin(t))
        throw new AppError('ERR_NO_PERMISSION', 403, 'Only admins create company macros');
      await checkRefs(t, input.actions, input.visibility, t.userId);
      const [r] = await db
        .insert(macros)
        .values({
          companyId: t.companyId,
          userId: t.userId,
          name: input.name,
          visibility: input.visibility,
          actions: input.actions,
        })
        .returning();
      const [u] = await db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(eq(users.id, t.userId));
      emit(null, r!, u ?? null);
      return view(r!, u ?? null, t);
    },

    async update(t: Tenant, id: number, input: MacroUpdate) {
      const { m: before, user } = await editable(t, id);
      const visibility = input.visibility ?? before.visibility;
      if (visibility === 'company' && !isAdmin(t))
        throw new AppError('ERR_NO_PERMISSION', 403, 'Only admins make company macros');
      const actions = input.actions ?? before.actions;
      await checkRefs(t, actions, visibility, before.userId);
      const [after] = await db
        .update(macros)
        .set({ name: input.name, visibility, actions, updatedAt: new Date() })
        .where(and(eq(macros.id, id), eq(macros.companyId, t.companyId)))
        .returning();
      if (!after) throw new AppError('ERR_NOT_FOUND', 404, 'Macro not found');
      emit(before, after, user);
      return view(after, user, t);
    },

    async remove(t: Tenant, id: number) {
      const { m: before, user } = await editable(t, id);
      const [gone] = await db
        .delete(macros)
        .where(and(eq(macros.id, id), eq(macros.companyId, t.companyId)))
        .returning();
      if (!gone) throw new AppError('ERR_NOT_FOUND', 404, 'Macro not found');
      emit(before, null, user);
      return { message: 'Macro deleted' };
    },

    /**
     * POST /macros/{id}/run: on each ticket, every action in one transaction (a failing action rolls back that
     * ticket's earlier ones and is reported for it; the other tickets go on). One `macro` timeline entry per
     * ticket that ran, in the same transaction.
     */
    async run(t: Tenant, id: number, input: MacroRunInput): Promise<MacroRunResult> {
      const { m } = await load(t, id);
      const blocked = (await deps.blocked?.(t.companyId)) ?? false;
      const [me] = await db.select({ name: users.name }).from(users).where(eq(users.id, t.userId));
      const results: MacroRunResult['results'] = [];
      for (const ticketId of [...new Set(input.ticketIds)]) {
        const held = deferred(events, deps.bus, deps.log);
        try {
          await db.transaction(async (tx) => {
            const s = servicesIn(tx, held, blocked);
            // The runner must be allowed to act on the ticket (its visibility rule), as by hand.
            const ticket = await s.tickets.get(t, ticketId);
            const render = renderer(ticket, me?.name ?? '');
            for (const [i, a] of m.actions.entries()) {
              try {
                await apply(s, tx, t, ticketId, a, render);
              } catch (err) {
                throw new ActionFailed(i, err);
              }
            }
            await recordTicketEvent(tx, {
              companyId: t.companyId,
              ticketId,
              type: 'macro',
              actorId: t.userId,
              data: { macroId: m.id, name: m.name, actions: m.actions },
            });
          });
        } catch (err) {
          results.push({ ticketId, ok: false, error: failure(err) });
          continue;
        }
        await held.flush();
        results.push({ ticketId, ok: true });
      }
      return { results };
    },
  };
}
export type MacroService = ReturnType<typeof macroService>;
