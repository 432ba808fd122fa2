import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  campaignEditable,
  type Campaign,
  type CampaignCounts,
  type CampaignShipping,
  type CampaignShippingQuery,
  type CampaignStatus,
  type ShippingStatus,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { campaigns, campaignShippings, contactLists, files, tags, whatsapps } from '../../db/schema/index.js';
import { containsText } from '../../lib/sql.js';

export type CampaignRow = typeof campaigns.$inferSelect;
export type ShippingRow = typeof campaignShippings.$inferSelect;

/** A campaign with the names the list and the report show (connection, list, tag, file list). */
export async function withNames(db: Db, rows: CampaignRow[], now: Date): Promise<Campaign[]> {
  if (!rows.length) return [];
  const ids = <K extends keyof CampaignRow>(k: K) =>
    [
      ...new Set(rows.map((r) => r[k]).filter((v): v is NonNullable<CampaignRow[K]> => v != null)),
    ] as number[];
  const companyId = rows[0]!.companyId;
  const [wa, cl, tg, fl] = await Promise.all([
    ids('whatsappId').length
      ? db
          .select({ id: whatsapps.id, name: whatsapps.name })
          .from(whatsapps)
          .where(and(eq(whatsapps.companyId, companyId), inArray(whatsapps.id, ids('whatsappId'))))
      : [],
    ids('contactListId').length
      ? db
          .select({ id: contactLists.id, name: contactLists.name })
          .from(contactLists)
          .where(and(eq(contactLists.companyId, companyId), inArray(contactLists.id, ids('contactListId'))))
      : [],
    ids('tagId').length
      ? db
          .select({ id: tags.id, name: tags.name, color: tags.color })
          .from(tags)
          .where(and(eq(tags.companyId, companyId), inArray(tags.id, ids('tagId'))))
      : [],
    ids('fileListId').length
      ? db
          .select({ id: files.id, name: files.name })
          .from(files)
          .where(and(eq(files.companyId, companyId), inArray(files.id, ids('fileListId'))))
      : [],
  ]);
  const by = <T extends { id: number }>(list: T[]) => new Map(list.map((x) => [x.id, x]));
  const waM = by(wa);
  const clM = by(cl);
  const tgM = by(tg);
  const flM = by(fl);
  return rows.map((r) => ({
    id: r.id,
    companyId: r.companyId,
    name: r.name,
    message1: r.message1,
    message2: r.message2,
    message3: r.message3,
    message4: r.message4,
    message5: r.message5,
    confirmation: r.confirmation,
    confirmationMessage1: r.confirmationMessage1,
    confirmationMessage2: r.confirmationMessage2,
    confirmationMessage3: r.confirmationMessage3,
    confirmationMessage4: r.confirmationMessage4,
    confirmationMessage5: r.confirmationMessage5,
    status: r.status as CampaignStatus,
    scheduledAt: r.scheduledAt?.toISOString() ?? null,
    completedAt: r.completedAt?.toISOString() ?? null,
    whatsappId: r.whatsappId,
    whatsapp: (r.whatsappId && waM.get(r.whatsappId)) || null,
    contactListId: r.contactListId,
    contactList: (r.contactListId && clM.get(r.contactListId)) || null,
    tagId: r.tagId,
    tag: (r.tagId && tgM.get(r.tagId)) || null,
    fileListId: r.fileListId,
    fileList: (r.fileListId && flM.get(r.fileListId)) || null,
    mediaPath: r.mediaPath,
    mediaName: r.mediaName,
    template: r.template ?? null,
    editable: campaignEditable(r, now),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

/** The report's figures from the shipping rows (one grouped scan of the campaign's index range). */
export async function countsOf(db: Db, campaignId: number): Promise<CampaignCounts> {
  const rows = await db
    .select({
      status: campaignShippings.status,
      n: sql<number>`count(*)::int`,
      sent: sql<number>`count(${campaignShippings.sentAt})::int`,
      delivered: sql<number>`count(${campaignShippings.deliveredAt})::int`,
    })
    .from(campaignShippings)
    .where(eq(campaignShippings.campaignId, campaignId))
    .groupBy(campaignShippings.status);
  const c: CampaignCounts = { valid: 0, sent: 0, delivered: 0, failed: 0, pending: 0 };
  for (const r of rows) {
    if (r.status !== 'invalid') c.valid += r.n;
    c.sent += r.sent;
    c.delivered += r.delivered;
    if (r.status === 'failed' || r.status === 'invalid') c.failed += r.n;
    if (r.status === 'pending' || r.status === 'claimed') c.pending += r.n;
  }
  return c;
}

export async function pageOf(db: Db, companyId: number, search: string, pageNumber: number, size: number) {
  const rows = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.companyId, companyId), search ? containsText(campaigns.name, search) : undefined))
    .orderBy(desc(campaigns.id))
    .limit(size + 1)
    .offset((pageNumber - 1) * size);
  return { rows: rows.slice(0, size), hasMore: rows.length > size };
}

/** A page of one campaign's shipping rows (already checked to be the company's), in send order. */
export async function shippingsPage(
  db: Db,
  companyId: number,
  campaignId: number,
  q: CampaignShippingQuery,
  size: number,
): Promise<{ shippings: CampaignShipping[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(campaignShippings)
    .where(
      and(
        eq(campaignShippings.campaignId, campaignId),
        eq(campaignShippings.companyId, companyId),
        q.status === 'failed' ? inArray(campaignShippings.status, ['failed', 'invalid']) : undefined,
      ),
    )
    .orderBy(asc(campaignShippings.id))
    .limit(size + 1)
    .offset((q.pageNumber - 1) * size);
  return {
    shippings: rows.slice(0, size).map((r) => ({
      id: r.id,
      number: r.number,
      name: r.name,
      status: r.status as ShippingStatus,
      sentAt: r.sentAt?.toISOString() ?? null,
      deliveredAt: r.deliveredAt?.toISOString() ?? null,
      errorCode: r.errorCode,
      error: r.error,
    })),
    hasMore: rows.length > size,
  };
}
