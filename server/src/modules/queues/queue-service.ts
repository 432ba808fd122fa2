import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { can, type Queue, type QueueEvent, type QueueInput, type QueueUpdate } from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { companies, plans, prompts, queues } from '../../db/schema/index.js';
import { assertCompanyRefs } from '../../db/company-refs.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { DomainBus } from '../../events/domain-events.js';

type Row = typeof queues.$inferSelect;

const UNIQUE_COLOR = 'queues_company_color_ci_uq';

export const queueView = (r: Row): Queue => ({
  id: r.id,
  companyId: r.companyId,
  name: r.name,
  color: r.color,
  orderQueue: r.orderQueue,
  greetingMessage: r.greetingMessage,
  outOfHoursMessage: r.outOfHoursMessage,
  completionMessage: r.completionMessage,
  schedules: r.schedules,
  integrationId: r.integrationId,
  promptId: r.promptId,
  assignmentPolicy: r.assignmentPolicy,
  capacity: r.capacity,
  waitingMessage: r.waitingMessage,
  waitingMessageStep: r.waitingMessageStep,
  waitingMessageInterval: r.waitingMessageInterval,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** Only admins (and the platform's super users) change queues; every user of the company reads them. */
export const requireQueueManager = (t: Tenant) => {
  if (!can(t, 'queues:manage') && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
};

/** A colour taken by another queue of the company, whatever its case. */
async function assertColorFree(tx: Tx | Db, companyId: number, color: string, exceptId?: number) {
  const [taken] = await tx
    .select({ id: queues.id })
    .from(queues)
    .where(
      and(
        eq(queues.companyId, companyId),
        sql`lower(${queues.color}) = lower(${color})`,
        exceptId ? ne(queues.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  if (taken) throw new AppError('ERR_QUEUE_COLOR_ALREADY_EXISTS', 409);
}

/** The unique index answers the race two requests win past the check. */
function mapUnique(err: unknown): never {
  if (isUniqueViolation(err, UNIQUE_COLOR)) throw new AppError('ERR_QUEUE_COLOR_ALREADY_EXISTS', 409);
  throw err;
}

export function queueService({
  db,
  events,
  bus,
}: {
  db: Db;
  events: Events;
  /** `queue.changed` after a create or update (routing: a new policy or a raised capacity frees places). */
  bus?: Pick<DomainBus, 'emit'>;
}) {
  const emit = (companyId: number, payload: QueueEvent) => events.toCompany(companyId, 'queue', payload);

  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(queues)
      .where(and(eq(queues.id, id), eq(queues.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_QUEUE_FOUND', 404);
    return r;
  }

  return {
    row,

    /** GET /queue: the company's queues by bot order, then name. A super user may name another company. */
    async list(t: Tenant, companyId?: number): Promise<Queue[]> {
      const cid = t.super && companyId ? companyId : t.companyId;
      const rows = await db
        .select()
        .from(queues)
        .where(eq(queues.companyId, cid))
        .orderBy(sql`${queues.orderQueue} asc nulls last`, asc(queues.name), asc(queues.id));
      return rows.map(queueView);
    },

    get: async (t: Tenant, id: number) => queueView(await row(t.companyId, id)),

    async create(t: Tenant, input: QueueInput): Promise<Queue> {
      let created: Row;
      try {
        created = await db.transaction(async (tx) => {
          // Lock the company row: two concurrent creations cannot both pass the plan's queue limit.
          const [limit] = await tx
            .select({ max: plans.queues })
            .from(companies)
            .innerJoin(plans, eq(plans.id, companies.planId))
            .where(eq(companies.id, t.companyId))
            .for('update', { of: companies });
          if (!limit) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
          const [count] = await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(queues)
            .where(eq(queues.companyId, t.companyId));
          if ((count?.n ?? 0) >= limit.max)
            throw new AppError('ERR_QUEUE_LIMIT_REACHED', 403, `The plan allows ${limit.max} queues`);
          await assertColorFree(tx, t.companyId, input.color);
          await assertCompanyRefs(tx, t.companyId, {
            prompt: input.promptId,
            integration: input.integrationId,
          });
          const [r] = await tx
            .insert(queues)
            .values({
              companyId: t.companyId,
              name: input.name,
              color: input.color,
              orderQueue: input.orderQueue ?? null,
              greetingMessage: input.greetingMessage,
              outOfHoursMessage: input.outOfHoursMessage,
              completionMessage: input.completionMessage,
              schedules: input.schedules,
              integrationId: input.integrationId ?? null,
              promptId: input.promptId ?? null,
              assignmentPolicy: input.assignmentPolicy,
              capacity: input.capacity ?? null,
              waitingMessage: input.waitingMessage,
              waitingMessageStep: input.waitingMessageStep,
              waitingMessageInterval: input.waitingMessageInterval,
            })
            .returning();
          return r!;
        });
      } catch (err) {
        mapUnique(err);
      }
      const queue = queueView(created);
      emit(t.companyId, { action: 'create', queue });
      bus?.emit('queue.changed', { companyId: t.companyId, queueId: queue.id });
      return queue;
    },

    async update(t: Tenant, id: number, input: QueueUpdate): Promise<Queue> {
      await row(t.companyId, id);
      const changes: Partial<typeof queues.$inferInsert> = {
        name: input.name,
        color: input.color,
        orderQueue: input.orderQueue,
        greetingMessage: input.greetingMessage,
        outOfHoursMessage: input.outOfHoursMessage,
        completionMessage: input.completionMessage,
        schedules: input.schedules,
        integrationId: input.integrationId,
        promptId: input.promptId,
        assignmentPolicy: input.assignmentPolicy,
        capacity: input.capacity,
        waitingMessage: input.waitingMessage,
        waitingMessageStep: input.waitingMessageStep,
        waitingMessageInterval: input.waitingMessageInterval,
        updatedAt: new Date(),
      };
      let updated: Row | undefined;
      try {
        updated = await db.transaction(async (tx) => {
          if (input.color) await assertColorFree(tx, t.companyId, input.color, id);
          await assertCompanyRefs(tx, t.companyId, {
            prompt: input.promptId,
            integration: input.integrationId,
          });
          const [r] = await tx
            .update(queues)
            .set(changes)
            .where(and(eq(queues.id, id), eq(queues.companyId, t.companyId)))
            .returning();
          return r;
        });
      } catch (err) {
        mapUnique(err);
      }
      // Deleted between the read and the write.
      if (!updated) throw new AppError('ERR_NO_QUEUE_FOUND', 404);
      const queue = queueView(updated);
      emit(t.companyId, { action: 'update', queue });
      bus?.emit('queue.changed', { companyId: t.companyId, queueId: queue.id });
      return queue;
    },

    /**
     * Users and connections lose the queue (their links cascade), tickets stay with no queue (set null),
     * and the option tree goes with it.
     */
    async remove(t: Tenant, id: number) {
      const [gone] = await db.transaction(async (tx) => {
        // The queue's AI prompts go with it (cascade): other queues that used them lose them.
        await tx
          .update(queues)
          .set({ promptId: null })
          .where(
            and(
              eq(queues.companyId, t.companyId),
              inArray(
                queues.promptId,
                tx
                  .select({ id: prompts.id })
                  .from(prompts)
                  .where(and(eq(prompts.queueId, id), eq(prompts.companyId, t.companyId))),
              ),
            ),
          );
        return tx
          .delete(queues)
          .where(and(eq(queues.id, id), eq(queues.companyId, t.companyId)))
          .returning({ id: queues.id });
      });
      if (!gone) throw new AppError('ERR_NO_QUEUE_FOUND', 404);
      emit(t.companyId, { action: 'delete', queueId: id });
      return { message: 'Queue deleted' };
    },
  };
}
export type QueueService = ReturnType<typeof queueService>;
