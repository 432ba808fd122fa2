import { and, asc, eq, sql } from 'drizzle-orm';
import type {
  ClosingReason,
  ClosingReasonInput,
  ClosingReasonMode,
  ClosingReasonUpdate,
  SettingKey,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { closingReasons } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { readSetting } from '../settings/setting-service.js';

type Row = typeof closingReasons.$inferSelect;

const UNIQUE_NAME = 'closing_reasons_company_name_uq';

export const closingReasonView = (r: Row): ClosingReason => ({
  id: r.id,
  companyId: r.companyId,
  name: r.name,
  active: r.active,
  position: r.position,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** A 400 naming the field that failed (ErrorBody.fields), as the schemas' own errors do. */
export const fieldError = (path: string, message: string) =>
  new AppError('ERR_VALIDATION', 400, `${path}: ${message}`, { fields: [{ path, message }] });

function mapUnique(err: unknown): never {
  if (isUniqueViolation(err, UNIQUE_NAME)) throw fieldError('name', 'a closing reason with this name exists');
  throw err;
}

/** The company's closingReasonMode (an unknown stored value reads as 'off'). */
export async function closingReasonMode(db: Db, companyId: number): Promise<ClosingReasonMode> {
  const v = await readSetting(db, companyId, 'closingReasonMode' satisfies SettingKey);
  return v === 'optional' || v === 'required' ? v : 'off';
}

/**
 * #32.3 What a resolve (PUT /tickets/{id} {status:'closed'}) writes of its reason and sale value, after
 * checking them: the reason must be one of the company's active reasons (another company's is refused as
 * unknown), and is required when the company's mode is 'required'. Nothing is written when this throws.
 */
export async function closingFields(
  db: Db,
  companyId: number,
  input: { closingReasonId?: number | null; saleValue?: number | null },
): Promise<{ closingReasonId: number | null; saleValue: string | null }> {
  const reasonId = input.closingReasonId ?? null;
  if (reasonId === null) {
    if ((await closingReasonMode(db, companyId)) === 'required')
      throw fieldError('closingReasonId', 'a closing reason is required to resolve');
  } else {
    const [r] = await db
      .select({ id: closingReasons.id, active: closingReasons.active })
      .from(closingReasons)
      .where(and(eq(closingReasons.id, reasonId), eq(closingReasons.companyId, companyId)));
    if (!r) throw fieldError('closingReasonId', 'unknown closing reason');
    if (!r.active) throw fieldError('closingReasonId', 'this closing reason is inactive');
  }
  const sale = input.saleValue ?? null;
  return { closingReasonId: reasonId, saleValue: sale === null ? null : sale.toFixed(2) };
}

/** The company's closing reasons (docs/productivity.md "Closing reasons"): admins manage, everyone reads. */
export function closingReasonService({ db }: { db: Db }) {
  async function one(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(closingReasons)
      .where(and(eq(closingReasons.id, id), eq(closingReasons.companyId, companyId)));
    if (!r) throw new AppError('ERR_NOT_FOUND', 404, 'closing reason not found');
    return r;
  }

  return {
    /** Every reason of the company, in their order then by name (inactive ones too: the admin list shows them). */
    async list(t: Tenant): Promise<ClosingReason[]> {
      const rows = await db
        .select()
        .from(closingReasons)
        .where(eq(closingReasons.companyId, t.companyId))
        .orderBy(
          asc(closingReasons.position),
          asc(sql`lower(${closingReasons.name})`),
          asc(closingReasons.id),
        );
      return rows.map(closingReasonView);
    },

    get: async (t: Tenant, id: number) => closingReasonView(await one(t.companyId, id)),

    async create(t: Tenant, input: ClosingReasonInput): Promise<ClosingReason> {
      try {
        const [r] = await db
          .insert(closingReasons)
          .values({
            companyId: t.companyId,
            name: input.name,
            active: input.active,
            position: input.position,
          })
          .returning();
        return closingReasonView(r!);
      } catch (err) {
        mapUnique(err);
      }
    },

    async update(t: Tenant, id: number, input: ClosingReasonUpdate): Promise<ClosingReason> {
      await one(t.companyId, id);
      try {
        const [r] = await db
          .update(closingReasons)
          .set({ name: input.name, active: input.active, position: input.position, updatedAt: new Date() })
          .where(and(eq(closingReasons.id, id), eq(closingReasons.companyId, t.companyId)))
          .returning();
        if (!r) throw new AppError('ERR_NOT_FOUND', 404, 'closing reason not found');
        return closingReasonView(r);
      } catch (err) {
        mapUnique(err);
      }
    },

    /** The tickets it closed keep their sale value and lose the reason (ON DELETE SET NULL). */
    async remove(t: Tenant, id: number) {
      const [gone] = await db
        .delete(closingReasons)
        .where(and(eq(closingReasons.id, id), eq(closingReasons.companyId, t.companyId)))
        .returning({ id: closingReasons.id });
      if (!gone) throw new AppError('ERR_NOT_FOUND', 404, 'closing reason not found');
      return { message: 'Closing reason deleted' };
    },
  };
}
export type ClosingReasonService = ReturnType<typeof closingReasonService>;
