import { and, asc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type {
  QueueOption,
  QueueOptionInput,
  QueueOptionListQuery,
  QueueOptionUpdate,
} from '@recado/contracts';
import { priorityOf, priorityRank } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { queueOptions, queues } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { requireQueueManager } from './queue-service.js';

type Row = typeof queueOptions.$inferSelect;

const UNIQUE_OPTION = 'queue_options_sibling_option_uq';

const view = (r: Row): QueueOption => ({
  id: r.id,
  queueId: r.queueId,
  parentId: r.parentId,
  title: r.title,
  message: r.message,
  option: r.option,
  priority: r.priority === null ? null : priorityOf(r.priority),
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** Numeric keys in numeric order ("2" before "10"), then the others alphabetically. */
const byOption = [
  sql`case when ${queueOptions.option} ~ '^[0-9]{1,9}$' then ${queueOptions.option}::int end asc nulls last`,
  asc(queueOptions.option),
  asc(queueOptions.id),
];

/** -1 and null both name the root of the tree. */
const parentOf = (parentId: number | null | undefined) =>
  parentId === undefined || parentId === null || parentId === -1 ? null : parentId;

const siblingsOf = (queueId: number, parentId: number | null): SQL =>
  and(
    eq(queueOptions.queueId, queueId),
    parentId === null ? isNull(queueOptions.parentId) : eq(queueOptions.parentId, parentId),
  )!;

function mapUnique(err: unknown): never {
  if (isUniqueViolation(err, UNIQUE_OPTION)) throw new AppError('ERR_QUEUE_OPTION_ALREADY_EXISTS', 409);
  throw err;
}

export function queueOptionService({ db }: { db: Db }) {
  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(queueOptions)
      .where(and(eq(queueOptions.id, id), eq(queueOptions.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_QUEUE_OPTION_FOUND', 404);
    return r;
  }

  async function assertQueue(companyId: number, queueId: number) {
    const [q] = await db
      .select({ id: queues.id })
      .from(queues)
      .where(and(eq(queues.id, queueId), eq(queues.companyId, companyId)));
    if (!q) throw new AppError('ERR_NO_QUEUE_FOUND', 404);
  }

  return {
    /**
     * GET /queue-options: without parentId every option of the queue (the editor builds the tree), with
     * parentId -1 the roots, with a parent's id its children; each level in option order.
     */
    async list(t: Tenant, q: QueueOptionListQuery): Promise<QueueOption[]> {
      if (q.parentId === 0) return [];
      const rows = await db
        .select()
        .from(queueOptions)
        .where(
          and(
            eq(queueOptions.companyId, t.companyId),
            q.queueId ? eq(queueOptions.queueId, q.queueId) : undefined,
            q.parentId === undefined
              ? undefined
              : q.parentId === -1
                ? isNull(queueOptions.parentId)
                : eq(queueOptions.parentId, q.parentId),
          ),
        )
        .orderBy(asc(queueOptions.queueId), ...byOption);
      return rows.map(view);
    },

    get: async (t: Tenant, id: number) => view(await row(t.companyId, id)),

    async create(t: Tenant, input: QueueOptionInput): Promise<QueueOption> {
      requireQueueManager(t);
      await assertQueue(t.companyId, input.queueId);
      const parentId = parentOf(input.parentId);
      if (parentId !== null) {
        const parent = await row(t.companyId, parentId);
        // A sub-option lives in its parent's queue.
        if (parent.queueId !== input.queueId)
          throw new AppError('ERR_VALIDATION', 400, 'The parent option belongs to another queue');
      }
      try {
        const [r] = await db
          .insert(queueOptions)
          .values({
            companyId: t.companyId,
            queueId: input.queueId,
            parentId,
            title: input.title,
            message: input.message,
            priority: input.priority ? priorityRank(input.priority) : null,
            // Left out: one more than the highest numeric key of its siblings.
            option:
              input.option ??
              sql`(select (coalesce(max(${queueOptions.option}::int), 0) + 1)::text from ${queueOptions}
                   where ${siblingsOf(input.queueId, parentId)} and ${queueOptions.option} ~ '^[0-9]{1,9}$')`,
          })
          .returning();
        return view(r!);
      } catch (err) {
        mapUnique(err);
      }
    },

    async update(t: Tenant, id: number, input: QueueOptionUpdate): Promise<QueueOption> {
      requireQueueManager(t);
      await row(t.companyId, id);
      try {
        const [r] = await db
          .update(queueOptions)
          .set({
            title: input.title,
            message: input.message,
            option: input.option,
            priority:
              input.priority === undefined ? undefined : input.priority && priorityRank(input.priority),
            updatedAt: new Date(),
          })
          .where(and(eq(queueOptions.id, id), eq(queueOptions.companyId, t.companyId)))
          .returning();
        if (!r) throw new AppError('ERR_NO_QUEUE_OPTION_FOUND', 404);
        return view(r);
      } catch (err) {
        mapUnique(err);
      }
    },

    /** Its sub-options go with it (the parent key cascades). */
    async remove(t: Tenant, id: number) {
      requireQueueManager(t);
      const [gone] = await db
        .delete(queueOptions)
        .where(and(eq(queueOptions.id, id), eq(queueOptions.companyId, t.companyId)))
        .returning({ id: queueOptions.id });
      if (!gone) throw new AppError('ERR_NO_QUEUE_OPTION_FOUND', 404);
      return { message: 'Option deleted' };
    },
  };
}
export type QueueOptionService = ReturnType<typeof queueOptionService>;
