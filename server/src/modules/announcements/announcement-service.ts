import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  PAGE_SIZE,
  type Announcement,
  type AnnouncementEvent,
  type AnnouncementFeed,
  type AnnouncementInputParsed,
  type AnnouncementUpdate,
  type ListQuery,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { announcementReads, announcements, companies } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { MediaStore } from '../../messaging/media-store.js';
import { containsText } from '../../lib/sql.js';

type Row = typeof announcements.$inferSelect;

export interface AnnouncementFile {
  filename: string;
  data: Buffer;
}

/** The most announcements the top bar lists. */
const FEED_LIMIT = 50;

const notFound = () => new AppError('ERR_NOT_FOUND', 404, 'Announcement not found');

/**
 * Announcements are the platform's (docs/push.md): only the super user lists all of them and
 * writes; every company's users read the active ones and mark them seen, which clears their top-bar dot.
 */
export function announcementService({ db, events, media }: { db: Db; events: Events; media: MediaStore }) {
  const requireSuper = (t: Tenant) => {
    if (!t.super) throw new AppError('ERR_NO_PERMISSION', 403, 'Announcements are managed by the super user');
  };

  const view = (r: Row, seen = false): Announcement => ({
    id: r.id,
    title: r.title,
    text: r.text,
    priority: r.priority,
    status: r.status,
    mediaName: r.mediaName,
    mediaPath: r.mediaPath ? `/api/announcements/${r.id}/media` : null,
    seen,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  });

  const seenBy = (t: Tenant) =>
    sql<boolean>`exists (select 1 from ${announcementReads} where ${announcementReads.announcementId} = ${announcements.id} and ${announcementReads.userId} = ${t.userId})`;

  /** What the caller may read: everything for the super user, active ones for everybody else. */
  async function load(t: Tenant, id: number) {
    const [hit] = await db
      .select({ a: announcements, seen: seenBy(t) })
      .from(announcements)
      .where(and(eq(announcements.id, id), t.super ? undefined : eq(announcements.status, true)));
    if (!hit) throw notFound();
    return hit;
  }

  /** Every signed-in user of every company hears it (`company-{id}-announcement`). */
  async function broadcast(payload: AnnouncementEvent) {
    const all = await db.select({ id: companies.id }).from(companies);
    for (const c of all) events.toCompany(c.id, 'announcement', payload);
  }

  async function change(id: number, set: Partial<typeof announcements.$inferInsert>) {
    const [after] = await db
      .update(announcements)
      .set({ ...set, updatedAt: new Date() })
      .where(eq(announcements.id, id))
      .returning();
    if (!after) throw notFound();
    return after;
  }

  return {
    async list(t: Tenant, q: ListQuery) {
      const term = q.searchParam.trim();
      const rows = await db
        .select({ a: announcements, seen: seenBy(t) })
        .from(announcements)
        .where(
          and(
            t.super ? undefined : eq(announcements.status, true),
            term ? containsText(announcements.title, term) : undefined,
          ),
        )
        .orderBy(desc(announcements.createdAt), desc(announcements.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      return {
        records: rows.slice(0, PAGE_SIZE).map((r) => view(r.a, r.seen)),
        hasMore: rows.length > PAGE_SIZE,
      };
    },

    /** The top bar: active announcements by priority, newest first within one, and the unseen count. */
    async feed(t: Tenant): Promise<AnnouncementFeed> {
      const rows = await db
        .select({ a: announcements, seen: seenBy(t) })
        .from(announcements)
        .where(eq(announcements.status, true))
        .orderBy(asc(announcements.priority), desc(announcements.createdAt), desc(announcements.id))
        .limit(FEED_LIMIT);
      const records = rows.map((r) => view(r.a, r.seen));
      return { records, unseen: records.filter((r) => !r.seen).length };
    },

    /** The user opened the popover: these (active) announcements are seen. Unknown ids are ignored. */
    async markSeen(t: Tenant, ids: number[]) {
      if (ids.length) {
        const known = await db
          .select({ id: announcements.id })
          .from(announcements)
          .where(and(inArray(announcements.id, ids), eq(announcements.status, true)));
        if (known.length)
          await db
            .insert(announcementReads)
            .values(known.map((k) => ({ announcementId: k.id, userId: t.userId })))
            .onConflictDoNothing();
      }
      return this.feed(t);
    },

    async get(t: Tenant, id: number) {
      const hit = await load(t, id);
      return view(hit.a, hit.seen);
    },

    async create(t: Tenant, input: AnnouncementInputParsed) {
      requireSuper(t);
      const [r] = await db
        .insert(announcements)
        .values({ companyId: t.companyId, ...input })
        .returning();
      await broadcast({ action: 'create', record: view(r!) });
      return view(r!);
    },

    async update(t: Tenant, id: number, input: AnnouncementUpdate) {
      requireSuper(t);
      await load(t, id);
      const after = await change(id, input);
      await broadcast({ action: 'update', record: view(after) });
      return view(after);
    },

    async remove(t: Tenant, id: number) {
      requireSuper(t);
      const [gone] = await db.delete(announcements).where(eq(announcements.id, id)).returning();
      if (!gone) throw notFound();
      if (gone.mediaPath) await media.remove(gone.mediaPath);
      await broadcast({ action: 'delete', id });
      return { message: 'Announcement deleted' };
    },

    /** Checked before the upload is read: only the super user, only a known announcement. */
    async assertWritable(t: Tenant, id: number) {
      requireSuper(t);
      await load(t, id);
    },

    async setMedia(t: Tenant, id: number, file: AnnouncementFile) {
      requireSuper(t);
      const { a: before } = await load(t, id);
      const path = await media.save(t.companyId, file.data, file.filename, 'announcements');
      let after: Row;
      try {
        after = await change(id, { mediaPath: path, mediaName: file.filename });
      } catch (err) {
        await media.remove(path);
        throw err;
      }
      if (before.mediaPath) await media.remove(before.mediaPath);
      await broadcast({ action: 'update', record: view(after) });
      return view(after);
    },

    async removeMedia(t: Tenant, id: number) {
      requireSuper(t);
      const { a: before } = await load(t, id);
      const after = await change(id, { mediaPath: null, mediaName: null });
      if (before.mediaPath) await media.remove(before.mediaPath);
      await broadcast({ action: 'update', record: view(after) });
      return view(after);
    },

    /** The attachment, for any signed-in user while the announcement is active (always for the super user). */
    async mediaFile(t: Tenant, id: number) {
      const { a } = await load(t, id);
      if (!a.mediaPath) throw notFound();
      return { data: await media.read(a.mediaPath), filename: a.mediaName ?? 'image' };
    },
  };
}
export type AnnouncementService = ReturnType<typeof announcementService>;
