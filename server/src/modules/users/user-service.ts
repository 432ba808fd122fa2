import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { can, type Language, type UserInput, type UserEvent, type UserUpdate } from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import {
  companies,
  plans,
  queues,
  userQueues,
  userSessions,
  users,
  whatsapps,
} from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { hashPassword } from '../../lib/passwords.js';
import { isDbId } from '../../lib/sql.js';
import type { Events } from '../../realtime/events.js';
import type { DomainBus } from '../../events/domain-events.js';
import { userQueries } from './user-queries.js';

/** Queue ids must all belong to the company: a foreign id is refused, never linked. */
async function setQueues(tx: Tx, companyId: number, userId: number, queueIds: number[]) {
  const unique = [...new Set(queueIds)];
  if (!unique.every(isDbId)) throw new AppError('ERR_VALIDATION', 400, 'unknown queue');
  if (unique.length) {
    const owned = await tx
      .select({ id: queues.id })
      .from(queues)
      .where(and(eq(queues.companyId, companyId), inArray(queues.id, unique)));
    if (owned.length !== unique.length) throw new AppError('ERR_VALIDATION', 400, 'unknown queue');
  }
  await tx.delete(userQueues).where(eq(userQueues.userId, userId));
  if (unique.length) await tx.insert(userQueues).values(unique.map((queueId) => ({ userId, queueId })));
}

export function userService({
  db,
  events,
  bus,
}: {
  db: Db;
  events: Events;
  /** `user.changed` after an update (routing re-reads a raised maxTickets or new queues). */
  bus?: Pick<DomainBus, 'emit'>;
}) {
  const get = async (t: Tenant, id: number) => {
    const user = await userQueries.byId(db, t.companyId, id);
    if (!user) throw new AppError('ERR_NO_USER_FOUND', 404);
    return user;
  };
  const requireManager = (t: Tenant) => {
    if (!can(t, 'users:manage')) throw new AppError('ERR_NO_PERMISSION', 403);
  };
  const emit = (companyId: number, payload: UserEvent) => events.toCompany(companyId, 'user', payload);

  /** A default connection must be one of the user's company. */
  const assertConnection = async (companyId: number, whatsappId: number | null | undefined) => {
    if (!whatsappId) return;
    if (!isDbId(whatsappId)) throw new AppError('ERR_VALIDATION', 400, 'whatsappId out of range');
    const [w] = await db
      .select({ id: whatsapps.id })
      .from(whatsapps)
      .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
    if (!w) throw new AppError('ERR_NO_WAPP_FOUND', 404);
  };

  return {
    page: (t: Tenant, search: string, pageNumber: number) =>
      userQueries.page(db, t.companyId, search, pageNumber),
    list: (t: Tenant) => userQueries.all(db, t.companyId),
    get,

    async create(t: Tenant, input: UserInput) {
      const companyId = t.super && input.companyId ? input.companyId : t.companyId;
      if (!isDbId(companyId)) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
      await assertConnection(companyId, input.whatsappId);
      const passwordHash = await hashPassword(input.password);
      try {
        const id = await db.transaction(async (tx) => {
          // Lock the company row so two concurrent creations cannot both pass the plan's user limit.
          const [limit] = await tx
            .select({ users: plans.users })
            .from(companies)
            .innerJoin(plans, eq(plans.id, companies.planId))
            .where(eq(companies.id, companyId))
            .for('update', { of: companies });
          if (!limit) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
          const [count] = await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(users)
            .where(eq(users.companyId, companyId));
          if ((count?.n ?? 0) >= limit.users)
            throw new AppError('ERR_USER_LIMIT_REACHED', 403, `The plan allows ${limit.users} users`);
          const [u] = await tx
            .insert(users)
            .values({
              companyId,
              name: input.name,
              email: input.email,
              passwordHash,
              profile: input.profile,
              super: t.super ? Boolean(input.super) : false,
              allTicket: input.allTicket,
              showQueuelessTickets: input.showQueuelessTickets,
              whatsappId: input.whatsappId ?? null,
              maxTickets: input.maxTickets ?? null,
            })
            .returning({ id: users.id });
          await setQueues(tx, companyId, u!.id, input.queueIds);
          return u!.id;
        });
        const user = (await userQueries.byId(db, companyId, id))!;
        emit(companyId, { action: 'create', user });
        return user;
      } catch (err) {
        if (isUniqueViolation(err, 'users_email_uq')) throw new AppError('ERR_EMAIL_ALREADY_EXISTS', 409);
        throw err;
      }
    },

    async update(t: Tenant, id: number, input: UserUpdate) {
      const self = id === t.userId;
      if (!self) requireManager(t);
      await get(t, id);
      const manager = can(t, 'users:manage');
      if (manager) await assertConnection(t.companyId, input.whatsappId);
      // A user editing their own profile may change name, e-mail, password and language only.
      const changes: Partial<typeof users.$inferInsert> = {
        name: input.name,
        email: input.email,
        ...(manager
          ? {
              profile: self ? undefined : input.profile,
              allTicket: input.allTicket,
              showQueuelessTickets: input.showQueuelessTickets,
              whatsappId: input.whatsappId,
              maxTickets: input.maxTickets,
              super: t.super ? input.super : undefined,
            }
          : {}),
        updatedAt: new Date(),
      };
      if (input.password) changes.passwordHash = await hashPassword(input.password);
      try {
        await db.transaction(async (tx) => {
          await tx
            .update(users)
            .set(changes)
            .where(and(eq(users.id, id), eq(users.companyId, t.companyId)));
          if (manager && input.queueIds) await setQueues(tx, t.companyId, id, input.queueIds);
        });
      } catch (err) {
        if (isUniqueViolation(err, 'users_email_uq')) throw new AppError('ERR_EMAIL_ALREADY_EXISTS', 409);
        throw err;
      }
      const user = await get(t, id);
      emit(t.companyId, { action: 'update', user });
      bus?.emit('user.changed', { companyId: t.companyId, userId: id });
      return user;
    },

    async remove(t: Tenant, id: number) {
      if (id === t.userId) throw new AppError('ERR_CANNOT_DELETE_SELF', 400);
      await get(t, id);
      // Sessions go with the user (cascade); read them in the same transaction so no socket survives.
      const sessions = await db.transaction(async (tx) => {
        const open = await tx
          .select({ id: userSessions.id })
          .from(userSessions)
          .where(and(eq(userSessions.userId, id), isNull(userSessions.revokedAt)));
        await tx.delete(users).where(and(eq(users.id, id), eq(users.companyId, t.companyId)));
        return open.map((s) => s.id);
      });
      events.endSessions(sessions, 'user deleted');
      emit(t.companyId, { action: 'delete', userId: id });
      return { message: 'User deleted' };
    },

    async setLanguage(t: Tenant, lang: Language) {
      await db
        .update(users)
        .set({ language: lang, updatedAt: new Date() })
        .where(and(eq(users.id, t.userId), eq(users.companyId, t.companyId)));
      return { language: lang };
    },

    async setPresence(t: Tenant, online: boolean) {
      await db
        .update(users)
        .set({ online, lastSeenAt: new Date() })
        .where(and(eq(users.id, t.userId), eq(users.companyId, t.companyId)));
    },
  };
}
export type UserService = ReturnType<typeof userService>;
