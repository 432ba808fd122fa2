import type { DomainBus } from '../../events/domain-events.js';
import { and, asc, eq, isNull, like, or, sql, type SQL } from 'drizzle-orm';
import { canSeeContact, customFieldText, rooms } from '@recado/contracts';
import { assertContactOwner, ownersByEmail, settingEnabled } from '../contact-owners/contact-owner-rules.js';
import { loadViewer } from '../tickets/ticket-queries.js';
import {
  CONTACT_SEARCH_MIN_LENGTH,
  PAGE_SIZE,
  legacyBrazilianNumber,
  normalizeNumber,
  onlyDigits,
  type ContactEvent,
  type ContactExtraInfoInput,
  type ContactImportResult,
  type ContactInputParsed,
  type ContactListItem,
  type ContactListQuery,
  type ContactPage,
  type ContactUpdate,
  type ContactUploadError,
  type ContactUploadResult,
  type ContactView,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { contactCustomFields, contacts, users } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { containsPattern, containsText } from '../../lib/sql.js';
import { ChannelError, type Channel } from '../../messaging/channel.js';
import { localReach, type Reach } from '../../messaging/channel-commands.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import type { Events } from '../../realtime/events.js';
import { canonicalTimeZone, readSetting } from '../settings/setting-service.js';
import { whatsappService, type WhatsappService } from '../whatsapps/whatsapp-service.js';
import { parseCustomFieldCells, parseUploadRow } from './contact-upload.js';
import { CSV_BOM, contactCsvHeaders, csvLine } from './contact-export.js';
import { truncate } from '../../lib/text.js';
import { identitiesOf } from './contact-identities.js';
import {
  applyCustomFields,
  checkCustomFields,
  customFieldDefinitionsOf,
  customFieldFilterWhere,
  hasCustomFieldChange,
} from '../custom-fields/custom-field-service.js';

type Row = typeof contacts.$inferSelect;

const UNIQUE_NUMBER = 'contacts_company_number_uq';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per INSERT statement in bulk imports (well under PostgreSQL's 65,535 parameters). */
const CHUNK = 1000;
/** Contacts read per query by the CSV export: 100,000 contacts never sit in memory at once. */
const EXPORT_PAGE = 1000;

export interface ContactServiceDeps {
  db: Db;
  events: Events;
  sessions: () => SessionManager | undefined;
  /** The connection's channel wherever its session runs (channel-commands.ts); default: this process's only. */
  reach?: Reach;
  log: { warn(obj: object, msg: string): void };
  /** Where the company's default connection comes from (the connections module by default). */
  whatsapps?: Pick<WhatsappService, 'defaultFor'>;
  /** A cached profile picture older than this is fetched again when the contact is read (24 h). */
  pictureMaxAgeMs?: number;
  /** Longest wait for the channel (number check, picture); past it the channel is treated as unable. */
  channelTimeoutMs?: number;
  /** Domain events (`contact.created`), after the insert committed. */
  bus?: Pick<DomainBus, 'emit'>;
}

const view = (
  r: Row,
  extraInfo?: ContactView['extraInfo'],
  identities?: ContactView['identities'],
): ContactView => ({
  id: r.id,
  name: r.name,
  number: r.number,
  email: r.email,
  profilePicUrl: r.profilePicUrl,
  isGroup: r.isGroup,
  ownerId: r.ownerId ?? null,
  customFields: r.customFields ?? {},
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
  ...(extraInfo ? { extraInfo } : {}),
  ...(identities ? { identities } : {}),
});

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

async function setExtraInfo(tx: Tx, contactId: number, extraInfo: ContactExtraInfoInput[]) {
  await tx.delete(contactCustomFields).where(eq(contactCustomFields.contactId, contactId));
  if (extraInfo.length)
    await tx
      .insert(contactCustomFields)
      .values(extraInfo.map((f) => ({ contactId, name: f.name, value: f.value ?? '' })));
}

/**
 * Contacts of a company: one per canonical number (normalizeNumber: 55 added, Brazilian ninth digit), so
 * "11 98888-7777" and "551188887777" are one person. Numbers are checked on WhatsApp through the default
 * connection when it runs here; profile pictures are cached and refreshed in the background.
 */
export function contactService(deps: ContactServiceDeps) {
  const { db, events, log } = deps;
  const connections = deps.whatsapps ?? whatsappService({ db, events, sessions: deps.sessions });
  const pictureMaxAgeMs = deps.pictureMaxAgeMs ?? DAY_MS;
  const channelTimeoutMs = deps.channelTimeoutMs ?? 5000;

  /**
   * A contact's event: to the company, or — with the own-contacts rule on (#30.4) and an owner — to the owner
   * and the admins and supervisors only (the room side of the one visibility rule).
   */
  const emit = (companyId: number, payload: ContactEvent) => {
    const ownerId = 'contact' in payload ? (payload.contact as ContactView).ownerId : null;
    if (!ownerId) return events.toCompany(companyId, 'contact', payload);
    void settingEnabled(db, companyId, 'ownContactsOnly')
      .then((on) =>
        on
          ? events.toRoom(
              [rooms.supervisors(companyId), rooms.user(companyId, ownerId)],
              companyId,
              'contact',
              payload,
            )
          : events.toCompany(companyId, 'contact', payload),
      )
      .catch((err: unknown) => deps.log.warn({ err }, 'contact event not sent'));
  };

  /** #30.4 The one visibility rule's contact side: a restricted attendant reaches only own or unowned contacts. */
  async function visibleContact(t: Tenant, id: number): Promise<Row> {
    const r = await row(t.companyId, id);
    if (!canSeeContact(await loadViewer(db, t), r)) throw new AppError('ERR_NO_PERMISSION', 403);
    return r;
  }
  async function contactScope(t: Tenant): Promise<SQL | undefined> {
    const v = await loadViewer(db, t);
    if (canSeeContact(v, { ownerId: -1 })) return undefined;
    return or(isNull(contacts.ownerId), eq(contacts.ownerId, t.userId));
  }

  /** The contacts list's filter (company, visibility, search, creation days, custom fields): the list and its export. */
  async function listFilter(t: Tenant, q: ContactListQuery): Promise<SQL | undefined> {
    const where: (SQL | undefined)[] = [eq(contacts.companyId, t.companyId), await contactScope(t)];
    const search = q.searchParam.trim();
    if (search.length >= CONTACT_SEARCH_MIN_LENGTH) {
      const digits = onlyDigits(search);
      where.push(
        or(
          containsText(contacts.name, search),
          digits.length >= CONTACT_SEARCH_MIN_LENGTH
            ? like(contacts.number, containsPattern(digits))
            : undefined,
        ),
      );
    }
    if (q.date || q.dateStart || q.dateEnd) {
      // Calendar days of the company's time zone, as bounds on createdAt (index friendly).
      const tz = canonicalTimeZone(await readSetting(db, t.companyId, 'timezone')) ?? 'UTC';
      const startOf = (day: string, plus = 0) =>
        sql`((${day}::date + ${plus}::int)::timestamp at time zone ${tz})`;
      const from = q.date ?? q.dateStart;
      const to = q.date ?? q.dateEnd;
      if (from) where.push(sql`${contacts.createdAt} >= ${startOf(from)}`);
      if (to) where.push(sql`${contacts.createdAt} < ${startOf(to, 1)}`);
    }
    where.push(
      await customFieldFilterWhere(db, t.companyId, 'contact', contacts.customFields, q.customFields),
    );
    return and(...where);
  }

  const reach = deps.reach ?? localReach(deps.sessions);

  /** The company's default connection's channel when it is connected, wherever its session runs. */
  async function defaultChannel(companyId: number) {
    let conn: Awaited<ReturnType<WhatsappService['defaultFor']>>;
    try {
      conn = await connections.defaultFor(companyId);
    } catch (err) {
      if (err instanceof AppError) return undefined;
      throw err;
    }
    if (conn.status !== 'CONNECTED') return undefined;
    return reach(conn.id);
  }

  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.id, id), eq(contacts.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
    return r;
  }

  async function load(companyId: number, id: number): Promise<{ row: Row; contact: ContactView }> {
    const r = await row(companyId, id);
    const extraInfo = await db
      .select({
        id: contactCustomFields.id,
        name: contactCustomFields.name,
        value: contactCustomFields.value,
      })
      .from(contactCustomFields)
      .where(eq(contactCustomFields.contactId, id))
      .orderBy(asc(contactCustomFields.id));
    const identities = (await identitiesOf(db, companyId, [id])).get(id) ?? [];
    return { row: r, contact: view(r, extraInfo, identities) };
  }

  // ---- profile pictures: fetched in the background, one at a time per company, never twice at once ----
  const queued = new Set<string>();
  const chains = new Map<number, Promise<void>>();

  async function refreshPicture(companyId: number, id: number, address: string) {
    const channel = await defaultChannel(companyId);
    if (!channel) return;
    let url: string | null | undefined;
    try {
      url = await withTimeout(channel.profilePicture(address), channelTimeoutMs);
      // A Brazilian mobile registered before the ninth digit still answers at its old address.
      const legacy = url ? null : legacyBrazilianNumber(onlyDigits(address));
      if (legacy) url = await withTimeout(channel.profilePicture(legacy), channelTimeoutMs);
    } catch (err) {
      log.warn({ err, companyId, contactId: id }, 'profile picture fetch failed; keeping the cached one');
      url = undefined;
    }
    const [before] = await db
      .select({ url: contacts.profilePicUrl })
      .from(contacts)
      .where(and(eq(contacts.id, id), eq(contacts.companyId, companyId)));
    if (!before) return;
    const next = url === undefined ? before.url : (url ?? '');
    await db
      .update(contacts)
      .set({ profilePicUrl: next, profilePicFetchedAt: new Date() })
      .where(and(eq(contacts.id, id), eq(contacts.companyId, companyId)));
    if (next !== before.url)
      emit(companyId, { action: 'update', contact: (await load(companyId, id)).contact });
  }

  function schedulePicture(companyId: number, id: number, address: string) {
    const key = `${companyId}:${id}`;
    // Bounded: a flood of reads never queues more than this many fetches in one process.
    if (queued.has(key) || queued.size >= 1000) return;
    queued.add(key);
    const next = (chains.get(companyId) ?? Promise.resolve())
      .then(() => refreshPicture(companyId, id, address))
      .catch((err) => log.warn({ err, companyId, contactId: id }, 'profile picture refresh failed'))
      .finally(() => queued.delete(key));
    chains.set(companyId, next);
    void next.then(() => {
      if (chains.get(companyId) === next) chains.delete(companyId);
    });
  }

  const isStale = (r: Row, now = Date.now()) =>
    !r.isGroup &&
    r.number !== '' &&
    (!r.profilePicFetchedAt || now - r.profilePicFetchedAt.getTime() > pictureMaxAgeMs);

  const refreshStale = (companyId: number, rows: Row[]) => {
    const now = Date.now();
    for (const r of rows) if (isStale(r, now)) schedulePicture(companyId, r.id, r.number);
  };

  // ---- rules ----

  async function assertNumberFree(companyId: number, number: string, exceptId?: number) {
    const [hit] = await db
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), eq(contacts.number, number)));
    if (hit && hit.id !== exceptId) throw new AppError('ERR_DUPLICATED_CONTACT', 409);
  }

  /**
   * Refuses a number WhatsApp does not know, when the default connection can ask. No running default
   * connection, or a channel that fails or is slow to answer, skips the check: contacts can always be kept.
   */
  async function checkOnWhatsapp(companyId: number, number: string): Promise<{ replyTo?: string }> {
    const channel = await defaultChannel(companyId);
    if (!channel) return {};
    let answer: Awaited<ReturnType<Channel['checkNumber']>>;
    try {
      answer = await withTimeout(channel.checkNumber(number), channelTimeoutMs);
    } catch (err) {
      log.warn({ err, companyId }, 'number check failed; contact kept unchecked');
      return {};
    }
    if (!answer.exists) throw new AppError('ERR_WAPP_INVALID_CONTACT', 400);
    return { replyTo: answer.replyTo };
  }

  const duplicateOr = (err: unknown): never => {
    if (isUniqueViolation(err, UNIQUE_NUMBER)) throw new AppError('ERR_DUPLICATED_CONTACT', 409);
    throw err;
  };

  /** Inserts contacts that do not exist yet (by canonical number), all or none; answers the new rows. */
  async function insertMissing(
    companyId: number,
    items: {
      name: string;
      number: string;
      email?: string;
      ownerId?: number;
      customFields?: Record<string, string | number | boolean>;
    }[],
    by: number,
  ): Promise<Row[]> {
    if (!items.length) return [];
    const created = await db.transaction(async (tx) => {
      const inserted: Row[] = [];
      for (const part of chunks(items))
        inserted.push(
          ...(await tx
            .insert(contacts)
            .values(
              part.map((c) => ({
                companyId,
                name: c.name,
                number: c.number,
                email: c.email ?? '',
                ownerId: c.ownerId ?? null,
                customFields: c.customFields ?? {},
              })),
            )
            .onConflictDoNothing({ target: [contacts.companyId, contacts.number], where: sql`number <> ''` })
            .returning()),
        );
      return inserted;
    });
    for (const contact of created) deps.bus?.emit('contact.created', { companyId, contact, by });
    return created;
  }

  return {
    async list(t: Tenant, q: ContactListQuery): Promise<ContactPage> {
      const filter = await listFilter(t, q);
      const rows = await db
        .select()
        .from(contacts)
        .where(filter)
        .orderBy(asc(sql`lower(${contacts.name})`), asc(contacts.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      const [total] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(contacts)
        .where(filter);
      const page = rows.slice(0, PAGE_SIZE);
      refreshStale(t.companyId, page);
      return { contacts: page.map((r) => view(r)), hasMore: rows.length > PAGE_SIZE, count: total?.n ?? 0 };
    },

    /**
     * GET /contacts/export.csv (#32.6): the list's contacts (same filter and visibility, same order) as CSV
     * lines, read a page at a time by keyset on (lower(name), id) while the answer streams out. Columns: name,
     * number, e-mail, then one per contact custom field headed by its label.
     */
    async exportCsv(t: Tenant, q: ContactListQuery): Promise<AsyncIterable<string>> {
      const filter = await listFilter(t, q);
      const fields = await customFieldDefinitionsOf(db, t.companyId, 'contact');
      const [me] = await db
        .select({ language: users.language })
        .from(users)
        .where(and(eq(users.id, t.userId), eq(users.companyId, t.companyId)));
      const h = contactCsvHeaders(me?.language);
      const sortKey = sql<string>`lower(${contacts.name})`;
      /** The next EXPORT_PAGE contacts after the last one written (keyset: no offset scan on page 100). */
      const page = (after: { key: string; id: number } | null) =>
        db
          .select({
            id: contacts.id,
            key: sortKey,
            name: contacts.name,
            number: contacts.number,
            email: contacts.email,
            customFields: contacts.customFields,
          })
          .from(contacts)
          .where(
            and(
              filter,
              after ? sql`(${sortKey}, ${contacts.id}) > (${after.key}::text, ${after.id}::int)` : undefined,
            ),
          )
          .orderBy(asc(sortKey), asc(contacts.id))
          .limit(EXPORT_PAGE);
      async function* lines(): AsyncGenerator<string> {
        yield CSV_BOM + csvLine([h.name, h.number, h.email, ...fields.map((f) => f.label)]);
        for (let rows = await page(null); rows.length;) {
          yield rows
            .map((r) =>
              csvLine([
                r.name,
                r.number,
                r.email,
                ...fields.map((f) => customFieldText(r.customFields?.[f.key])),
              ]),
            )
            .join('');
          const last = rows[rows.length - 1]!;
          rows = rows.length < EXPORT_PAGE ? [] : await page({ key: last.key, id: last.id });
        }
      }
      return lines();
    },

    async listAll(t: Tenant): Promise<ContactListItem[]> {
      return db
        .select({ id: contacts.id, name: contacts.name, number: contacts.number })
        .from(contacts)
        .where(and(eq(contacts.companyId, t.companyId), await contactScope(t)))
        .orderBy(asc(sql`lower(${contacts.name})`), asc(contacts.id));
    },

    async get(t: Tenant, id: number): Promise<ContactView> {
      await visibleContact(t, id);
      const { row: r, contact } = await load(t.companyId, id);
      refreshStale(t.companyId, [r]);
      return contact;
    },

    async create(t: Tenant, input: ContactInputParsed): Promise<ContactView> {
      const number = normalizeNumber(input.number);
      await assertContactOwner(db, t.companyId, input.ownerId);
      await assertNumberFree(t.companyId, number);
      const fields = await checkCustomFields(db, t.companyId, 'contact', input.customFields, true);
      const { replyTo } = await checkOnWhatsapp(t.companyId, number);
      const id = await db
        .transaction(async (tx) => {
          const [created] = await tx
            .insert(contacts)
            .values({
              companyId: t.companyId,
              name: input.name,
              number,
              email: input.email,
              ownerId: input.ownerId ?? null,
              customFields: fields.set,
            })
            .returning({ id: contacts.id });
          await setExtraInfo(tx, created!.id, input.extraInfo);
          return created!.id;
        })
        .catch(duplicateOr);
      const { row: createdRow, contact } = await load(t.companyId, id);
      emit(t.companyId, { action: 'create', contact });
      deps.bus?.emit('contact.created', { companyId: t.companyId, contact: createdRow, by: t.userId });
      schedulePicture(t.companyId, id, replyTo ?? number);
      return contact;
    },

    async update(t: Tenant, id: number, input: ContactUpdate): Promise<ContactView> {
      const current = await visibleContact(t, id);
      await assertContactOwner(db, t.companyId, input.ownerId, id);
      const number = input.number === undefined ? undefined : normalizeNumber(input.number);
      const numberChanged = number !== undefined && number !== current.number;
      const fields = await checkCustomFields(db, t.companyId, 'contact', input.customFields, false);
      let replyTo: string | undefined;
      if (numberChanged) {
        await assertNumberFree(t.companyId, number, id);
        replyTo = (await checkOnWhatsapp(t.companyId, number)).replyTo;
      }
      await db
        .transaction(async (tx) => {
          await tx
            .update(contacts)
            .set({
              name: input.name,
              email: input.email,
              ownerId: input.ownerId,
              // Another number is another person's picture.
              ...(numberChanged ? { number, profilePicUrl: '', profilePicFetchedAt: null } : {}),
              ...(hasCustomFieldChange(fields)
                ? { customFields: applyCustomFields(contacts.customFields, fields) }
                : {}),
              updatedAt: new Date(),
            })
            .where(and(eq(contacts.id, id), eq(contacts.companyId, t.companyId)));
          if (input.extraInfo) await setExtraInfo(tx, id, input.extraInfo);
        })
        .catch(duplicateOr);
      const { contact } = await load(t.companyId, id);
      emit(t.companyId, { action: 'update', contact });
      if (numberChanged) schedulePicture(t.companyId, id, replyTo ?? number);
      return contact;
    },

    async remove(t: Tenant, id: number) {
      await visibleContact(t, id);
      const [gone] = await db
        .delete(contacts)
        .where(and(eq(contacts.id, id), eq(contacts.companyId, t.companyId)))
        .returning({ id: contacts.id });
      if (!gone) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
      emit(t.companyId, { action: 'delete', contactId: id });
      return { message: 'Contact deleted' };
    },

    /** POST /contacts/import: the default connection's address book, adding only numbers not stored yet. */
    async importAddressBook(t: Tenant): Promise<ContactImportResult> {
      const conn = await connections.defaultFor(t.companyId);
      const channel = conn.status === 'CONNECTED' ? await reach(conn.id) : undefined;
      if (!channel) throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400);
      if (!channel.addressBook) return { imported: 0, skipped: 0, unsupported: true };
      let book: { number: string; name: string }[];
      try {
        book = await withTimeout(channel.addressBook(), channelTimeoutMs * 6);
      } catch (err) {
        if (err instanceof ChannelError) throw new AppError(err.code, 400, err.message);
        throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, (err as Error)?.message);
      }
      const wanted = new Map<string, string>();
      for (const entry of book) {
        const number = normalizeNumber(String(entry.number ?? ''));
        if (number.length < 8 || number.length > 20 || wanted.has(number)) continue;
        const name = truncate(String(entry.name ?? '').trim(), 50);
        wanted.set(number, name.length >= 2 ? name : number);
      }
      const created = await insertMissing(
        t.companyId,
        [...wanted].map(([number, name]) => ({ number, name })),
        t.userId,
      );
      for (const r of created) emit(t.companyId, { action: 'create', contact: view(r, []) });
      return { imported: created.length, skipped: book.length - created.length };
    },

    /**
     * POST /contacts/upload: each row checked on its own; a bad row goes to errorBag and never stops the
     * others. Numbers repeated in the file or already stored are reported, not overwritten, so sending the
     * same file twice changes nothing. The new contacts are written together, all or none.
     */
    async upload(t: Tenant, rows: unknown[]): Promise<ContactUploadResult> {
      const errorBag: ContactUploadError[] = [];
      const valid: {
        row: number;
        name: string;
        number: string;
        email: string;
        ownerId?: number;
        customFields?: Record<string, string | number | boolean>;
      }[] = [];
      // #32.7 Custom field columns, headed by label or key (what the contacts export writes).
      const defs = await customFieldDefinitionsOf(db, t.companyId, 'contact');
      const firstRowOf = new Map<string, number>();
      const parsedRows = rows.map(parseUploadRow);
      // #30.4 The owner column names a user of this company by e-mail; an unknown one makes the row bad.
      const owners = await ownersByEmail(db, t.companyId, [
        ...new Set(parsedRows.flatMap((p) => (p.ok && p.owner ? [p.owner.toLowerCase()] : []))),
      ]);
      parsedRows.forEach((parsed, i) => {
        const row = i + 1;
        if (!parsed.ok) return void errorBag.push({ row, ...parsed.error });
        const { name, email } = parsed.input;
        const number = normalizeNumber(parsed.input.number);
        const ownerId = parsed.owner ? owners.get(parsed.owner.toLowerCase()) : undefined;
        if (parsed.owner && ownerId === undefined)
          return void errorBag.push({
            row,
            contactName: name,
            number,
            error: {
              code: 'ERR_VALIDATION',
              field: 'ownerId',
              message: `ownerId: no user with the e-mail ${truncate(parsed.owner, 100)} in this company`,
            },
          });
        const cells = parseCustomFieldCells(rows[i], defs);
        if (!cells.ok)
          return void errorBag.push({
            row,
            contactName: name,
            number,
            error: {
              code: 'ERR_VALIDATION',
              field: cells.field,
              message: `${cells.field}: ${cells.message}`,
            },
          });
        const first = firstRowOf.get(number);
        if (first !== undefined)
          return void errorBag.push({
            row,
            contactName: name,
            number,
            error: { code: 'ERR_DUPLICATED_CONTACT', message: `Same number as row ${first}` },
          });
        firstRowOf.set(number, row);
        valid.push({
          row,
          name,
          number,
          email,
          customFields: cells.values,
          ...(ownerId === undefined ? {} : { ownerId }),
        });
      });
      const created = await insertMissing(t.companyId, valid, t.userId);
      const byNumber = new Map(created.map((r) => [r.number, r]));
      const newContacts: ContactUploadResult['newContacts'] = [];
      for (const v of valid) {
        const r = byNumber.get(v.number);
        if (r) newContacts.push({ contactId: r.id, contactName: r.name });
        else
          errorBag.push({
            row: v.row,
            contactName: v.name,
            number: v.number,
            error: { code: 'ERR_DUPLICATED_CONTACT', message: 'A contact with this number exists' },
          });
      }
      errorBag.sort((a, b) => a.row - b.row);
      for (const r of created) emit(t.companyId, { action: 'create', contact: view(r, []) });
      return { newContacts, errorBag };
    },

    /** A contact's event to those who may see it (#32.8: the merge announces its survivor and the deleted one). */
    announce: emit,

    /** Resolves once the background picture fetches queued so far have finished (tests, shutdown). */
    async picturesSettled(): Promise<void> {
      while (chains.size) await Promise.all([...chains.values()]);
    },
  };
}
export type ContactService = ReturnType<typeof contactService>;
