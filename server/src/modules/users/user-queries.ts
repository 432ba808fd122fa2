import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import { PAGE_SIZE, type UserView } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { queues, userQueues, users } from '../../db/schema/index.js';
import { containsText } from '../../lib/sql.js';

export const userColumns = {
  id: users.id,
  name: users.name,
  email: users.email,
  profile: users.profile,
  super: users.super,
  companyId: users.companyId,
  allTicket: users.allTicket,
  showQueuelessTickets: users.showQueuelessTickets,
  language: users.language,
  whatsappId: users.whatsappId,
  online: users.online,
  maxTickets: users.maxTickets,
  presence: users.presence,
  createdAt: users.createdAt,
};

type UserRow = Omit<UserView, 'createdAt' | 'queues'> & { createdAt: Date };

async function withQueues(db: Db, rows: UserRow[]): Promise<UserView[]> {
  if (rows.length === 0) return [];
  const links = await db
    .select({ userId: userQueues.userId, id: queues.id, name: queues.name, color: queues.color })
    .from(userQueues)
    .innerJoin(queues, eq(queues.id, userQueues.queueId))
    .where(
      inArray(
        userQueues.userId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(queues.name));
  return rows.map((r) => ({
    ...r,
    createdAt: r.createdAt.toISOString(),
    queues: links.filter((l) => l.userId === r.id).map(({ id, name, color }) => ({ id, name, color })),
  }));
}

export const userQueries = {
  async byId(db: Db, companyId: number, id: number): Promise<UserView | undefined> {
    const rows = await db
      .select(userColumns)
      .from(users)
      .where(and(eq(users.id, id), eq(users.companyId, companyId)));
    return (await withQueues(db, rows))[0];
  },
  async page(db: Db, companyId: number, search: string, pageNumber: number) {
    const where = search
      ? and(
          eq(users.companyId, companyId),
          or(containsText(users.name, search), containsText(users.email, search)),
        )
      : eq(users.companyId, companyId);
    const rows = await db
      .select(userColumns)
      .from(users)
      .where(where)
      .orderBy(asc(users.name), asc(users.id))
      .limit(PAGE_SIZE + 1)
      .offset((pageNumber - 1) * PAGE_SIZE);
    const hasMore = rows.length > PAGE_SIZE;
    return { users: await withQueues(db, rows.slice(0, PAGE_SIZE)), hasMore };
  },
  async all(db: Db, companyId: number): Promise<UserView[]> {
    const rows = await db
      .select(userColumns)
      .from(users)
      .where(eq(users.companyId, companyId))
      .orderBy(asc(users.name));
    return withQueues(db, rows);
  },
  async countInCompany(db: Db, companyId: number): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.companyId, companyId));
    return row?.n ?? 0;
  },
};
