import { and, asc, desc, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import {
  PAGE_SIZE,
  SCHEDULE_BODY_MAX,
  SCHEDULE_PAST_TOLERANCE_MS,
  type Schedule,
  type ScheduleConnection,
  type ScheduleConnectionQuery,
  type ScheduleEvent,
  type ScheduleInputParsed,
  type ScheduleListQuery,
  type ScheduleStatus,
  type ScheduleUpdate,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { z } from 'zod';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import {
  contacts,
  schedules,
  ticketHistories,
  tickets,
  users,
  whatsapps,
  type ScheduleTemplate,
} from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { MessageService } from '../messages/message-service.js';
import type { MessageTemplateService } from '../message-templates/message-template-service.js';
import type { UploadedFile } from '../quick-messages/quick-message-service.js';
import { mimeOf } from '../../http/uploads.js';
import { containsText } from '../../lib/sql.js';
import {
  canSeeTicket,
  isManager,
  loadViewer,
  ticketQueries,
  visibleWhere,
} from '../tickets/ticket-queries.js';
import { scheduleEventRooms } from '../../realtime/room-policy.js';
import type { DomainBus } from '../../events/domain-events.js';
import { truncate } from '../../lib/text.js';
import type { EmitTicket } from '../tickets/ticket-service.js';

type Row = typeof schedules.$inferSelect;
type TicketRow = typeof tickets.$inferSelect;

/** The durable job that sends a schedule; one per schedule, keyed `schedule:{id}`. */
export const SCHEDULE_JOB = 'schedule-send';
export const scheduleJobKey = (id: number) => `schedule:${id}`;
/** A claim older than this, never finished, belongs to a process that died while sending. */
export const STALE_CLAIM_MS = 2 * 60 * 1000;
/** Calendar ranges answer up to this many schedules per page. */
const RANGE_PAGE_SIZE = 500;

/** The parts of the jobs module (server/src/jobs) this service uses. */
export type ScheduleJobs = Pick<JobQueue, 'schedule' | 'cancel'>;
export interface ScheduleClock {
  now(): Date;
}

const UNSENT: ScheduleStatus[] = ['PENDENTE', 'ERRO'];

/**
 * Owner, admins and supervisors change a schedule they may see. Who sees one is the ticket rule
 * (docs/visibility.md): a schedule on a ticket is seen by those who may see that ticket; one without a ticket
 * by every user of the company, like its contact.
 */
const mayChange = (t: Tenant, r: Pick<Row, 'userId'>) =>
  r.userId === t.userId || t.profile === 'admin' || t.profile === 'supervisor' || t.super;

/** The reason stored on ERRO: "CODE: text" for known failures, so the screen can translate the code. */
export function failureReason(err: unknown): string {
  if (err instanceof AppError) return truncate(`${err.code}: ${err.message}`, 500);
  return truncate(err instanceof Error ? err.message : String(err), 500) || 'ERR_SENDING_WAPP_MSG';
}

export function scheduleService(deps: {
  db: Db;
  events: Events;
  media: MediaStore;
  clock: ScheduleClock;
  jobs: ScheduleJobs;
  messages: MessageService;
  /** Cloud API templates: checked when a schedule is saved and again when it is sent. */
  templates?: Pick<MessageTemplateService, 'prepareSend'>;
  emitTicket: EmitTicket;
  /** ticket.created for the tickets a firing schedule opens (webhooks listen). */
  bus?: Pick<DomainBus, 'emit'>;
  log: { warn(o: object, m: string): void; info?(o: object, m: string): void };
}) {
  const { db, events, media, clock } = deps;

  const select = () =>
    db
      .select({
        s: schedules,
        contact: { id: contacts.id, name: contacts.name, number: contacts.number },
        user: { id: users.id, name: users.name },
        // The ticket it names, as the visibility rule reads it (null: no ticket).
        ticket: { id: tickets.id, userId: tickets.userId, queueId: tickets.queueId, status: tickets.status },
      })
      .from(schedules)
      .innerJoin(contacts, eq(contacts.id, schedules.contactId))
      .leftJoin(users, eq(users.id, schedules.userId))
      .leftJoin(tickets, eq(tickets.id, schedules.ticketId));
  type Joined = Awaited<ReturnType<ReturnType<typeof select>['execute']>>[number];

  const view = ({ s, contact, user }: Joined): Schedule => ({
    id: s.id,
    companyId: s.companyId,
    body: s.body,
    contactId: s.contactId,
    ticketId: s.ticketId,
    userId: s.userId,
    whatsappId: s.whatsappId,
    sendAt: s.sendAt.toISOString(),
    sentAt: s.sentAt?.toISOString() ?? null,
    status: s.status as ScheduleStatus,
    template: s.template ?? null,
    error: s.error,
    mediaName: s.mediaName,
    mediaPath: s.mediaPath ? `/api/schedules/${s.id}/media` : null,
    contact,
    user: user?.id ? { id: user.id, name: user.name ?? '' } : null,
    sentTicketId: s.sentTicketId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  });

  /** The ticket a joined row names, or null (none, or deleted since). */
  const ticketOf = (hit: Pick<Joined, 'ticket'>) => (hit.ticket?.id ? hit.ticket : null);

  /** The caller's schedules as SQL: without a ticket, or on a ticket the caller may see. */
  async function visibleToCaller(t: Tenant) {
    if (isManager(t)) return undefined;
    const onTicket = visibleWhere(await loadViewer(db, t));
    return onTicket ? or(isNull(schedules.ticketId), onTicket) : undefined;
  }

  /** One schedule the caller may see; another company's, or one on a ticket hidden from the caller: 404. */
  async function load(t: Tenant, id: number): Promise<Joined> {
    const [hit] = await select().where(and(eq(schedules.id, id), eq(schedules.companyId, t.companyId)));
    const ticket = hit && ticketOf(hit);
    if (!hit || (ticket && !isManager(t) && !canSeeTicket(await loadViewer(db, t), ticket)))
      throw new AppError('ERR_NOT_FOUND', 404, 'Schedule not found');
    return hit;
  }

  /** A schedule's event, to those who may see it (realtime/room-policy.ts scheduleEventRooms). */
  const emit = (companyId: number, ticket: Joined['ticket'] | null, payload: ScheduleEvent) =>
    events.toRoom(scheduleEventRooms(companyId, ticket?.id ? ticket : null), companyId, 'schedule', payload);

  async function emitId(companyId: number, id: number, action: 'create' | 'update') {
    const [hit] = await select().where(and(eq(schedules.id, id), eq(schedules.companyId, companyId)));
    if (!hit) return undefined;
    const schedule = view(hit);
    emit(companyId, ticketOf(hit), { action, schedule });
    return schedule;
  }

  /** Contact, connection and ticket named by the input must belong to the company. */
  async function checkRefs(t: Tenant, input: Partial<ScheduleInputParsed>) {
    if (input.contactId !== undefined) {
      const [c] = await db
        .select({ id: contacts.id, number: contacts.number })
        .from(contacts)
        .where(and(eq(contacts.id, input.contactId), eq(contacts.companyId, t.companyId)));
      if (!c) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
      if (!c.number) throw new AppError('ERR_WAPP_INVALID_CONTACT', 400, 'The contact has no number');
    }
    if (input.whatsappId) {
      const [w] = await db
        .select({ id: whatsapps.id })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, input.whatsappId), eq(whatsapps.companyId, t.companyId)));
      if (!w) throw new AppError('ERR_NO_WAPP_FOUND', 404);
    }
    if (input.ticketId) {
      const [tk] = await db
        .select({ id: tickets.id, userId: tickets.userId, queueId: tickets.queueId, status: tickets.status })
        .from(tickets)
        .where(and(eq(tickets.id, input.ticketId), eq(tickets.companyId, t.companyId)));
      if (!tk) throw new AppError('ERR_NO_TICKET_FOUND', 404);
      // Scheduling into a ticket is writing into it: only a ticket the caller may see (docs/visibility.md).
      if (!canSeeTicket(await loadViewer(db, t), tk)) throw new AppError('ERR_NO_PERMISSION', 403);
    }
    if (input.sendAt && input.sendAt.getTime() < clock.now().getTime() - SCHEDULE_PAST_TOLERANCE_MS)
      throw new AppError('ERR_VALIDATION', 400, 'sendAt is in the past');
  }

  /**
   * The connection a schedule goes out on, as `ticketFor` picks it when it falls due: the one it names,
   * else the contact's active ticket's, else the company's default. Null when there is none.
   */
  async function connectionFor(companyId: number, contactId: number, whatsappId: number | null) {
    let id = whatsappId;
    if (!id) {
      const [active] = await db
        .select({ whatsappId: tickets.whatsappId })
        .from(tickets)
        .where(
          and(
            eq(tickets.companyId, companyId),
            eq(tickets.contactId, contactId),
            sql`${tickets.status} <> 'closed'`,
          ),
        )
        .orderBy(desc(tickets.updatedAt), desc(tickets.id))
        .limit(1);
      id = active?.whatsappId ?? null;
    }
    const [w] = await db
      .select({ id: whatsapps.id, name: whatsapps.name, channel: whatsapps.channel })
      .from(whatsapps)
      .where(
        and(eq(whatsapps.companyId, companyId), id ? eq(whatsapps.id, id) : eq(whatsapps.isDefault, true)),
      )
      .limit(1);
    return w ?? null;
  }

  /**
   * A template schedule (docs/cloud-api.md): its connection must be a Cloud API one with that template
   * stored, approved, and given the right number of values (the ticket send's checks and codes). Answers
   * the connection it is pinned to and the text it is stored with.
   */
  async function checkTemplate(
    companyId: number,
    contactId: number,
    whatsappId: number | null,
    template: ScheduleTemplate,
  ) {
    const w = await connectionFor(companyId, contactId, whatsappId);
    if (!w) throw new AppError(whatsappId ? 'ERR_NO_WAPP_FOUND' : 'ERR_NO_DEF_WAPP_FOUND', 404);
    if (w.channel !== 'cloud_api')
      throw new AppError('ERR_VALIDATION', 400, 'Only a WhatsApp Cloud API connection sends templates');
    if (!deps.templates) throw new AppError('ERR_NO_TEMPLATE_FOUND', 404);
    const prepared = await deps.templates.prepareSend(companyId, w.id, template);
    return { whatsappId: w.id, body: truncate(prepared.body, SCHEDULE_BODY_MAX) };
  }

  /** Sends the schedule at its time (registered by app.ts). */
  const sendJob = defineJob({
    kind: SCHEDULE_JOB,
    payload: z.object({ scheduleId: z.number().int().positive() }),
    handler: (job) => send(job.payload.scheduleId),
  });

  const job = (r: Row) => ({
    key: scheduleJobKey(r.id),
    runAt: r.sendAt,
    payload: { scheduleId: r.id },
    companyId: r.companyId,
  });

  /** Only an unsent schedule changes, and only by its owner or a manager. */
  async function changeable(t: Tenant, id: number) {
    const hit = await load(t, id);
    if (!mayChange(t, hit.s)) throw new AppError('ERR_NO_PERMISSION', 403);
    if (!UNSENT.includes(hit.s.status as ScheduleStatus) || hit.s.sentAt)
      throw new AppError('ERR_NO_PERMISSION', 403, 'Only an unsent schedule can be changed');
    return hit;
  }

  // ---- sending ------------------------------------------------------------------------------------

  /** The contact's active ticket (on the schedule's connection when it names one), or a new open one. */
  async function ticketFor(r: Row): Promise<TicketRow> {
    const [active] = await db
      .select()
      .from(tickets)
      .where(
        and(
          eq(tickets.companyId, r.companyId),
          eq(tickets.contactId, r.contactId),
          sql`${tickets.status} <> 'closed'`,
          r.whatsappId ? eq(tickets.whatsappId, r.whatsappId) : undefined,
        ),
      )
      .orderBy(desc(tickets.updatedAt), desc(tickets.id))
      .limit(1);
    if (active) return active;
    const [w] = await db
      .select()
      .from(whatsapps)
      .where(
        and(
          eq(whatsapps.companyId, r.companyId),
          r.whatsappId ? eq(whatsapps.id, r.whatsappId) : eq(whatsapps.isDefault, true),
        ),
      );
    if (!w) throw new AppError(r.whatsappId ? 'ERR_NO_WAPP_FOUND' : 'ERR_NO_DEF_WAPP_FOUND', 404);
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, r.contactId));
    let created: TicketRow | undefined;
    try {
      [created] = await db
        .insert(tickets)
        .values({
          companyId: r.companyId,
          contactId: r.contactId,
          whatsappId: w.id,
          // The schedule's author attends the conversation it starts.
          status: r.userId ? 'open' : 'pending',
          userId: r.userId,
          isGroup: contact?.isGroup ?? false,
        })
        .returning();
    } catch (err) {
      // A customer's message opened one meanwhile: use it.
      if (!isUniqueViolation(err, 'tickets_one_active_uq')) throw err;
      const [raced] = await db
        .select()
        .from(tickets)
        .where(
          and(
            eq(tickets.contactId, r.contactId),
            eq(tickets.whatsappId, w.id),
            sql`${tickets.status} <> 'closed'`,
          ),
        );
      if (!raced) throw err;
      return raced;
    }
    await db.insert(ticketHistories).values({
      companyId: r.companyId,
      ticketId: created!.id,
      action: 'create',
      userId: r.userId,
      whatsappId: w.id,
      status: created!.status,
      data: { scheduleId: r.id },
    });
    const v = await ticketQueries.byId(db, r.companyId, created!.id);
    if (v) deps.emitTicket(r.companyId, v, { actor: 'schedule', before: null, by: r.userId });
    deps.bus?.emit('ticket.created', { companyId: r.companyId, ticketId: created!.id });
    return created!;
  }

  /**
   * The job handler. Claims the schedule (PENDENTE → AGENDADA) with a conditional UPDATE before anything
   * is sent, so a second run of the same job (at-least-once delivery, another process, a retry) sends
   * nothing. A claim that was never finished (the process died while sending) is resolved by whether the
   * message had been stored and handed to the outbox (see below).
   */
  async function send(scheduleId: number): Promise<void> {
    const now = clock.now();
    const [claimed] = await db
      .update(schedules)
      .set({ status: 'AGENDADA', claimedAt: now, updatedAt: now })
      .where(
        and(
          eq(schedules.id, scheduleId),
          eq(schedules.status, 'PENDENTE'),
          sql`${schedules.sendAt} <= ${now}`,
        ),
      )
      .returning();
    if (!claimed) {
      const [current] = await db.select().from(schedules).where(eq(schedules.id, scheduleId));
      if (current?.status !== 'AGENDADA') return; // deleted, sent, failed, or moved later
      if (current.claimedAt && now.getTime() - current.claimedAt.getTime() < STALE_CLAIM_MS)
        throw new Error(`schedule ${scheduleId} is being sent`); // let the job retry later
      // A claim left by a process that died. The message and its outbox row are stored in the same
      // transaction that records the hand-over (sentTicketId), so the database says which side of the
      // hand-over the crash fell on: handed over → the outbox owns the delivery, the schedule is sent;
      // not handed over → nothing reached the customer, so it is sent now. Never lost, never twice.
      const [recovered] = current.sentTicketId
        ? await db
            .update(schedules)
            .set({ status: 'ENVIADA', sentAt: current.claimedAt ?? now, error: null, updatedAt: now })
            .where(and(eq(schedules.id, scheduleId), eq(schedules.status, 'AGENDADA')))
            .returning()
        : await db
            .update(schedules)
            .set({ status: 'PENDENTE', claimedAt: null, updatedAt: now })
            .where(
              and(
                eq(schedules.id, scheduleId),
                eq(schedules.status, 'AGENDADA'),
                isNull(schedules.sentTicketId),
              ),
            )
            .returning();
      if (!recovered) return;
      if (recovered.status === 'ENVIADA') {
        await emitId(recovered.companyId, recovered.id, 'update');
        return;
      }
      return send(scheduleId);
    }
    await emitId(claimed.companyId, claimed.id, 'update');
    let outcome: Partial<Row>;
    try {
      const ticket = await ticketFor(claimed);
      // A template is checked again: Meta may have paused or removed it since the schedule was saved.
      const prepared =
        claimed.template && ticket.whatsappId
          ? await deps.templates?.prepareSend(claimed.companyId, ticket.whatsappId, claimed.template)
          : undefined;
      if (claimed.template && !prepared) throw new AppError('ERR_NO_TEMPLATE_FOUND', 404);
      const file =
        claimed.mediaPath && !prepared
          ? {
              mimetype: mimeOf(claimed.mediaName ?? claimed.mediaPath),
              filename: claimed.mediaName ?? 'image.jpg',
              data: await media.read(claimed.mediaPath),
              asVoice: false,
            }
          : undefined;
      await deps.messages.deliver(claimed.companyId, ticket, {
        body: prepared?.body ?? claimed.body,
        ...(prepared ? { template: prepared.template } : {}),
        file,
        userId: claimed.userId,
        onStored: async (tx) => {
          await tx
            .update(schedules)
            .set({ sentTicketId: ticket.id })
            .where(and(eq(schedules.id, scheduleId), eq(schedules.status, 'AGENDADA')));
        },
      });
      outcome = { status: 'ENVIADA', sentAt: clock.now(), sentTicketId: ticket.id, error: null };
    } catch (err) {
      deps.log.warn({ err, scheduleId }, 'scheduled message not sent');
      outcome = { status: 'ERRO', error: failureReason(err) };
    }
    await db
      .update(schedules)
      .set({ ...outcome, updatedAt: clock.now() })
      .where(and(eq(schedules.id, scheduleId), eq(schedules.status, 'AGENDADA')));
    await emitId(claimed.companyId, claimed.id, 'update');
  }

  async function insert(
    companyId: number,
    userId: number | null,
    input: Pick<ScheduleInputParsed, 'contactId' | 'sendAt' | 'whatsappId' | 'ticketId'> & {
      body: string;
      template?: ScheduleTemplate | null;
    },
  ) {
    const created = await db.transaction(async (tx) => {
      const [r] = await tx
        .insert(schedules)
        .values({
          companyId,
          body: input.body,
          contactId: input.contactId,
          ticketId: input.ticketId ?? null,
          whatsappId: input.whatsappId ?? null,
          userId,
          sendAt: input.sendAt,
          template: input.template ?? null,
          status: 'PENDENTE',
        })
        .returning();
      // In the same transaction: a schedule never exists without its job.
      await deps.jobs.schedule(sendJob, job(r!), tx);
      return r!;
    });
    return (await emitId(companyId, created.id, 'create'))!;
  }

  return {
    jobs: { send: sendJob },
    send,

    async list(t: Tenant, q: ScheduleListQuery) {
      const size = q.from || q.to ? RANGE_PAGE_SIZE : PAGE_SIZE;
      const term = q.searchParam;
      const rows = await select()
        .where(
          and(
            eq(schedules.companyId, t.companyId),
            await visibleToCaller(t),
            q.contactId ? eq(schedules.contactId, q.contactId) : undefined,
            q.userId ? eq(schedules.userId, q.userId) : undefined,
            q.status ? eq(schedules.status, q.status) : undefined,
            q.from ? gte(schedules.sendAt, q.from) : undefined,
            q.to ? lt(schedules.sendAt, q.to) : undefined,
            term ? or(containsText(schedules.body, term), containsText(contacts.name, term)) : undefined,
          ),
        )
        .orderBy(asc(schedules.sendAt), asc(schedules.id))
        .limit(size + 1)
        .offset((q.pageNumber - 1) * size);
      return { schedules: rows.slice(0, size).map(view), hasMore: rows.length > size };
    },

    get: async (t: Tenant, id: number) => view(await load(t, id)),

    /** The connection a schedule to this contact would go out on (the dialog offers templates on Cloud API). */
    async connection(t: Tenant, q: ScheduleConnectionQuery): Promise<ScheduleConnection> {
      await checkRefs(t, { contactId: q.contactId, whatsappId: q.whatsappId });
      return { connection: await connectionFor(t.companyId, q.contactId, q.whatsappId ?? null) };
    },

    async create(t: Tenant, input: ScheduleInputParsed) {
      await checkRefs(t, input);
      if (!input.template) return insert(t.companyId, t.userId, { ...input, body: input.body ?? '' });
      // Pinned to the connection the template belongs to.
      const pinned = await checkTemplate(
        t.companyId,
        input.contactId,
        input.whatsappId ?? null,
        input.template,
      );
      return insert(t.companyId, t.userId, { ...input, ...pinned });
    },

    /** A schedule made through the external API (docs/external-api.md): no author, refs already checked. */
    async createFromApi(
      companyId: number,
      input: Pick<ScheduleInputParsed, 'contactId' | 'sendAt' | 'whatsappId'> & { body: string },
    ) {
      if (input.sendAt.getTime() < clock.now().getTime() - SCHEDULE_PAST_TOLERANCE_MS)
        throw new AppError('ERR_VALIDATION', 400, 'sendAt is in the past');
      return insert(companyId, null, input);
    },

    async update(t: Tenant, id: number, input: ScheduleUpdate) {
      const { s: current } = await changeable(t, id);
      await checkRefs(t, input);
      const template = input.template === undefined ? current.template : input.template;
      let pinned: { whatsappId?: number | null; body?: string } = {};
      if (template)
        pinned = await checkTemplate(
          t.companyId,
          input.contactId ?? current.contactId,
          input.whatsappId === undefined ? current.whatsappId : input.whatsappId,
          template,
        );
      else if (input.template === null && !input.body)
        throw new AppError('ERR_VALIDATION', 400, 'body is required without a template');
      const updated = await db.transaction(async (tx) => {
        const [r] = await tx
          .update(schedules)
          .set({
            body: pinned.body ?? input.body,
            contactId: input.contactId,
            sendAt: input.sendAt,
            whatsappId: pinned.whatsappId ?? input.whatsappId,
            ticketId: input.ticketId,
            template: input.template === undefined ? undefined : input.template,
            // A failed schedule that is edited waits to be sent again.
            status: 'PENDENTE',
            error: null,
            claimedAt: null,
            updatedAt: new Date(),
          })
          .where(
            and(
              eq(schedules.id, id),
              eq(schedules.companyId, t.companyId),
              inArray(schedules.status, UNSENT),
              sql`${schedules.sentAt} is null`,
            ),
          )
          .returning();
        if (r) await deps.jobs.schedule(sendJob, job(r), tx);
        return r;
      });
      // Claimed by the sender between the check and the write.
      if (!updated) throw new AppError('ERR_NO_PERMISSION', 403, 'Only an unsent schedule can be changed');
      return (await emitId(t.companyId, id, 'update'))!;
    },

    async remove(t: Tenant, id: number) {
      const hit = await load(t, id);
      const { s } = hit;
      if (!mayChange(t, s)) throw new AppError('ERR_NO_PERMISSION', 403);
      const [gone] = await db
        .delete(schedules)
        .where(and(eq(schedules.id, id), eq(schedules.companyId, t.companyId)))
        .returning();
      if (!gone) throw new AppError('ERR_NOT_FOUND', 404, 'Schedule not found');
      // A job that runs anyway finds no schedule and does nothing.
      await deps.jobs
        .cancel(sendJob, scheduleJobKey(id))
        .catch((err: unknown) => deps.log.warn({ err, scheduleId: id }, 'schedule job not cancelled'));
      if (gone.mediaPath) await media.remove(gone.mediaPath);
      emit(t.companyId, ticketOf(hit), { action: 'delete', scheduleId: id });
      return { message: 'Schedule deleted' };
    },

    async setMedia(t: Tenant, id: number, file: UploadedFile) {
      const { s } = await changeable(t, id);
      if (s.template) throw new AppError('ERR_VALIDATION', 400, 'A template schedule takes no attachment');
      const path = await media.save(t.companyId, file.data, file.filename, 'schedules');
      const [r] = await db
        .update(schedules)
        .set({ mediaPath: path, mediaName: file.filename, updatedAt: new Date() })
        .where(
          and(eq(schedules.id, id), eq(schedules.companyId, t.companyId), inArray(schedules.status, UNSENT)),
        )
        .returning();
      if (!r) {
        await media.remove(path);
        throw new AppError('ERR_NO_PERMISSION', 403, 'Only an unsent schedule can be changed');
      }
      if (s.mediaPath) await media.remove(s.mediaPath);
      return (await emitId(t.companyId, id, 'update'))!;
    },

    async removeMedia(t: Tenant, id: number) {
      const { s } = await changeable(t, id);
      const [r] = await db
        .update(schedules)
        .set({ mediaPath: null, mediaName: null, updatedAt: new Date() })
        .where(
          and(eq(schedules.id, id), eq(schedules.companyId, t.companyId), inArray(schedules.status, UNSENT)),
        )
        .returning();
      if (!r) throw new AppError('ERR_NO_PERMISSION', 403, 'Only an unsent schedule can be changed');
      if (s.mediaPath) await media.remove(s.mediaPath);
      return (await emitId(t.companyId, id, 'update'))!;
    },

    async mediaFile(t: Tenant, id: number) {
      const { s } = await load(t, id);
      if (!s.mediaPath || !media.belongsTo(s.mediaPath, t.companyId))
        throw new AppError('ERR_NOT_FOUND', 404);
      return { data: await media.read(s.mediaPath), filename: s.mediaName ?? 'image.jpg' };
    },
  };
}
export type ScheduleService = ReturnType<typeof scheduleService>;
