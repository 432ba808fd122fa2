import { and, asc, eq, isNull, like, or, sql, type SQL } from 'drizzle-orm';
import {
  ContactListItemInput,
  MAX_CONTACT_LIST_UPLOAD_ROWS,
  PAGE_SIZE,
  contactListItemsOf,
  normalizeNumber,
  onlyDigits,
  type ContactList,
  type ContactListEvent,
  type ContactListInput,
  type ContactListItemView,
  type ContactListItemEvent,
  type ContactListItemPage,
  type ContactListItemQuery,
  type ContactListItemUpdate,
  type ContactListPage,
  type ContactListsQuery,
  type ContactListUploadError,
  type ContactListUploadResult,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { contactListItems, contactLists } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { containsPattern, containsText } from '../../lib/sql.js';
import type { Channel } from '../../messaging/channel.js';
import { localReach, type Reach } from '../../messaging/channel-commands.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import type { Events } from '../../realtime/events.js';
import { whatsappService, type WhatsappService } from '../whatsapps/whatsapp-service.js';
import { readContactSheet } from './spreadsheet.js';
import { z } from 'zod';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import { truncate } from '../../lib/text.js';

type ListRow = typeof contactLists.$inferSelect;
type ItemRow = typeof contactListItems.$inferSelect;

const UNIQUE_NUMBER = 'contact_list_items_list_number_uq';
const CHECK_JOB = 'contact-list-check';
/** Rows per INSERT statement in uploads (well under PostgreSQL's 65,535 parameters). */
const CHUNK = 1000;

export interface ContactListServiceDeps {
  db: Db;
  events: Events;
  sessions: () => SessionManager | undefined;
  /** The connection's channel wherever its session runs (channel-commands.ts); default: this process's only. */
  reach?: Reach;
  log: { warn(obj: object, msg: string): void };
  whatsapps?: Pick<WhatsappService, 'defaultFor'>;
  /** Runs the number checks after an upload (job `contact-list-check`, keyed by list). */
  jobs: Pick<JobQueue, 'schedule'>;
  /** Longest wait for one number check; past it the number stays unchecked (null). */
  channelTimeoutMs?: number;
}

const itemView = (r: ItemRow): ContactListItemView => ({
  id: r.id,
  name: r.name,
  number: r.number,
  email: r.email,
  isWhatsappValid: r.isWhatsappValid,
  companyId: r.companyId,
  contactListId: r.contactListId,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

const listView = (r: ListRow, contactsCount: number): ContactList => ({
  id: r.id,
  name: r.name,
  contactsCount,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** Items of a list, counted in the same statement as the list rows. */
const countOf = sql<number>`(select count(*)::int from contact_list_items i where i.contact_list_id = ${sql.raw('"contact_lists"."id"')})`;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`channel did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const chunks = <T>(items: T[], size = CHUNK): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * Contact lists (docs/campaigns.md) and their items. Numbers are stored canonical (normalizeNumber), one per
 * list. Whether a number has WhatsApp is asked of the company's default connection when it runs here:
 * at once for items added or renumbered one by one, by a durable job after a spreadsheet upload. A number
 * no channel could check keeps isWhatsappValid null.
 */
export function contactListService(deps: ContactListServiceDeps) {
  const { db, events, log } = deps;
  const connections = deps.whatsapps ?? whatsappService({ db, events, sessions: deps.sessions });
  const channelTimeoutMs = deps.channelTimeoutMs ?? 5000;

  const emitList = (companyId: number, payload: ContactListEvent) =>
    events.toCompany(companyId, 'contactList', payload);
  const emitItem = (companyId: number, listId: number, payload: ContactListItemEvent) => {
    events.toCompany(companyId, 'contactListItem', payload);
    events.toCompany(companyId, contactListItemsOf(listId), payload);
  };

  const reach = deps.reach ?? localReach(deps.sessions);

  /** The company's default connection's channel when it is connected, wherever its session runs. */
  async function defaultChannel(companyId: number) {
    try {
      const conn = await connections.defaultFor(companyId);
      return conn.status === 'CONNECTED' ? await reach(conn.id) : undefined;
    } catch (err) {
      if (err instanceof AppError) return undefined;
      throw err;
    }
  }

  /** true / false from the channel; null when no channel could answer. */
  async function checkNumber(
    channel: Pick<Channel, 'checkNumber'> | undefined,
    number: string,
  ): Promise<boolean | null> {
    if (!channel) return null;
    try {
      return (await withTimeout(channel.checkNumber(number), channelTimeoutMs)).exists;
    } catch (err) {
      log.warn({ err }, 'number check failed; list item kept unchecked');
      return null;
    }
  }

  async function listRow(companyId: number, id: number): Promise<ListRow> {
    const [r] = await db
      .select()
      .from(contactLists)
      .where(and(eq(contactLists.id, id), eq(contactLists.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_CONTACT_LIST_FOUND', 404);
    return r;
  }

  async function loadList(companyId: number, id: number): Promise<ContactList> {
    const [r] = await db
      .select({ list: contactLists, count: countOf })
      .from(contactLists)
      .where(and(eq(contactLists.id, id), eq(contactLists.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_CONTACT_LIST_FOUND', 404);
    return listView(r.list, r.count);
  }

  async function itemRow(companyId: number, id: number): Promise<ItemRow> {
    const [r] = await db
      .select()
      .from(contactListItems)
      .where(and(eq(contactListItems.id, id), eq(contactListItems.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_CONTACT_LIST_ITEM_FOUND', 404);
    return r;
  }

  /** The list's new count goes to every list screen. */
  const announceCount = async (companyId: number, listId: number) => {
    const contactList = await loadList(companyId, listId).catch(() => undefined);
    if (contactList) emitList(companyId, { action: 'update', contactList });
  };

  const duplicateOr = (err: unknown): never => {
    if (isUniqueViolation(err, UNIQUE_NUMBER)) throw new AppError('ERR_DUPLICATED_CONTACT', 409);
    throw err;
  };

  // ---- number checks after an upload: a durable job per list, so a restart does not leave them undone ----

  /** Checks the list's unchecked numbers (idempotent: only rows still null are written). */
  async function checkUnchecked(companyId: number, listId: number) {
    const channel = await defaultChannel(companyId);
    if (!channel) return;
    let changed = 0;
    for (;;) {
      const batch = await db
        .select({ id: contactListItems.id, number: contactListItems.number })
        .from(contactListItems)
        .where(
          and(
            eq(contactListItems.contactListId, listId),
            eq(contactListItems.companyId, companyId),
            isNull(contactListItems.isWhatsappValid),
          ),
        )
        .orderBy(asc(contactListItems.id))
        .limit(100);
      if (!batch.length) break;
      let unknown = 0;
      for (const item of batch) {
        const valid = await checkNumber(channel, item.number);
        if (valid === null) {
          unknown++;
          continue;
        }
        const [hit] = await db
          .update(contactListItems)
          .set({ isWhatsappValid: valid, updatedAt: new Date() })
          .where(
            and(
              eq(contactListItems.id, item.id),
              eq(contactListItems.companyId, companyId),
              isNull(contactListItems.isWhatsappValid),
            ),
          )
          .returning({ id: contactListItems.id });
        if (hit) changed++;
      }
      // The channel stopped answering: leave the rest unchecked rather than loop.
      if (unknown === batch.length) break;
    }
    if (changed) emitItem(companyId, listId, { action: 'reload', contactListId: listId });
  }

  /** Checks a list's unchecked numbers on WhatsApp in the background (registered by app.ts). */
  const checkJob = defineJob({
    kind: CHECK_JOB,
    payload: z.object({ contactListId: z.number().int() }),
    handler: async (job) => {
      if (job.companyId) await checkUnchecked(job.companyId, job.payload.contactListId);
    },
  });

  const itemSearch = (search: string): SQL | undefined => {
    if (!search) return undefined;
    const digits = onlyDigits(search);
    return or(
      containsText(contactListItems.name, search),
      containsText(contactListItems.email, search),
      digits.length >= 3 ? like(contactListItems.number, containsPattern(digits)) : undefined,
    );
  };

  return {
    jobs: { check: checkJob },
    // ---- lists ----

    /** GET /contact-lists: by name, searched by name; { records, hasMore } from one extra row. */
    async list(t: Tenant, q: ContactListsQuery): Promise<ContactListPage> {
      const rows = await db
        .select({ list: contactLists, count: countOf })
        .from(contactLists)
        .where(
          and(
            eq(contactLists.companyId, t.companyId),
            q.searchParam ? containsText(contactLists.name, q.searchParam) : undefined,
          ),
        )
        .orderBy(sql`lower(${contactLists.name})`, asc(contactLists.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      return {
        records: rows.slice(0, PAGE_SIZE).map((r) => listView(r.list, r.count)),
        hasMore: rows.length > PAGE_SIZE,
      };
    },

    /** GET /contact-lists/list: every list of the company (the campaign dialog's picker). */
    async listAll(t: Tenant): Promise<ContactList[]> {
      const rows = await db
        .select({ list: contactLists, count: countOf })
        .from(contactLists)
        .where(eq(contactLists.companyId, t.companyId))
        .orderBy(sql`lower(${contactLists.name})`, asc(contactLists.id));
      return rows.map((r) => listView(r.list, r.count));
    },

    async get(t: Tenant, id: number): Promise<ContactList> {
      return loadList(t.companyId, id);
    },

    async create(t: Tenant, input: ContactListInput): Promise<ContactList> {
      const [r] = await db
        .insert(contactLists)
        .values({ companyId: t.companyId, name: input.name })
        .returning();
      const contactList = listView(r!, 0);
      emitList(t.companyId, { action: 'create', contactList });
      return contactList;
    },

    async update(t: Tenant, id: number, input: ContactListInput): Promise<ContactList> {
      const [r] = await db
        .update(contactLists)
        .set({ name: input.name, updatedAt: new Date() })
        .where(and(eq(contactLists.id, id), eq(contactLists.companyId, t.companyId)))
        .returning({ id: contactLists.id });
      if (!r) throw new AppError('ERR_NO_CONTACT_LIST_FOUND', 404);
      const contactList = await loadList(t.companyId, id);
      emitList(t.companyId, { action: 'update', contactList });
      return contactList;
    },

    /** The items go with the list; campaigns that used it keep their history with no list (set null). */
    async remove(t: Tenant, id: number) {
      const [gone] = await db
        .delete(contactLists)
        .where(and(eq(contactLists.id, id), eq(contactLists.companyId, t.companyId)))
        .returning({ id: contactLists.id });
      if (!gone) throw new AppError('ERR_NO_CONTACT_LIST_FOUND', 404);
      emitList(t.companyId, { action: 'delete', contactListId: id });
      return { message: 'Contact list deleted' };
    },

    /**
     * POST /contact-lists/{id}/upload: each row checked on its own, a bad one goes to errorBag with its
     * sheet row and never stops the others. A number already in the list updates that item's name and
     * e-mail (so uploading the same file twice adds nothing); a number repeated in the file is reported.
     */
    async upload(t: Tenant, id: number, data: Buffer): Promise<ContactListUploadResult> {
      await listRow(t.companyId, id);
      const rows = await readContactSheet(data, MAX_CONTACT_LIST_UPLOAD_ROWS);
      const errorBag: ContactListUploadError[] = [];
      const valid = new Map<string, { row: number; name: string; email: string }>();
      for (const r of rows) {
        const text = (v: unknown) =>
          typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v : v;
        const parsed = ContactListItemInput.safeParse({
          name: text(r.name),
          number: text(r.number),
          email: r.email === undefined || r.email === '' ? '' : text(r.email),
          contactListId: id,
        });
        const shownName = truncate(String(text(r.name) ?? '').trim(), 100);
        const shownNumber = truncate(String(text(r.number) ?? '').trim(), 60);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const field = String(issue.path[0] ?? '');
          errorBag.push({
            row: r.row,
            name: shownName,
            number: shownNumber,
            error: { code: 'ERR_VALIDATION', field, message: `${field || 'row'}: ${issue.message}` },
          });
          continue;
        }
        const number = normalizeNumber(parsed.data.number);
        const first = valid.get(number);
        if (first) {
          errorBag.push({
            row: r.row,
            name: parsed.data.name,
            number,
            error: { code: 'ERR_DUPLICATED_CONTACT', message: `Same number as row ${first.row}` },
          });
          continue;
        }
        valid.set(number, { row: r.row, name: parsed.data.name, email: parsed.data.email });
      }
      let created = 0;
      let updated = 0;
      let unchanged = 0;
      if (valid.size)
        await db.transaction(async (tx) => {
          for (const part of chunks([...valid]))
            for (const r of await tx
              .insert(contactListItems)
              .values(
                part.map(([number, v]) => ({
                  companyId: t.companyId,
                  contactListId: id,
                  name: v.name,
                  number,
                  email: v.email,
                })),
              )
              .onConflictDoUpdate({
                target: [contactListItems.contactListId, contactListItems.number],
                set: { name: sql`excluded.name`, email: sql`excluded.email`, updatedAt: new Date() },
                // A row already in the list with the same name and e-mail is left alone (and not returned).
                setWhere: sql`(${contactListItems.name}, ${contactListItems.email}) is distinct from (excluded.name, excluded.email)`,
              })
              // xmax = 0 only on a freshly inserted row.
              .returning({ inserted: sql<boolean>`(xmax = 0)` }))
              if (r.inserted) created++;
              else updated++;
        });
      unchanged = valid.size - created - updated;
      errorBag.sort((a, b) => a.row - b.row);
      if (valid.size) {
        emitItem(t.companyId, id, { action: 'reload', contactListId: id });
        await announceCount(t.companyId, id);
        await deps.jobs.schedule(checkJob, {
          key: String(id),
          companyId: t.companyId,
          payload: { contactListId: id },
        });
      }
      return { created, updated, unchanged, errorBag };
    },

    // ---- items ----

    /** GET /contact-list-items: one list's items by name; { contacts, hasMore }. */
    async listItems(t: Tenant, q: ContactListItemQuery): Promise<ContactListItemPage> {
      await listRow(t.companyId, q.contactListId);
      const rows = await db
        .select()
        .from(contactListItems)
        .where(
          and(
            eq(contactListItems.companyId, t.companyId),
            eq(contactListItems.contactListId, q.contactListId),
            itemSearch(q.searchParam),
          ),
        )
        .orderBy(sql`lower(${contactListItems.name})`, asc(contactListItems.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      return { contacts: rows.slice(0, PAGE_SIZE).map(itemView), hasMore: rows.length > PAGE_SIZE };
    },

    async getItem(t: Tenant, id: number): Promise<ContactListItemView> {
      return itemView(await itemRow(t.companyId, id));
    },

    async createItem(
      t: Tenant,
      input: { name: string; number: string; email: string; contactListId: number },
    ): Promise<ContactListItemView> {
      await listRow(t.companyId, input.contactListId);
      const number = normalizeNumber(input.number);
      const isWhatsappValid = await checkNumber(await defaultChannel(t.companyId), number);
      const [r] = await db
        .insert(contactListItems)
        .values({
          companyId: t.companyId,
          contactListId: input.contactListId,
          name: input.name,
          number,
          email: input.email,
          isWhatsappValid,
        })
        .returning()
        .catch(duplicateOr);
      const contactListItem = itemView(r!);
      emitItem(t.companyId, r!.contactListId, { action: 'create', contactListItem });
      await announceCount(t.companyId, r!.contactListId);
      return contactListItem;
    },

    async updateItem(t: Tenant, id: number, input: ContactListItemUpdate): Promise<ContactListItemView> {
      const before = await itemRow(t.companyId, id);
      const number = input.number === undefined ? undefined : normalizeNumber(input.number);
      const renumbered = number !== undefined && number !== before.number;
      const isWhatsappValid = renumbered
        ? await checkNumber(await defaultChannel(t.companyId), number)
        : undefined;
      const [r] = await db
        .update(contactListItems)
        .set({
          name: input.name,
          email: input.email,
          ...(renumbered ? { number, isWhatsappValid } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(contactListItems.id, id), eq(contactListItems.companyId, t.companyId)))
        .returning()
        .catch(duplicateOr);
      if (!r) throw new AppError('ERR_NO_CONTACT_LIST_ITEM_FOUND', 404);
      const contactListItem = itemView(r);
      emitItem(t.companyId, r.contactListId, { action: 'update', contactListItem });
      return contactListItem;
    },

    async removeItem(t: Tenant, id: number) {
      const [gone] = await db
        .delete(contactListItems)
        .where(and(eq(contactListItems.id, id), eq(contactListItems.companyId, t.companyId)))
        .returning({ id: contactListItems.id, contactListId: contactListItems.contactListId });
      if (!gone) throw new AppError('ERR_NO_CONTACT_LIST_ITEM_FOUND', 404);
      emitItem(t.companyId, gone.contactListId, {
        action: 'delete',
        contactListItemId: id,
        contactListId: gone.contactListId,
      });
      await announceCount(t.companyId, gone.contactListId);
      return { message: 'Contact list item deleted' };
    },
  };
}
export type ContactListService = ReturnType<typeof contactListService>;
