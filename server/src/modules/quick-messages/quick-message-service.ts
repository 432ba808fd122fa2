import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm';
import {
  PAGE_SIZE,
  type QuickMessage,
  type QuickMessageInputParsed,
  type QuickMessageListQuery,
  type QuickMessageUpdate,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { quickMessages, users } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { MediaStore } from '../../messaging/media-store.js';
import { emitEntryChange, isAdmin, visibleEntries } from '../../lib/personal-or-company.js';
import { containsText } from '../../lib/sql.js';

type Row = typeof quickMessages.$inferSelect;

export interface UploadedFile {
  mimetype: string;
  filename: string;
  data: Buffer;
}

/** What a user may see: their own entries and the company-wide ones. */
const visibleTo = (t: Tenant): SQL => visibleEntries(t, quickMessages, eq(quickMessages.geral, true));

/** Owner always; company-wide entries: admins, and everybody when allowEdit is on. */
export const mayEdit = (t: Tenant, r: Pick<Row, 'userId' | 'geral' | 'allowEdit'>) =>
  r.userId === t.userId || (r.geral && (isAdmin(t) || r.allowEdit));

export function quickMessageService({ db, events, media }: { db: Db; events: Events; media: MediaStore }) {
  const select = () =>
    db
      .select({ q: quickMessages, user: { id: users.id, name: users.name } })
      .from(quickMessages)
      .leftJoin(users, eq(users.id, quickMessages.userId));

  const view = (
    r: Row,
    user: { id: number | null; name: string | null } | null,
    t?: Tenant,
  ): QuickMessage => ({
    id: r.id,
    companyId: r.companyId,
    userId: r.userId,
    shortcode: r.shortcode,
    message: r.message,
    geral: r.geral,
    allowEdit: r.allowEdit,
    status: r.status,
    isMedia: Boolean(r.mediaPath),
    mediaName: r.mediaName,
    mediaPath: r.mediaPath ? `/api/quick-messages/${r.id}/media` : null,
    user: user?.id ? { id: user.id, name: user.name ?? '' } : null,
    canEdit: t ? mayEdit(t, r) : false,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  });

  async function load(t: Tenant, id: number) {
    const [hit] = await select().where(and(eq(quickMessages.id, id), visibleTo(t)));
    // Another user's personal entry is as absent as another company's.
    if (!hit) throw new AppError('ERR_NOT_FOUND', 404, 'Quick message not found');
    return hit;
  }

  async function editable(t: Tenant, id: number) {
    const hit = await load(t, id);
    if (!mayEdit(t, hit.q)) throw new AppError('ERR_NO_PERMISSION', 403);
    return hit;
  }

  /** Each reader computes `canEdit` for itself from the flags (the payload carries the owner's view). */
  const emit = (
    before: Row | null,
    after: Row | null,
    user: { id: number | null; name: string | null } | null,
  ) =>
    emitEntryChange(events, 'quickMessage', {
      before,
      after,
      shared: (r) => r.geral,
      record: (r) => view(r, user),
    });

  return {
    async list(t: Tenant, q: QuickMessageListQuery) {
      const term = q.searchParam.trim();
      const rows = await select()
        .where(
          and(
            visibleTo(t),
            q.userId ? eq(quickMessages.userId, q.userId) : undefined,
            term
              ? or(containsText(quickMessages.shortcode, term), containsText(quickMessages.message, term))
              : undefined,
          ),
        )
        .orderBy(sql`lower(${quickMessages.shortcode})`, asc(quickMessages.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      return {
        records: rows.slice(0, PAGE_SIZE).map((r) => view(r.q, r.user, t)),
        hasMore: rows.length > PAGE_SIZE,
      };
    },

    /** The message input's suggestions: every active entry the user may use. */
    async suggestions(t: Tenant) {
      const rows = await select()
        .where(and(visibleTo(t), eq(quickMessages.status, true)))
        .orderBy(sql`lower(${quickMessages.shortcode})`, asc(quickMessages.id))
        .limit(1000);
      return rows.map((r) => view(r.q, r.user, t));
    },

    async get(t: Tenant, id: number) {
      const hit = await load(t, id);
      return view(hit.q, hit.user, t);
    },

    async create(t: Tenant, input: QuickMessageInputParsed) {
      const [r] = await db
        .insert(quickMessages)
        .values({
          companyId: t.companyId,
          userId: t.userId,
          shortcode: input.shortcode,
          message: input.message,
          geral: input.geral,
          allowEdit: input.geral && input.allowEdit,
          status: input.status,
        })
        .returning();
      const [u] = await db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(eq(users.id, t.userId));
      emit(null, r!, u ?? null);
      return view(r!, u ?? null, t);
    },

    async update(t: Tenant, id: number, input: QuickMessageUpdate) {
      const { q: before, user } = await editable(t, id);
      // Only the owner (or an admin, for company-wide entries) changes who may see and edit it.
      const governs = before.userId === t.userId || isAdmin(t);
      if (!governs && (input.geral !== undefined || input.allowEdit !== undefined))
        if (input.geral !== before.geral || input.allowEdit !== before.allowEdit)
          throw new AppError('ERR_NO_PERMISSION', 403, 'Only the owner changes the sharing flags');
      const geral = input.geral ?? before.geral;
      const [after] = await db
        .update(quickMessages)
        .set({
          shortcode: input.shortcode,
          message: input.message,
          status: input.status,
          geral,
          allowEdit: geral && (input.allowEdit ?? before.allowEdit),
          updatedAt: new Date(),
        })
        .where(and(eq(quickMessages.id, id), eq(quickMessages.companyId, t.companyId)))
        .returning();
      if (!after) throw new AppError('ERR_NOT_FOUND', 404, 'Quick message not found');
      emit(before, after, user);
      return view(after, user, t);
    },

    async remove(t: Tenant, id: number) {
      const { q: before, user } = await editable(t, id);
      const [gone] = await db
        .delete(quickMessages)
        .where(and(eq(quickMessages.id, id), eq(quickMessages.companyId, t.companyId)))
        .returning();
      if (!gone) throw new AppError('ERR_NOT_FOUND', 404, 'Quick message not found');
      if (gone.mediaPath) await media.remove(gone.mediaPath);
      emit(before, null, user);
      return { message: 'Quick message deleted' };
    },

    async setMedia(t: Tenant, id: number, file: UploadedFile) {
      const { q: before, user } = await editable(t, id);
      const path = await media.save(t.companyId, file.data, file.filename, 'quick-messages');
      const [after] = await db
        .update(quickMessages)
        .set({ mediaPath: path, mediaName: file.filename, updatedAt: new Date() })
        .where(and(eq(quickMessages.id, id), eq(quickMessages.companyId, t.companyId)))
        .returning();
      if (!after) {
        await media.remove(path);
        throw new AppError('ERR_NOT_FOUND', 404, 'Quick message not found');
      }
      if (before.mediaPath) await media.remove(before.mediaPath);
      emit(before, after, user);
      return view(after, user, t);
    },

    async removeMedia(t: Tenant, id: number) {
      const { q: before, user } = await editable(t, id);
      const [after] = await db
        .update(quickMessages)
        .set({ mediaPath: null, mediaName: null, updatedAt: new Date() })
        .where(and(eq(quickMessages.id, id), eq(quickMessages.companyId, t.companyId)))
        .returning();
      if (!after) throw new AppError('ERR_NOT_FOUND', 404, 'Quick message not found');
      if (before.mediaPath) await media.remove(before.mediaPath);
      emit(before, after, user);
      return view(after, user, t);
    },

    async mediaFile(t: Tenant, id: number) {
      const { q } = await load(t, id);
      if (!q.mediaPath || !media.belongsTo(q.mediaPath, t.companyId))
        throw new AppError('ERR_NOT_FOUND', 404);
      return { data: await media.read(q.mediaPath), filename: q.mediaName ?? 'file' };
    },
  };
}
export type QuickMessageService = ReturnType<typeof quickMessageService>;
