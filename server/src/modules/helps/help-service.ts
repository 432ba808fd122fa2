import { asc, eq } from 'drizzle-orm';
import type { HelpInput } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { helps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';

const toHelp = (h: typeof helps.$inferSelect) => ({
  id: h.id,
  title: h.title,
  description: h.description,
  video: h.video,
});

/** Help videos are the platform's: every company reads them, only the super user changes them. */
export function helpService({ db }: { db: Db }) {
  const get = async (id: number) => {
    const [h] = await db.select().from(helps).where(eq(helps.id, id));
    if (!h) throw new AppError('ERR_NO_HELP_FOUND', 404);
    return toHelp(h);
  };
  return {
    list: async () => (await db.select().from(helps).orderBy(asc(helps.title), asc(helps.id))).map(toHelp),
    get,
    async create(t: Tenant, input: HelpInput) {
      const [h] = await db.insert(helps).values(input).returning();
      return toHelp(h!);
    },
    async update(t: Tenant, id: number, input: Partial<HelpInput>) {
      await get(id);
      const [h] = await db
        .update(helps)
        .set({ ...input, updatedAt: new Date() })
        .where(eq(helps.id, id))
        .returning();
      return toHelp(h!);
    },
    async remove(t: Tenant, id: number) {
      await get(id);
      await db.delete(helps).where(eq(helps.id, id));
      return { message: 'Help deleted' };
    },
  };
}
export type HelpService = ReturnType<typeof helpService>;
