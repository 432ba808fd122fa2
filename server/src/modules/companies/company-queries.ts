import { eq } from 'drizzle-orm';
import type { Company, CompanySummary, PlanFlag } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { companies, plans } from '../../db/schema/index.js';
import { readSettings } from '../settings/setting-service.js';
import { AppError } from '../../http/errors.js';

export const planFlagColumns = {
  id: plans.id,
  name: plans.name,
  useCampaigns: plans.useCampaigns,
  useKanban: plans.useKanban,
  useOpenAi: plans.useOpenAi,
  useIntegrations: plans.useIntegrations,
  useSchedules: plans.useSchedules,
  useInternalChat: plans.useInternalChat,
  useExternalApi: plans.useExternalApi,
  useFlows: plans.useFlows,
};

type CompanyRow = typeof companies.$inferSelect;

export const toCompany = (r: CompanyRow, plan?: { id: number; name: string }): Company => ({
  id: r.id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  document: r.document,
  planId: r.planId,
  plan,
  status: r.status,
  dueDate: r.dueDate,
  recurrence: r.recurrence,
  trialPeriod: r.trialPeriod,
  billingName: r.billingName,
  addressZipCode: r.addressZipCode,
  addressStreet: r.addressStreet,
  addressState: r.addressState,
  addressCity: r.addressCity,
  addressDistrict: r.addressDistrict,
  schedules: r.schedules,
  createdAt: r.createdAt.toISOString(),
});

export const companyQueries = {
  async summary(db: Db, companyId: number): Promise<CompanySummary | undefined> {
    const [row] = await db
      .select({ company: companies, plan: planFlagColumns })
      .from(companies)
      .innerJoin(plans, eq(plans.id, companies.planId))
      .where(eq(companies.id, companyId));
    if (!row) return undefined;
    const c = row.company;
    return {
      id: c.id,
      name: c.name,
      dueDate: c.dueDate,
      trialPeriod: c.trialPeriod,
      status: c.status,
      recurrence: c.recurrence,
      planId: c.planId,
      plan: row.plan,
      settings: await readSettings(db, companyId),
    };
  },
  async planOf(db: Db, companyId: number) {
    const [row] = await db
      .select({ plan: plans })
      .from(companies)
      .innerJoin(plans, eq(plans.id, companies.planId))
      .where(eq(companies.id, companyId));
    return row?.plan;
  },
};

/**
 * Plan flags gate whole modules (docs/product.md#roles): a company whose plan lacks `flag` gets ERR_NO_PERMISSION
 * from every route of that module. The one place that reads a company's plan flag for that.
 */
export async function planHas(db: Db, companyId: number, flag: PlanFlag): Promise<boolean> {
  const [row] = await db
    .select({ on: planFlagColumns[flag] })
    .from(companies)
    .innerJoin(plans, eq(plans.id, companies.planId))
    .where(eq(companies.id, companyId));
  return Boolean(row?.on);
}

export async function requirePlanFlag(
  db: Db,
  companyId: number,
  flag: PlanFlag,
  what: string,
): Promise<void> {
  if (!(await planHas(db, companyId, flag)))
    throw new AppError('ERR_NO_PERMISSION', 403, `The plan does not include ${what}`);
}
