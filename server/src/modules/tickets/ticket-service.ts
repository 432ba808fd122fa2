import { and, asc, eq, sql } from 'drizzle-orm';
import {
  can,
  priorityRank,
  type TicketCreate,
  type TicketListQuery,
  type TicketUpdate,
  type TicketView,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import {
  contacts,
  queues,
  ticketHistories,
  ticketNotes,
  tickets,
  users,
  whatsapps,
} from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import { assertCompanyRefs } from '../../db/company-refs.js';
import { closingFields, fieldError } from '../closing/closing-service.js';
import {
  applyCustomFields,
  checkCustomFields,
  hasCustomFieldChange,
} from '../custom-fields/custom-field-service.js';
import type { Tenant } from '../../http/tenant.js';
import { recordTicketEvent } from '../timeline/record.js';
import { isPinned } from '../ticket-pins/pin-queries.js';
import type { EmitMeta } from '../../events/bus.js';
import type {
  DomainBus,
  DomainEvents,
  TicketAction,
  TicketChange,
  TicketState,
} from '../../events/domain-events.js';
import type { OutboxBus } from '../../events/outbox.js';
import type { Events } from '../../realtime/events.js';
import type { Clock } from '../../lib/clock.js';
import { ticketEventRooms } from '../../realtime/room-policy.js';
import {
  canSeeTicket,
  isManager,
  loadListViewer,
  loadViewer,
  ticketQueries,
  visibleWhere,
  visibleTicketRow,
} from './ticket-queries.js';

type TicketRow = typeof tickets.$inferSelect;

/** The ticket announcer's signature, for the services that change tickets (given `tickets.emitTicket`). */
export type EmitTicket = (companyId: number, view: TicketView, change: TicketChange, meta?: EmitMeta) => void;
/**
 * Inside a change's transaction: writes its `ticket.announced` outbox row (docs/events.md "The outbox"); pass
 * the answer to `emitTicket` after the commit.
 */
export type StageTicket = (
  tx: Tx,
  companyId: number,
  view: TicketView,
  change: TicketChange,
) => Promise<EmitMeta | undefined>;

export function ticketService(deps: {
  db: Db;
  events: Events;
  log: { warn(o: object, m: string): void };
  /** Domain events: `ticket.changed` after a user's change (listeners send the automatic messages). */
  bus?: Pick<DomainBus, 'emit'> & Partial<Pick<OutboxBus, 'stage'>>;
  /** Business time (the SLA filters' "now"). */
  clock?: Clock;
}) {
  const { db, events } = deps;

  async function row(t: Tenant, id: number): Promise<TicketRow> {
    const [r] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, id), eq(tickets.companyId, t.companyId)));
    if (!r) throw new AppError('ERR_NO_TICKET_FOUND', 404);
    return r;
  }

  const visibleRow = (t: Tenant, id: number) => visibleTicketRow(db, t, id);

  /**
   * The one announcer of a ticket's creation or change, whoever made it: sends the ticket to every room that
   * lists it (its old and new status lists, itself, and the notification rooms of those who may see it now
   * or could before: they drop it), then `ticket.announced` on the bus (webhooks' ticket.created and
   * ticket.updated come from there, so no path that changes a ticket can leave them out).
   */
  function emitTicket(companyId: number, view: TicketView, change: TicketChange, meta?: EmitMeta) {
    const announced = announcement(companyId, view, change);
    const given = announced.change.before ?? {};
    const payload = { action: 'update' as const, ticket: view, previousStatus: given.status };
    const before = announced.change.before ? { ...view, ...given } : undefined;
    events.toRoom(ticketEventRooms(companyId, view, before), companyId, 'ticket', payload);
    // meta: the event's outbox row, staged in the change's transaction (docs/events.md "The outbox").
    deps.bus?.emit('ticket.announced', announced, meta);
  }

  /** `ticket.announced`'s payload: only the followed fields of `before` (a caller may hand its whole row). */
  function announcement(
    companyId: number,
    view: TicketView,
    change: TicketChange,
  ): DomainEvents['ticket.announced'] {
    const given: Partial<TicketState> = {};
    for (const key of ['status', 'queueId', 'userId', 'tagIds'] as const)
      if (change.before?.[key] !== undefined) Object.assign(given, { [key]: change.before[key] });
    return { companyId, ticket: view, change: { ...change, before: change.before && given } };
  }

  async function history(
    exec: Db | Tx,
    companyId: number,
    r: TicketRow,
    action: string,
    userId: number | null,
    data?: Record<string, unknown>,
  ) {
    await exec.insert(ticketHistories).values({
      companyId,
      ticketId: r.id,
      action,
      userId,
      queueId: r.queueId,
      whatsappId: r.whatsappId,
      status: r.status,
      data,
    });
  }

  async function otherOpenTicket(
    companyId: number,
    contactId: number,
    whatsappId: number | null,
    exceptId?: number,
  ) {
    const [other] = await db
      .select({
        id: tickets.id,
        uuid: tickets.uuid,
        status: tickets.status,
        user: { id: users.id, name: users.name },
        queue: { id: queues.id, name: queues.name },
      })
      .from(tickets)
      .leftJoin(users, eq(users.id, tickets.userId))
      .leftJoin(queues, eq(queues.id, tickets.queueId))
      .where(
        and(
          eq(tickets.companyId, companyId),
          eq(tickets.contactId, contactId),
          whatsappId ? eq(tickets.whatsappId, whatsappId) : sql`true`,
          sql`${tickets.status} <> 'closed'`,
          exceptId ? sql`${tickets.id} <> ${exceptId}` : sql`true`,
        ),
      )
      .limit(1);
    return other;
  }

  const otherOpenError = (other: NonNullable<Awaited<ReturnType<typeof otherOpenTicket>>>) =>
    new AppError('ERR_OTHER_OPEN_TICKET', 409, 'There is already an open ticket for this contact', {
      ticket: {
        id: other.id,
        uuid: other.uuid,
        status: other.status,
        user: other.user?.id ? other.user : null,
        queue: other.queue?.id ? other.queue : null,
      },
    });

  const stageTicket: StageTicket = async (tx, companyId, view, change) =>
    (
      await deps.bus?.stage?.(tx, [
        { event: 'ticket.announced', payload: announcement(companyId, view, change) },
      ])
    )?.[0];

  return {
    emitTicket,
    stageTicket,

    async list(t: Tenant, q: TicketListQuery) {
      // The visibility rule (allTicket's waiting tickets included) is part of every list's query; the
      // viewer's pinned tickets come with it (one statement).
      const viewer = await loadListViewer(db, t);
      return ticketQueries.page(
        db,
        viewer,
        q,
        can(t, 'tickets-manager:showall') || t.super,
        deps.clock?.now(),
      );
    },

    async get(t: Tenant, id: number) {
      await visibleRow(t, id);
      const view = (await ticketQueries.byId(db, t.companyId, id))!;
      // #32.9 Whether the asking user pinned it.
      return { ...view, pinned: await isPinned(db, t.companyId, t.userId, id) };
    },

    async getByUuid(t: Tenant, uuid: string) {
      const view = await ticketQueries.byUuid(db, t.companyId, uuid);
      if (!view) throw new AppError('ERR_NO_TICKET_FOUND', 404);
      if (
        !canSeeTicket(await loadViewer(db, t), {
          userId: view.userId,
          queueId: view.queueId,
          status: view.status,
          contact: { ownerId: view.contact.ownerId ?? null },
        })
      )
        throw new AppError('ERR_NO_PERMISSION', 403);
      return view;
    },

    async create(t: Tenant, input: TicketCreate) {
      const [contact] = await db
        .select()
        .from(contacts)
        .where(and(eq(contacts.id, input.contactId), eq(contacts.companyId, t.companyId)));
      if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
      const viewer = await loadViewer(db, t);
      // docs/product.md#validation: a queue must be chosen unless the user is admin, and it must be one of theirs.
      if (!isManager(viewer) && (!input.queueId || !viewer.queueIds.includes(input.queueId)))
        throw new AppError('ERR_VALIDATION', 400, 'Choose one of your queues');
      if (input.queueId) {
        const [q] = await db
          .select({ id: queues.id })
          .from(queues)
          .where(and(eq(queues.id, input.queueId), eq(queues.companyId, t.companyId)));
        if (!q) throw new AppError('ERR_VALIDATION', 400, 'unknown queue');
      }
      const [w] = input.whatsappId
        ? await db
            .select()
            .from(whatsapps)
            .where(and(eq(whatsapps.id, input.whatsappId), eq(whatsapps.companyId, t.companyId)))
        : await db
            .select()
            .from(whatsapps)
            .where(and(eq(whatsapps.companyId, t.companyId), eq(whatsapps.isDefault, true)));
      if (!w) throw new AppError(input.whatsappId ? 'ERR_NO_WAPP_FOUND' : 'ERR_NO_DEF_WAPP_FOUND', 404);
      const userId = isManager(viewer) && input.userId ? input.userId : t.userId;
      if (userId !== t.userId) {
        const [u] = await db
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, userId), eq(users.companyId, t.companyId)));
        if (!u) throw new AppError('ERR_NO_USER_FOUND', 404);
      }
      const fields = await checkCustomFields(db, t.companyId, 'ticket', input.customFields, true);
      const other = await otherOpenTicket(t.companyId, contact.id, w.id);
      if (other) throw otherOpenError(other);
      // The ticket, its history entry and its events' outbox rows commit together (docs/events.md "The outbox").
      let done: { view: TicketView; metas: EmitMeta[] };
      try {
        done = await db.transaction(async (tx) => {
          const [created] = (await tx
            .insert(tickets)
            .values({
              companyId: t.companyId,
              contactId: contact.id,
              whatsappId: w.id,
              queueId: input.queueId ?? null,
              userId: input.status === 'pending' ? null : userId,
              status: input.status,
              // An attendant's new open ticket is accepted as it is created (docs/metrics.md).
              acceptedAt: input.status === 'open' ? new Date() : null,
              isGroup: contact.isGroup,
              ...(input.priority ? { priority: priorityRank(input.priority) } : {}),
              customFields: fields.set,
            })
            .returning()) as [TicketRow];
          await history(tx, t.companyId, created, 'create', t.userId);
          const view = (await ticketQueries.byId(tx as unknown as Db, t.companyId, created.id))!;
          const change: TicketChange = { actor: 'user', by: t.userId, before: null };
          const metas =
            (await deps.bus?.stage?.(tx, [
              { event: 'ticket.announced', payload: announcement(t.companyId, view, change) },
              { event: 'ticket.created', payload: { companyId: t.companyId, ticketId: created.id } },
            ])) ?? [];
          return { view, metas };
        });
      } catch (err) {
        if (isUniqueViolation(err, 'tickets_one_active_uq')) {
          const raced = await otherOpenTicket(t.companyId, contact.id, w.id);
          if (raced) throw otherOpenError(raced);
        }
        throw err;
      }
      const { view, metas } = done;
      emitTicket(t.companyId, view, { actor: 'user', by: t.userId, before: null }, metas[0]);
      deps.bus?.emit('ticket.created', { companyId: t.companyId, ticketId: view.id }, metas[1]);
      return view;
    },

    async update(t: Tenant, id: number, input: TicketUpdate) {
      const current = await visibleRow(t, id);
      const viewer = await loadViewer(db, t);
      const manager = isManager(viewer);
      const set: Partial<TicketRow> = { updatedAt: new Date() };
      let action: TicketAction = 'update';
      const transferring =
        input.queueId !== undefined ||
        (input.userId !== undefined && input.userId !== t.userId && input.status !== 'pending');

      if (input.queueId !== undefined && input.queueId !== null) {
        const [q] = await db
          .select({ id: queues.id })
          .from(queues)
          .where(and(eq(queues.id, input.queueId), eq(queues.companyId, t.companyId)));
        if (!q) throw new AppError('ERR_VALIDATION', 400, 'unknown queue');
      }
      if (input.userId) {
        const [u] = await db
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, input.userId), eq(users.companyId, t.companyId)));
        if (!u) throw new AppError('ERR_NO_USER_FOUND', 404);
      }
      if (input.whatsappId) {
        const [w] = await db
          .select({ id: whatsapps.id })
          .from(whatsapps)
          .where(and(eq(whatsapps.id, input.whatsappId), eq(whatsapps.companyId, t.companyId)));
        if (!w) throw new AppError('ERR_NO_WAPP_FOUND', 404);
        set.whatsappId = input.whatsappId;
      }
      if (input.status !== 'closed') {
        if (input.closingReasonId != null) throw fieldError('closingReasonId', "only with status 'closed'");
        if (input.saleValue != null) throw fieldError('saleValue', "only with status 'closed'");
      }
      // The prompt and integration a ticket runs must be the company's own.
      await assertCompanyRefs(db, t.companyId, { prompt: input.promptId, integration: input.integrationId });

      if (input.status === 'open' && !transferring) {
        // Accept (pending → open) or reopen (closed → open): the current user takes it.
        set.status = 'open';
        set.userId = manager && input.userId ? input.userId : t.userId;
        set.closedAt = null;
        action = current.status === 'closed' ? 'reopen' : current.status === 'pending' ? 'accept' : 'update';
      } else if (input.status === 'pending') {
        set.status = 'pending';
        set.userId = null;
        action = 'return';
      } else if (input.status === 'closed') {
        // #32.3 The reason (required or not by the company's mode) and the sale value, checked first.
        Object.assign(set, await closingFields(db, t.companyId, input));
        set.status = 'closed';
        set.userId = current.userId ?? t.userId;
        set.useIntegration = false;
        set.integrationId = null;
        set.promptId = null;
        set.automation = null;
        set.chatbot = false;
        set.closedAt = new Date();
        action = 'close';
      }
      if (set.status === 'open' || transferring) {
        // A person takes the ticket (accept) or moves it (transfer): the automation that had it ends, with
        // the flags reset as for resolve (docs/automation.md). A transfer into a queue with an automation
        // is handed to that one afterwards (automation-listener.ts).
        set.useIntegration = false;
        set.integrationId = null;
        set.promptId = null;
        // Its state line ("answering", "failed: …") goes with it (docs/automation.md).
        set.automation = null;
      }
      if (transferring) {
        action = 'transfer';
        if (input.queueId !== undefined) set.queueId = input.queueId;
        if (input.userId) {
          set.userId = input.userId;
          set.status =
            input.status ??
            (current.status === 'closed' ? 'open' : current.status === 'pending' ? 'open' : current.status);
        } else {
          // Only a queue: the ticket waits in that queue for anyone.
          set.userId = null;
          set.status = 'pending';
        }
      }
      // #32.3 A reopened ticket is no longer closed with that reason (the timeline keeps it).
      if (current.status === 'closed' && set.status && set.status !== 'closed')
        Object.assign(set, { closingReasonId: null, saleValue: null });
      if (input.useIntegration !== undefined) set.useIntegration = input.useIntegration;
      if (input.priority !== undefined) set.priority = priorityRank(input.priority);
      // #32.7 Custom field values: checked against the company's definitions, applied atomically in the jsonb.
      const fields = await checkCustomFields(db, t.companyId, 'ticket', input.customFields, false);
      if (hasCustomFieldChange(fields))
        set.customFields = applyCustomFields(
          tickets.customFields,
          fields,
        ) as unknown as TicketRow['customFields'];
      if (input.promptId !== undefined) set.promptId = input.promptId;
      if (input.integrationId !== undefined) set.integrationId = input.integrationId;

      // The first time a person holds the ticket open is its acceptance, written with the change itself.
      const accepting = set.status === 'open' && set.userId != null;
      // The change, its history entry and its events' outbox rows commit together (docs/events.md "The outbox").
      let done: { updated: TicketRow; view: TicketView; metas: EmitMeta[] };
      try {
        done = await db.transaction(async (tx) => {
          const [updated] = (await tx
            .update(tickets)
            .set(accepting ? { ...set, acceptedAt: sql`coalesce(${tickets.acceptedAt}, now())` } : set)
            .where(eq(tickets.id, id))
            .returning()) as [TicketRow];
          await history(tx, t.companyId, updated, action, t.userId, {
            from: { status: current.status, userId: current.userId, queueId: current.queueId },
            ...(updated.priority !== current.priority
              ? { priority: { from: current.priority, to: updated.priority } }
              : {}),
          });
          const view = (await ticketQueries.byId(tx as unknown as Db, t.companyId, id))!;
          const change: TicketChange = { actor: 'user', by: t.userId, action, before: current };
          const metas =
            (await deps.bus?.stage?.(tx, [
              { event: 'ticket.announced', payload: announcement(t.companyId, view, change) },
              {
                event: 'ticket.changed',
                payload: { companyId: t.companyId, before: current, after: updated, action, by: t.userId },
              },
            ])) ?? [];
          return { updated, view, metas };
        });
      } catch (err) {
        if (isUniqueViolation(err, 'tickets_one_active_uq')) {
          const other = await otherOpenTicket(
            t.companyId,
            current.contactId,
            set.whatsappId ?? current.whatsappId,
            id,
          );
          if (other) throw otherOpenError(other);
        }
        throw err;
      }
      const { updated, view, metas } = done;
      emitTicket(t.companyId, view, { actor: 'user', by: t.userId, action, before: current }, metas[0]);

      // Automatic messages, ratings and automations listen (after the change is visible). The answer waits
      // for them, as it always did: once it is back, the greeting went out and the rating question waits.
      await deps.bus?.emit(
        'ticket.changed',
        { companyId: t.companyId, before: current, after: updated, action, by: t.userId },
        metas[1],
      );
      return (await ticketQueries.byId(db, t.companyId, id))!;
    },

    async remove(t: Tenant, id: number) {
      const r = await row(t, id);
      await db.delete(tickets).where(eq(tickets.id, id));
      const payload = { action: 'delete' as const, ticketId: id };
      events.toRoom(ticketEventRooms(t.companyId, r), t.companyId, 'ticket', payload);
      return { message: 'Ticket deleted' };
    },

    async histories(t: Tenant, id: number) {
      await visibleRow(t, id);
      const rows = await db
        .select({
          id: ticketHistories.id,
          action: ticketHistories.action,
          status: ticketHistories.status,
          createdAt: ticketHistories.createdAt,
          user: { id: users.id, name: users.name },
          queue: { id: queues.id, name: queues.name, color: queues.color },
          whatsapp: { id: whatsapps.id, name: whatsapps.name },
        })
        .from(ticketHistories)
        .leftJoin(users, eq(users.id, ticketHistories.userId))
        .leftJoin(queues, eq(queues.id, ticketHistories.queueId))
        .leftJoin(whatsapps, eq(whatsapps.id, ticketHistories.whatsappId))
        .where(eq(ticketHistories.ticketId, id))
        .orderBy(asc(ticketHistories.id));
      return rows.map((r) => ({
        ...r,
        createdAt: r.createdAt.toISOString(),
        user: r.user?.id ? r.user : null,
        queue: r.queue?.id ? r.queue : null,
        whatsapp: r.whatsapp?.id ? r.whatsapp : null,
      }));
    },

    // Internal notes of a ticket (docs/product.md#entities Ticket note).
    async addNote(t: Tenant, input: { note: string; ticketId: number; contactId?: number }) {
      const r = await visibleRow(t, input.ticketId);
      // The note and its timeline entry (#32.5) are written together.
      const n = await db.transaction(async (tx) => {
        const [note] = await tx
          .insert(ticketNotes)
          .values({
            companyId: t.companyId,
            ticketId: r.id,
            contactId: r.contactId,
            userId: t.userId,
            note: input.note,
          })
          .returning();
        await recordTicketEvent(tx, {
          companyId: t.companyId,
          ticketId: r.id,
          type: 'note',
          actorId: t.userId,
          data: { noteId: note!.id, note: input.note.slice(0, 200) },
        });
        return note;
      });
      const [u] = await db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(eq(users.id, t.userId));
      return {
        id: n!.id,
        note: n!.note,
        ticketId: n!.ticketId,
        contactId: n!.contactId,
        user: u ?? null,
        createdAt: n!.createdAt.toISOString(),
      };
    },
    async listNotes(t: Tenant, q: { ticketId?: number; contactId?: number }) {
      if (!q.ticketId && !q.contactId) throw new AppError('ERR_VALIDATION', 400, 'ticketId or contactId');
      if (q.ticketId) await visibleRow(t, q.ticketId);
      // By contact: only the notes of the contact's tickets the caller may see (the visibility rule).
      const viewer = await loadViewer(db, t);
      const rows = await db
        .select({
          id: ticketNotes.id,
          note: ticketNotes.note,
          ticketId: ticketNotes.ticketId,
          contactId: ticketNotes.contactId,
          createdAt: ticketNotes.createdAt,
          user: { id: users.id, name: users.name },
        })
        .from(ticketNotes)
        .innerJoin(tickets, eq(tickets.id, ticketNotes.ticketId))
        .leftJoin(users, eq(users.id, ticketNotes.userId))
        .where(
          and(
            eq(ticketNotes.companyId, t.companyId),
            q.ticketId ? eq(ticketNotes.ticketId, q.ticketId) : undefined,
            q.contactId ? eq(ticketNotes.contactId, q.contactId) : undefined,
            visibleWhere(viewer),
          ),
        )
        .orderBy(asc(ticketNotes.id));
      return rows.map((r) => ({
        ...r,
        createdAt: r.createdAt.toISOString(),
        user: r.user?.id ? r.user : null,
      }));
    },
    async removeNote(t: Tenant, id: number) {
      const [n] = await db
        .select()
        .from(ticketNotes)
        .where(and(eq(ticketNotes.id, id), eq(ticketNotes.companyId, t.companyId)));
      if (!n) throw new AppError('ERR_NOT_FOUND', 404, 'note not found');
      if (n.userId !== t.userId && t.profile !== 'admin') throw new AppError('ERR_NO_PERMISSION', 403);
      await db.delete(ticketNotes).where(eq(ticketNotes.id, id));
      return { message: 'Note deleted' };
    },
  };
}
export type TicketService = ReturnType<typeof ticketService>;
