import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { PlanInput } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { companies, plans } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';

const toPlan = (p: typeof plans.$inferSelect) => ({
  ...p,
  value: Number(p.value),
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

const isForeignKeyViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return (e?.code ?? e?.cause?.code) === '23503';
};

export function planService({ db }: { db: Db }) {
  const get = async (id: number) => {
    const [p] = await db.select().from(plans).where(eq(plans.id, id));
    if (!p) throw new AppError('ERR_NO_PLAN_FOUND', 404);
    return toPlan(p);
  };
  /** Plan names are unique whatever their case ("Ouro" and "OURO" would confuse every screen). */
  const assertNameFree = async (name: string, exceptId?: number) => {
    const lower = sql`lower(${plans.name}) = lower(${name})`;
    const [taken] = await db
      .select({ id: plans.id })
      .from(plans)
      .where(exceptId ? and(lower, ne(plans.id, exceptId)) : lower)
      .limit(1);
    if (taken) throw new AppError('ERR_PLAN_NAME_ALREADY_EXISTS', 409);
  };
  return {
    /** Public: the signup page offers these. */
    async listPublic() {
      const rows = await db
        .select()
        .from(plans)
        .where(eq(plans.isPublic, true))
        .orderBy(asc(plans.value), asc(plans.id));
      return rows.map(toPlan);
    },
    async listAll(_t: Tenant) {
      return (await db.select().from(plans).orderBy(asc(plans.id))).map(toPlan);
    },
    get,
    async create(t: Tenant, input: PlanInput) {
      await assertNameFree(input.name);
      try {
        const [p] = await db.insert(plans).values(input).returning();
        return toPlan(p!);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('ERR_PLAN_NAME_ALREADY_EXISTS', 409);
        throw err;
      }
    },
    async update(t: Tenant, id: number, input: Partial<PlanInput>) {
      await get(id);
      if (input.name) await assertNameFree(input.name, id);
      try {
        const [p] = await db
          .update(plans)
          .set({ ...input, updatedAt: new Date() })
          .where(eq(plans.id, id))
          .returning();
        return toPlan(p!);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('ERR_PLAN_NAME_ALREADY_EXISTS', 409);
        throw err;
      }
    },
    async remove(t: Tenant, id: number) {
      await get(id);
      const [used] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(companies)
        .where(eq(companies.planId, id));
      if ((used?.n ?? 0) > 0) throw new AppError('ERR_PLAN_IN_USE', 409, 'Companies still use this plan');
      try {
        await db.delete(plans).where(eq(plans.id, id));
      } catch (err) {
        // A company moved onto the plan between the count and the delete.
        if (isForeignKeyViolation(err))
          throw new AppError('ERR_PLAN_IN_USE', 409, 'Companies still use this plan');
        throw err;
      }
      return { message: 'Plan deleted' };
    },
  };
}
export type PlanService = ReturnType<typeof planService>;
