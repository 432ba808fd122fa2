import { and, asc, eq, isNull, or } from 'drizzle-orm';
import {
  DEFAULT_SIGNUP_PLAN_ID,
  PAGE_SIZE,
  TRIAL_DAYS,
  WEEKDAYS,
  type CompanyInput,
  type CompanyUpdate,
  type DaySchedule,
  type SignupInput,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { companies, plans, userSessions, users } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { containsText, isDbId } from '../../lib/sql.js';
import { hashPassword } from '../../lib/passwords.js';
import type { Events } from '../../realtime/events.js';
import { companyQueries, planFlagColumns, toCompany } from './company-queries.js';

/** Today + n days as YYYY-MM-DD (UTC calendar). */
export const daysFromToday = (n: number, now = new Date()): string =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + n))
    .toISOString()
    .slice(0, 10);

/** A due date is a real calendar day; a longer ISO string keeps its date part ("2030-05-06T03:00Z"). */
function dueDateOf(value: string | null | undefined): string | null | undefined {
  if (value == null) return value;
  const day = value.slice(0, 10);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const rest = value.slice(10);
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!d || d.toISOString().slice(0, 10) !== day || (rest && !/^T[\d:.]+(Z|[+-]\d{2}:?\d{2})?$/.test(rest)))
    throw new AppError('ERR_VALIDATION', 400, 'dueDate must be a date (YYYY-MM-DD)');
  return day;
}

/** Exactly one entry per weekday: seven Mondays are not a week. */
function checkWeek(schedules: DaySchedule[]) {
  const days = new Set(schedules.map((s) => s.weekdayEn));
  if (schedules.length !== WEEKDAYS.length || days.size !== WEEKDAYS.length)
    throw new AppError('ERR_VALIDATION', 400, 'schedules must list each weekday once');
}

function mapUniqueErrors(err: unknown): never {
  if (isUniqueViolation(err, 'users_email_uq')) throw new AppError('ERR_EMAIL_ALREADY_EXISTS', 409);
  if (isUniqueViolation(err, 'companies_name_lower_uq'))
    throw new AppError('ERR_COMPANY_NAME_ALREADY_EXISTS', 409);
  throw err;
}

export function companyService({
  db,
  events,
  changed,
}: {
  db: Db;
  events: Events;
  /** A company's row was updated (billing's send check forgets its cached dueDate). */
  changed?: (companyId: number) => void;
}) {
  const get = async (id: number) => {
    const [row] = await db
      .select({ company: companies, plan: { id: plans.id, name: plans.name } })
      .from(companies)
      .innerJoin(plans, eq(plans.id, companies.planId))
      .where(eq(companies.id, id));
    if (!row) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
    return toCompany(row.company, row.plan);
  };
  /** The plan exists; with `publicOnly` (signup) it must also be offered publicly: a hidden plan is not found. */
  const assertPlan = async (planId: number, publicOnly = false) => {
    if (!isDbId(planId)) throw new AppError('ERR_NO_PLAN_FOUND', 404);
    const [p] = await db
      .select({ id: plans.id, isPublic: plans.isPublic })
      .from(plans)
      .where(eq(plans.id, planId));
    if (!p || (publicOnly && !p.isPublic)) throw new AppError('ERR_NO_PLAN_FOUND', 404);
  };
  const ownOrSuper = (t: Tenant, id: number) => {
    if (!t.super && t.companyId !== id) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
  };

  return {
    get: async (t: Tenant, id: number) => (ownOrSuper(t, id), get(id)),

    async page(t: Tenant, search: string, pageNumber: number) {
      const where = search
        ? or(containsText(companies.name, search), containsText(companies.email, search))
        : undefined;
      const rows = await db
        .select({ company: companies, plan: { id: plans.id, name: plans.name } })
        .from(companies)
        .innerJoin(plans, eq(plans.id, companies.planId))
        .where(where)
        .orderBy(asc(companies.name), asc(companies.id))
        .limit(PAGE_SIZE + 1)
        .offset((pageNumber - 1) * PAGE_SIZE);
      return {
        companies: rows.slice(0, PAGE_SIZE).map((r) => toCompany(r.company, r.plan)),
        hasMore: rows.length > PAGE_SIZE,
      };
    },

    async listAll(_t: Tenant) {
      const rows = await db
        .select({ company: companies, plan: { id: plans.id, name: plans.name } })
        .from(companies)
        .innerJoin(plans, eq(plans.id, companies.planId))
        .orderBy(asc(companies.name));
      return rows.map((r) => toCompany(r.company, r.plan));
    },

    async create(t: Tenant, input: CompanyInput) {
      await assertPlan(input.planId);
      // `password` (Whaticket's field) and `adminPassword` both make the first admin; never silently none.
      const { adminName, adminPassword: ours, password, ...fields } = input;
      if (ours && password && ours !== password)
        throw new AppError('ERR_VALIDATION', 400, 'password and adminPassword differ: send one', {
          fields: [{ path: 'password', message: 'differs from adminPassword' }],
        });
      const adminPassword = ours ?? password;
      if (adminPassword && !fields.email)
        throw new AppError('ERR_VALIDATION', 400, 'email is required for the admin', {
          fields: [{ path: 'email', message: "required: it is the admin's sign-in" }],
        });
      const passwordHash = adminPassword ? await hashPassword(adminPassword) : undefined;
      try {
        const id = await db.transaction(async (tx) => {
          const [c] = await tx
            .insert(companies)
            .values({ ...fields, email: fields.email ?? '', dueDate: dueDateOf(fields.dueDate) ?? null })
            .returning({ id: companies.id });
          if (passwordHash && fields.email)
            await tx.insert(users).values({
              companyId: c!.id,
              name: adminName ?? fields.name,
              email: fields.email,
              passwordHash,
              profile: 'admin',
            });
          return c!.id;
        });
        return get(id);
      } catch (err) {
        mapUniqueErrors(err);
      }
    },

    async update(t: Tenant, id: number, input: CompanyUpdate) {
      await get(id);
      if (input.planId) await assertPlan(input.planId);
      const dueDate = dueDateOf(input.dueDate);
      try {
        await db
          .update(companies)
          .set({ ...input, dueDate, updatedAt: new Date() })
          .where(eq(companies.id, id));
      } catch (err) {
        mapUniqueErrors(err);
      }
      changed?.(id);
      const company = await get(id);
      events.toCompany(id, 'company', { action: 'update', company });
      // A deactivated company is signed out at once: its sessions are revoked and its sockets closed.
      if (input.status === false && id !== t.companyId) {
        const revoked = await db
          .update(userSessions)
          .set({ revokedAt: new Date() })
          .where(and(eq(userSessions.companyId, id), isNull(userSessions.revokedAt)))
          .returning({ id: userSessions.id });
        events.endSessions(
          revoked.map((s) => s.id),
          'company deactivated',
        );
      }
      return company;
    },

    async updateSchedules(t: Tenant, id: number, schedules: DaySchedule[]) {
      ownOrSuper(t, id);
      checkWeek(schedules);
      await get(id);
      await db.update(companies).set({ schedules, updatedAt: new Date() }).where(eq(companies.id, id));
      changed?.(id);
      const company = await get(id);
      events.toCompany(id, 'company', { action: 'update', company });
      return company;
    },

    async remove(t: Tenant, id: number) {
      if (id === t.companyId) throw new AppError('ERR_CANNOT_DELETE_OWN_COMPANY', 400);
      await get(id);
      // The platform's own company (where a super user lives) is never deleted, by any super user.
      const [platformUser] = await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.companyId, id), eq(users.super, true)))
        .limit(1);
      if (platformUser) throw new AppError('ERR_CANNOT_DELETE_PLATFORM_COMPANY', 400);
      // Its users go with it (cascade): their open sessions and sockets must end too.
      const ended = await db.transaction(async (tx) => {
        const sessions = await tx
          .select({ id: userSessions.id })
          .from(userSessions)
          .where(and(eq(userSessions.companyId, id), isNull(userSessions.revokedAt)));
        await tx.delete(companies).where(eq(companies.id, id));
        return sessions.map((s) => s.id);
      });
      events.toCompany(id, 'company', { action: 'delete', companyId: id });
      events.endSessions(ended, 'company deleted');
      return { message: 'Company deleted' };
    },

    async listPlan(t: Tenant, companyId: number) {
      ownOrSuper(t, companyId);
      const [row] = await db
        .select({
          id: companies.id,
          name: companies.name,
          plan: {
            ...planFlagColumns,
            users: plans.users,
            connections: plans.connections,
            queues: plans.queues,
            value: plans.value,
          },
        })
        .from(companies)
        .innerJoin(plans, eq(plans.id, companies.planId))
        .where(eq(companies.id, companyId));
      if (!row) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
      return { ...row, plan: { ...row.plan, value: Number(row.plan.value) } };
    },

    /** Public signup: a trial company with its first admin. The server decides trial, due date and status. */
    async signup(input: SignupInput) {
      // Only the plans GET /plans/list offers: a hidden plan (the platform's own, a private deal) is not
      // chosen by whoever knows its id. The server's own default is trusted as configured.
      // The spec's client names the chosen plan `plan`; ours sends planId.
      const chosen = input.planId ?? (typeof input.plan === 'object' ? input.plan.id : input.plan);
      const planId = chosen ?? DEFAULT_SIGNUP_PLAN_ID;
      await assertPlan(planId, chosen !== undefined);
      const [taken] = await db.select({ id: users.id }).from(users).where(eq(users.email, input.email));
      if (taken) throw new AppError('ERR_EMAIL_ALREADY_EXISTS', 409);
      const passwordHash = await hashPassword(input.password);
      try {
        return await db.transaction(async (tx) => {
          const [c] = await tx
            .insert(companies)
            .values({
              name: input.name,
              email: input.email,
              phone: input.phone,
              document: input.document,
              planId,
              status: true,
              dueDate: daysFromToday(TRIAL_DAYS),
              recurrence: 'MENSAL',
              trialPeriod: true,
            })
            .returning();
          const [admin] = await tx
            .insert(users)
            .values({
              companyId: c!.id,
              // The person's own name; a client that sends none (the spec's) gets the company's.
              name: input.adminName ?? input.name,
              email: input.email,
              passwordHash,
              profile: 'admin',
            })
            .returning({ id: users.id });
          return { company: toCompany(c!), userId: admin!.id };
        });
      } catch (err) {
        mapUniqueErrors(err);
      }
    },
    summary: (companyId: number) => companyQueries.summary(db, companyId),
  };
}
export type CompanyService = ReturnType<typeof companyService>;
