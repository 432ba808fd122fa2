import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, normalize, sep } from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { SETTING_KEYS } from '@recado/contracts';
import type { Database, Tx } from '../db/client.js';
import { hashPassword } from '../lib/passwords.js';
import { mediaStore } from '../messaging/media-store.js';

/**
 * #35.5 Import one company of a Whaticket SaaS 6.x PostgreSQL database into Recado (docs/migration.md).
 * Each source row becomes (or updates) one Recado row; whaticket_import_map (migration 0058) remembers which,
 * in the same transaction as the row, so a re-run updates instead of duplicating and a run stopped half-way
 * continues where its last committed batch left off.
 */

/** The tables the importer reads, in import order (references first). */
export const WHATICKET_TABLES = [
  'Companies',
  'Queues',
  'Whatsapps',
  'Users',
  'Tags',
  'Contacts',
  'Tickets',
  'TicketTags',
  'Messages',
  'QuickMessages',
  'Schedules',
  'ContactLists',
  'ContactListItems',
  'Campaigns',
  'Settings',
] as const;
type Table = (typeof WHATICKET_TABLES)[number];

/** The Recado table each mapped Whaticket table lands in. */
const TARGET: Record<string, string> = {
  Companies: 'companies',
  Queues: 'queues',
  Whatsapps: 'whatsapps',
  Users: 'users',
  Tags: 'tags',
  Contacts: 'contacts',
  Tickets: 'tickets',
  Messages: 'messages',
  QuickMessages: 'quick_messages',
  Schedules: 'schedules',
  ContactLists: 'contact_lists',
  ContactListItems: 'contact_list_items',
  Campaigns: 'campaigns',
};

export interface TableReport {
  read: number;
  imported: number;
  updated: number;
  skipped: number;
  /** Why rows were skipped or changed on the way, with how many. */
  reasons: Record<string, number>;
}

export interface WhaticketImportReport {
  ok: boolean;
  source: string;
  whaticketCompanyId: number;
  recadoCompanyId: number | null;
  /** Tables the source lacks (nothing is imported then). */
  missingTables: string[];
  error?: string;
  tables: Partial<Record<Table, TableReport>>;
  notes: string[];
}

export interface WhaticketImportOptions {
  /** The Whaticket database's PostgreSQL URL. */
  from: string;
  /** The Whaticket company id to import. */
  companyId: number;
  target: Database;
  /** Whaticket's backend public folder: media files are copied from it when given. */
  mediaDir?: string;
  /** Recado's DATA_DIR (its media store); required with mediaDir. */
  dataDir?: string;
  batchSize?: number;
  log?: (line: string) => void;
}

type Row = Record<string, unknown>;

const str = (v: unknown, fallback = ''): string => (v === null || v === undefined ? fallback : String(v));
const date = (v: unknown): Date | null => {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(String(v));
  return Number.isNaN(d.getTime()) ? null : d;
};
const digits = (v: unknown) => str(v).replace(/\D/g, '');
const TEXT_TYPES = new Set(['chat', 'conversation', 'extendedTextMessage', '']);

/** `host/db#company`, without credentials: the map's key for one source company. */
function sourceKey(url: string, companyId: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}#${companyId}`;
  } catch {
    return `source#${companyId}`;
  }
}

const rowsOf = async (tx: Tx, q: SQL): Promise<Row[]> =>
  ((await tx.execute(q)) as unknown as { rows: Row[] }).rows;

export async function importWhaticket(o: WhaticketImportOptions): Promise<WhaticketImportReport> {
  const log = o.log ?? (() => undefined);
  const batchSize = o.batchSize ?? 500;
  const source = sourceKey(o.from, o.companyId);
  const report: WhaticketImportReport = {
    ok: false,
    source,
    whaticketCompanyId: o.companyId,
    recadoCompanyId: null,
    missingTables: [],
    tables: {},
    notes: [],
  };
  const client = new pg.Client({ connectionString: o.from, connectionTimeoutMillis: 10_000 });
  try {
    try {
      await client.connect();
    } catch (err) {
      report.error = `cannot reach the Whaticket database: ${err instanceof Error ? err.message : String(err)}`;
      return report;
    }
    const present = await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public'`,
    );
    const have = new Set(present.rows.map((r) => r.table_name));
    report.missingTables = WHATICKET_TABLES.filter((t) => !have.has(t));
    if (report.missingTables.length) {
      report.error = `the Whaticket database lacks ${report.missingTables.map((t) => `"${t}"`).join(', ')}: nothing imported`;
      return report;
    }
    const company = (await client.query(`select * from "Companies" where id = $1`, [o.companyId])).rows[0] as
      Row | undefined;
    if (!company) {
      report.error = `company ${o.companyId} is not in the Whaticket database: nothing imported`;
      return report;
    }
    const { db } = o.target;
    const store = o.mediaDir && o.dataDir ? mediaStore(o.dataDir) : undefined;
    if (o.mediaDir && !o.dataDir) report.notes.push('media not copied: no Recado data folder given');

    const tableReport = (t: Table): TableReport =>
      (report.tables[t] ??= { read: 0, imported: 0, updated: 0, skipped: 0, reasons: {} });
    const reason = (t: Table, why: string, skipped = true) => {
      const r = tableReport(t);
      if (skipped) r.skipped++;
      r.reasons[why] = (r.reasons[why] ?? 0) + 1;
    };

    // A mapped row deleted in Recado since (a contact removed, and its tickets with it) counts as not imported:
    // the next run creates it again instead of referring to a row that is gone.
    const live = (table: string) =>
      sql.raw(`exists (select 1 from ${TARGET[table]} r where r.id = m.target_id)`);
    const mapped = async (tx: Tx, table: string, id: unknown): Promise<number | undefined> => {
      const r = await rowsOf(
        tx,
        sql`select target_id from whaticket_import_map m where source = ${source} and source_table = ${table}
          and source_id = ${str(id)} and ${live(table)}`,
      );
      return r[0] ? Number(r[0].target_id) : undefined;
    };
    const remember = (tx: Tx, table: string, id: unknown, companyId: number, targetId: number) =>
      tx.execute(sql`insert into whaticket_import_map (source, source_table, source_id, company_id, target_id)
        values (${source}, ${table}, ${str(id)}, ${companyId}, ${targetId})
        on conflict (source, source_table, source_id) do update set target_id = excluded.target_id, imported_at = now()`);
    /** Every mapped id of one source table, for references (source id → Recado id). */
    const loadMap = async (table: string): Promise<Map<string, number>> => {
      const r = await o.target.raw(
        `select source_id, target_id from whaticket_import_map m where source = $1 and source_table = $2
           and exists (select 1 from ${TARGET[table]} r where r.id = m.target_id)`,
        [source, table],
      );
      return new Map(r.rows.map((x) => [String(x.source_id), Number(x.target_id)]));
    };
    const ref = (m: Map<string, number>, v: unknown) =>
      v === null || v === undefined ? null : (m.get(String(v)) ?? null);

    /**
     * Reads a source table in keyset batches (ordered by `id`) and hands each batch to `each` inside one
     * target transaction: a batch is imported with its map rows or not at all.
     */
    const eachBatch = async (
      table: Table,
      query: string,
      each: (tx: Tx, row: Row) => Promise<'imported' | 'updated' | 'skipped'>,
    ) => {
      const r = tableReport(table);
      let last: unknown = null;
      for (;;) {
        const res = await client.query(
          `${query} and ($2::text is null or x.id::text > $2::text) order by x.id::text limit ${batchSize}`,
          [o.companyId, last === null ? null : str(last)],
        );
        if (!res.rows.length) break;
        // Media are copied before the transaction: PGlite runs one session, no file I/O inside it.
        await db.transaction(async (tx) => {
          for (const row of res.rows as Row[]) {
            r.read++;
            const outcome = await each(tx, row);
            if (outcome === 'imported') r.imported++;
            else if (outcome === 'updated') r.updated++;
          }
        });
        last = (res.rows[res.rows.length - 1] as Row).id;
        log(`  ${table}: ${r.read} read`);
        if (res.rows.length < batchSize) break;
      }
      log(`${table}: ${r.imported} imported, ${r.updated} updated, ${r.skipped} skipped`);
    };

    // ── Company ────────────────────────────────────────────────────────────────────────────────────
    let companyId = 0;
    await db.transaction(async (tx) => {
      const r = tableReport('Companies');
      r.read++;
      const existing = await mapped(tx, 'Companies', o.companyId);
      const fields = {
        email: str(company.email),
        phone: str(company.phone),
        status: company.status === false ? false : true,
      };
      if (existing) {
        companyId = existing;
        await tx.execute(
          sql`update companies set email = ${fields.email}, phone = ${fields.phone}, status = ${fields.status}, updated_at = now() where id = ${companyId}`,
        );
        r.updated++;
        return;
      }
      const plan = (await rowsOf(tx, sql`select id from plans order by id limit 1`))[0];
      if (!plan)
        throw new Error('Recado has no plan: start Recado once (it seeds the plans) before importing');
      const original = str(company.name, `Whaticket ${o.companyId}`);
      let name = original;
      const taken = async (n: string) =>
        (await rowsOf(tx, sql`select 1 from companies where lower(name) = lower(${n})`)).length > 0;
      for (let i = 1; await taken(name); i++)
        name = `${original} (Whaticket ${o.companyId}${i > 1 ? `, ${i}` : ''})`;
      if (name !== original)
        reason('Companies', 'name already used in Recado: suffixed with (Whaticket id)', false);
      const ins = await rowsOf(
        tx,
        sql`insert into companies (name, email, phone, status, plan_id, created_at, updated_at)
          values (${name}, ${fields.email}, ${fields.phone}, ${fields.status}, ${plan.id}, ${date(company.createdAt) ?? new Date()}, now())
          returning id`,
      );
      companyId = Number(ins[0]!.id);
      await remember(tx, 'Companies', o.companyId, companyId, companyId);
      r.imported++;
      report.notes.push(`company created on Recado's first plan (id ${String(plan.id)}): choose its plan`);
    });
    report.recadoCompanyId = companyId;
    log(`Whaticket company ${o.companyId} → Recado company ${companyId}`);

    // ── Queues ─────────────────────────────────────────────────────────────────────────────────────
    await eachBatch('Queues', `select * from "Queues" x where x."companyId" = $1`, async (tx, q) => {
      const existing = await mapped(tx, 'Queues', q.id);
      let color = str(q.color, '#5C59A0');
      const clash = await rowsOf(
        tx,
        sql`select id from queues where company_id = ${companyId} and lower(color) = lower(${color}) and id <> ${existing ?? 0}`,
      );
      if (clash.length) {
        color = `#${randomBytes(3).toString('hex')}`;
        reason('Queues', 'colour already used by another queue: given a new one', false);
      }
      const schedules = Array.isArray(q.schedules) ? q.schedules : [];
      const values = {
        name: str(q.name, `Queue ${str(q.id)}`),
        greeting: str(q.greetingMessage),
        outOfHours: str(q.outOfHoursMessage),
        order: q.orderQueue === null || q.orderQueue === undefined ? null : Number(q.orderQueue),
      };
      if (existing) {
        await tx.execute(sql`update queues set name = ${values.name}, color = ${color}, greeting_message = ${values.greeting},
          out_of_hours_message = ${values.outOfHours}, order_queue = ${values.order}, schedules = ${JSON.stringify(schedules)}::jsonb,
          updated_at = now() where id = ${existing} and company_id = ${companyId}`);
        return 'updated';
      }
      const ins = await rowsOf(
        tx,
        sql`insert into queues (company_id, name, color, greeting_message, out_of_hours_message, order_queue, schedules, created_at, updated_at)
          values (${companyId}, ${values.name}, ${color}, ${values.greeting}, ${values.outOfHours}, ${values.order},
            ${JSON.stringify(schedules)}::jsonb, ${date(q.createdAt) ?? new Date()}, now()) returning id`,
      );
      await remember(tx, 'Queues', q.id, companyId, Number(ins[0]!.id));
      return 'imported';
    });
    const queueMap = await loadMap('Queues');

    // ── Connections (always DISCONNECTED: a new QR scan pairs them) ────────────────────────────────
    await eachBatch('Whatsapps', `select * from "Whatsapps" x where x."companyId" = $1`, async (tx, w) => {
      const existing = await mapped(tx, 'Whatsapps', w.id);
      const msgs = {
        greeting: str(w.greetingMessage),
        farewell: str(w.complationMessage ?? w.farewellMessage),
        outOfHours: str(w.outOfHoursMessage),
        rating: str(w.ratingMessage),
      };
      if (existing) {
        // The status is left alone: the connection may have been paired again since the last run.
        await tx.execute(sql`update whatsapps set greeting_message = ${msgs.greeting}, complation_message = ${msgs.farewell},
          out_of_hours_message = ${msgs.outOfHours}, rating_message = ${msgs.rating}, updated_at = now()
          where id = ${existing} and company_id = ${companyId}`);
        return 'updated';
      }
      let name = str(w.name, `WhatsApp ${str(w.id)}`);
      if (
        (
          await rowsOf(
            tx,
            sql`select 1 from whatsapps where company_id = ${companyId} and lower(name) = lower(${name})`,
          )
        ).length
      ) {
        name = `${name} (Whaticket ${str(w.id)})`;
        reason('Whatsapps', 'name already used by another connection: suffixed', false);
      }
      const hasDefault = (
        await rowsOf(tx, sql`select 1 from whatsapps where company_id = ${companyId} and is_default`)
      ).length;
      const ins = await rowsOf(
        tx,
        sql`insert into whatsapps (company_id, name, channel, status, qrcode, is_default, greeting_message, complation_message,
            out_of_hours_message, rating_message, created_at, updated_at)
          values (${companyId}, ${name}, 'baileys', 'DISCONNECTED', '', ${w.isDefault === true && !hasDefault}, ${msgs.greeting},
            ${msgs.farewell}, ${msgs.outOfHours}, ${msgs.rating}, ${date(w.createdAt) ?? new Date()}, now()) returning id`,
      );
      await remember(tx, 'Whatsapps', w.id, companyId, Number(ins[0]!.id));
      reason('Whatsapps', 'DISCONNECTED: needs a new QR scan', false);
      return 'imported';
    });
    const whatsappMap = await loadMap('Whatsapps');

    // ── Users (no password hashes: an unusable random one; each must reset the password) ───────────
    const users = (
      await client.query(`select * from "Users" x where x."companyId" = $1 order by x.id`, [o.companyId])
    ).rows as Row[];
    const hashes = new Map<string, string>();
    for (const u of users) hashes.set(str(u.id), await hashPassword(randomBytes(24).toString('base64url')));
    await db.transaction(async (tx) => {
      const r = tableReport('Users');
      for (const u of users) {
        r.read++;
        const existing = await mapped(tx, 'Users', u.id);
        const profile = ['admin', 'user', 'supervisor'].includes(str(u.profile)) ? str(u.profile) : 'user';
        const name = str(u.name, str(u.email));
        const whatsappId = ref(whatsappMap, u.whatsappId);
        if (u.super === true)
          reason('Users', 'super flag not imported: Recado has its own super user', false);
        if (existing) {
          await tx.execute(sql`update users set name = ${name}, profile = ${profile}, whatsapp_id = ${whatsappId}, updated_at = now()
            where id = ${existing} and company_id = ${companyId}`);
          r.updated++;
          continue;
        }
        const email = str(u.email).trim().toLowerCase();
        if (!email) {
          reason('Users', 'no e-mail');
          continue;
        }
        const same = await rowsOf(tx, sql`select id, company_id from users where lower(email) = ${email}`);
        if (same[0] && Number(same[0].company_id) !== companyId) {
          reason('Users', 'e-mail already belongs to a user of another Recado company');
          continue;
        }
        let id: number;
        if (same[0]) id = Number(same[0].id);
        else {
          const ins = await rowsOf(
            tx,
            sql`insert into users (company_id, name, email, password_hash, profile, whatsapp_id, created_at, updated_at)
              values (${companyId}, ${name}, ${email}, ${hashes.get(str(u.id))!}, ${profile}, ${whatsappId},
                ${date(u.createdAt) ?? new Date()}, now()) returning id`,
          );
          id = Number(ins[0]!.id);
          reason('Users', 'random password: must reset it ("forgot password")', false);
        }
        await remember(tx, 'Users', u.id, companyId, id);
        r.imported++;
      }
    });
    if (report.tables.Users?.reasons['random password: must reset it ("forgot password")'])
      report.notes.push('users have random passwords: each must use "forgot password" to choose one');
    const userMap = await loadMap('Users');

    // ── Tags ───────────────────────────────────────────────────────────────────────────────────────
    await eachBatch('Tags', `select * from "Tags" x where x."companyId" = $1`, async (tx, t) => {
      const existing = await mapped(tx, 'Tags', t.id);
      const name = str(t.name, `Tag ${str(t.id)}`);
      const color = str(t.color, '#5C59A0');
      const kanban = Number(t.kanban ?? 0) ? 1 : 0;
      if (existing) {
        await tx.execute(
          sql`update tags set color = ${color}, kanban = ${kanban}, updated_at = now() where id = ${existing} and company_id = ${companyId}`,
        );
        return 'updated';
      }
      const same = await rowsOf(
        tx,
        sql`select id from tags where company_id = ${companyId} and lower(name) = lower(${name})`,
      );
      let id: number;
      if (same[0]) {
        id = Number(same[0].id);
        reason('Tags', 'merged into the Recado tag of the same name', false);
      } else {
        const ins = await rowsOf(
          tx,
          sql`insert into tags (company_id, name, color, kanban, created_at, updated_at)
            values (${companyId}, ${name}, ${color}, ${kanban}, ${date(t.createdAt) ?? new Date()}, now()) returning id`,
        );
        id = Number(ins[0]!.id);
      }
      await remember(tx, 'Tags', t.id, companyId, id);
      return 'imported';
    });
    const tagMap = await loadMap('Tags');

    // ── Contacts ───────────────────────────────────────────────────────────────────────────────────
    await eachBatch('Contacts', `select * from "Contacts" x where x."companyId" = $1`, async (tx, c) => {
      const existing = await mapped(tx, 'Contacts', c.id);
      const name = str(c.name) || digits(c.number) || `Contact ${str(c.id)}`;
      const email = str(c.email);
      if (existing) {
        await tx.execute(
          sql`update contacts set name = ${name}, email = ${email}, updated_at = now() where id = ${existing} and company_id = ${companyId}`,
        );
        return 'updated';
      }
      const number = digits(c.number);
      if (!number) reason('Contacts', 'no number: imported without one', false);
      const same = number
        ? await rowsOf(
            tx,
            sql`select id from contacts where company_id = ${companyId} and number = ${number}`,
          )
        : [];
      let id: number;
      if (same[0]) {
        id = Number(same[0].id);
        reason('Contacts', 'merged into the Recado contact with the same number', false);
      } else {
        const ins = await rowsOf(
          tx,
          sql`insert into contacts (company_id, name, number, email, profile_pic_url, is_group, created_at, updated_at)
            values (${companyId}, ${name}, ${number}, ${email}, ${str(c.profilePicUrl)}, ${c.isGroup === true},
              ${date(c.createdAt) ?? new Date()}, now()) returning id`,
        );
        id = Number(ins[0]!.id);
      }
      await remember(tx, 'Contacts', c.id, companyId, id);
      return 'imported';
    });
    const contactMap = await loadMap('Contacts');

    // ── Tickets ────────────────────────────────────────────────────────────────────────────────────
    await eachBatch('Tickets', `select * from "Tickets" x where x."companyId" = $1`, async (tx, t) => {
      const existing = await mapped(tx, 'Tickets', t.id);
      const contactId = ref(contactMap, t.contactId);
      if (!contactId) {
        reason('Tickets', 'its contact was not imported');
        return 'skipped';
      }
      const whatsappId = ref(whatsappMap, t.whatsappId);
      const lastMessage = str(t.lastMessage);
      const unread = Number(t.unreadMessages ?? 0) || 0;
      const updatedAt = date(t.updatedAt) ?? new Date();
      if (existing) {
        // The status is left alone on re-runs: Recado's own work on the ticket since the first run wins.
        await tx.execute(sql`update tickets set last_message = ${lastMessage}, unread_messages = ${unread},
          queue_id = ${ref(queueMap, t.queueId)}, user_id = ${ref(userMap, t.userId)}
          where id = ${existing} and company_id = ${companyId}`);
        return 'updated';
      }
      let status = ['open', 'pending', 'closed'].includes(str(t.status)) ? str(t.status) : 'closed';
      if (status !== str(t.status)) reason('Tickets', `status "${str(t.status)}" imported as closed`, false);
      if (status !== 'closed') {
        const active = await rowsOf(
          tx,
          sql`select 1 from tickets where contact_id = ${contactId} and whatsapp_id is not distinct from ${whatsappId} and status <> 'closed'`,
        );
        if (active.length) {
          status = 'closed';
          reason('Tickets', 'another active ticket of the contact on the connection: imported closed', false);
        }
      }
      const uuid = /^[0-9a-f-]{36}$/i.test(str(t.uuid)) ? str(t.uuid) : null;
      const uuidFree =
        uuid && !(await rowsOf(tx, sql`select 1 from tickets where uuid = ${uuid}::uuid`)).length
          ? uuid
          : null;
      const ins = await rowsOf(
        tx,
        sql`insert into tickets (company_id, contact_id, whatsapp_id, queue_id, user_id, status, last_message, last_message_at,
            unread_messages, is_group, uuid, closed_at, created_at, updated_at)
          values (${companyId}, ${contactId}, ${whatsappId}, ${ref(queueMap, t.queueId)}, ${ref(userMap, t.userId)}, ${status},
            ${lastMessage}, ${updatedAt}, ${unread}, ${t.isGroup === true}, coalesce(${uuidFree}::uuid, gen_random_uuid()),
            ${status === 'closed' ? updatedAt : null}, ${date(t.createdAt) ?? new Date()}, ${updatedAt}) returning id`,
      );
      await remember(tx, 'Tickets', t.id, companyId, Number(ins[0]!.id));
      return 'imported';
    });
    const ticketMap = await loadMap('Tickets');
    const ticketWhatsapp = new Map(
      (await o.target.raw(`select id, whatsapp_id from tickets where company_id = $1`, [companyId])).rows.map(
        (r) => [Number(r.id), r.whatsapp_id === null ? null : Number(r.whatsapp_id)],
      ),
    );

    // ── Ticket tags (no id of their own: the pair is the key) ──────────────────────────────────────
    {
      const r = tableReport('TicketTags');
      const rows = (
        await client.query(
          `select tt."ticketId", tt."tagId" from "TicketTags" tt join "Tickets" t on t.id = tt."ticketId"
           where t."companyId" = $1 order by tt."ticketId", tt."tagId"`,
          [o.companyId],
        )
      ).rows as Row[];
      for (let i = 0; i < rows.length; i += batchSize)
        await db.transaction(async (tx) => {
          for (const tt of rows.slice(i, i + batchSize)) {
            r.read++;
            const ticketId = ref(ticketMap, tt.ticketId);
            const tagId = ref(tagMap, tt.tagId);
            if (!ticketId || !tagId) {
              reason('TicketTags', ticketId ? 'its tag was not imported' : 'its ticket was not imported');
              continue;
            }
            const ins = await rowsOf(
              tx,
              sql`insert into ticket_tags (ticket_id, tag_id) values (${ticketId}, ${tagId}) on conflict do nothing returning ticket_id`,
            );
            if (ins.length) r.imported++;
            else r.updated++;
          }
        });
      log(`TicketTags: ${r.imported} imported, ${r.updated} already there, ${r.skipped} skipped`);
    }

    // ── Messages (original times; media copied when the public folder is given) ────────────────────
    const mediaFile = (name: string): string | undefined => {
      if (!o.mediaDir || !name) return undefined;
      const file = basename(name.split('?')[0]!);
      for (const dir of [join(o.mediaDir, `company${o.companyId}`), o.mediaDir]) {
        const full = normalize(join(dir, file));
        if (full.startsWith(normalize(o.mediaDir) + sep) && existsSync(full)) return full;
      }
      return undefined;
    };
    {
      const r = tableReport('Messages');
      let last: string | null = null;
      for (;;) {
        const res = await client.query(
          `select * from "Messages" x where x."companyId" = $1 and ($2::text is null or x.id::text > $2::text)
           order by x.id::text limit ${batchSize}`,
          [o.companyId, last],
        );
        if (!res.rows.length) break;
        const rows = res.rows as Row[];
        const done = new Set(
          (
            await o.target.raw(
              `select source_id from whaticket_import_map m where source = $1 and source_table = 'Messages'
                 and source_id = any($2::text[]) and exists (select 1 from messages r where r.id = m.target_id)`,
              [source, rows.map((m) => str(m.id))],
            )
          ).rows.map((x) => String(x.source_id)),
        );
        // Files are copied before the batch's transaction (no file I/O while PGlite's one session is held).
        const copied = new Map<string, string>();
        for (const m of rows) {
          const type = str(m.mediaType);
          if (!m.mediaUrl || TEXT_TYPES.has(type) || done.has(str(m.id))) continue;
          const file = mediaFile(str(m.mediaUrl));
          if (file && store) copied.set(str(m.id), await store.save(companyId, readFileSync(file), file));
        }
        await db.transaction(async (tx) => {
          for (const m of rows) {
            r.read++;
            const ticketId = ref(ticketMap, m.ticketId);
            if (!ticketId) {
              reason('Messages', 'its ticket was not imported');
              continue;
            }
            const type = str(m.mediaType);
            const mediaType = TEXT_TYPES.has(type) ? null : type;
            const body = str(m.body);
            const ack = Math.max(0, Math.min(5, Number(m.ack ?? 0) || 0));
            const read = m.read === true;
            const isDeleted = m.isDeleted === true;
            const existing = done.has(str(m.id)) ? await mapped(tx, 'Messages', m.id) : undefined;
            if (existing) {
              await tx.execute(sql`update messages set body = ${body}, ack = ${ack}, read = ${read}, is_deleted = ${isDeleted}
                where id = ${existing} and company_id = ${companyId}`);
              r.updated++;
              continue;
            }
            let mediaUrl: string | null = null;
            let mediaName: string | null = null;
            if (mediaType && m.mediaUrl) {
              mediaName = basename(str(m.mediaUrl).split('?')[0]!);
              mediaUrl = copied.get(str(m.id)) ?? null;
              if (!mediaUrl)
                reason(
                  'Messages',
                  o.mediaDir
                    ? 'media file not found in the public folder: text kept'
                    : 'media not copied (no --media)',
                  false,
                );
            }
            const whatsappId = ticketWhatsapp.get(ticketId) ?? null;
            const providerId = str(m.wid ?? m.id);
            const createdAt = date(m.createdAt) ?? new Date();
            const ins = await rowsOf(
              tx,
              sql`insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, media_type, media_url,
                  media_name, from_me, ack, read, is_deleted, created_at, updated_at)
                values (${companyId}, ${ticketId}, ${ref(contactMap, m.contactId)}, ${whatsappId}, ${providerId}, ${body},
                  ${mediaType}, ${mediaUrl}, ${mediaName}, ${m.fromMe === true}, ${ack}, ${read}, ${isDeleted}, ${createdAt},
                  ${date(m.updatedAt) ?? createdAt})
                on conflict (whatsapp_id, provider_id) do nothing returning id`,
            );
            let id = ins[0] ? Number(ins[0].id) : undefined;
            if (!id) {
              const same = await rowsOf(
                tx,
                sql`select id from messages where whatsapp_id = ${whatsappId} and provider_id = ${providerId} and company_id = ${companyId}`,
              );
              if (!same[0]) {
                reason('Messages', 'its provider id belongs to another company: skipped');
                continue;
              }
              id = Number(same[0].id);
              reason('Messages', 'already in Recado (same connection and WhatsApp id): linked', false);
            }
            await remember(tx, 'Messages', m.id, companyId, id);
            r.imported++;
          }
        });
        last = str(rows[rows.length - 1]!.id);
        log(`  Messages: ${r.read} read`);
        if (rows.length < batchSize) break;
      }
      log(`Messages: ${r.imported} imported, ${r.updated} updated, ${r.skipped} skipped`);
    }

    // ── Quick messages ─────────────────────────────────────────────────────────────────────────────
    await eachBatch(
      'QuickMessages',
      `select * from "QuickMessages" x where x."companyId" = $1`,
      async (tx, q) => {
        const existing = await mapped(tx, 'QuickMessages', q.id);
        const shortcode = str(q.shortcode, `q${str(q.id)}`);
        const message = str(q.message);
        const geral = q.geral === true;
        if (q.mediaPath) reason('QuickMessages', 'attachment not imported: text kept', false);
        if (existing) {
          await tx.execute(sql`update quick_messages set shortcode = ${shortcode}, message = ${message}, geral = ${geral},
          updated_at = now() where id = ${existing} and company_id = ${companyId}`);
          return 'updated';
        }
        const ins = await rowsOf(
          tx,
          sql`insert into quick_messages (company_id, user_id, shortcode, message, geral, created_at, updated_at)
          values (${companyId}, ${ref(userMap, q.userId)}, ${shortcode}, ${message}, ${geral}, ${date(q.createdAt) ?? new Date()}, now())
          returning id`,
        );
        await remember(tx, 'QuickMessages', q.id, companyId, Number(ins[0]!.id));
        return 'imported';
      },
    );

    // ── Schedules (unsent ones are kept but never sent on their own: status ERRO, to reschedule) ───
    await eachBatch('Schedules', `select * from "Schedules" x where x."companyId" = $1`, async (tx, s) => {
      const existing = await mapped(tx, 'Schedules', s.id);
      const contactId = ref(contactMap, s.contactId);
      if (!contactId) {
        reason('Schedules', 'its contact was not imported');
        return 'skipped';
      }
      const sentAt = date(s.sentAt);
      const status = sentAt ? 'ENVIADA' : 'ERRO';
      const error = sentAt ? null : 'Imported from Whaticket unsent: edit it to schedule it again';
      if (existing) {
        await tx.execute(
          sql`update schedules set body = ${str(s.body)}, updated_at = now() where id = ${existing} and company_id = ${companyId}`,
        );
        return 'updated';
      }
      if (!sentAt)
        reason('Schedules', 'unsent: imported as ERRO, to reschedule (never sent on its own)', false);
      const ins = await rowsOf(
        tx,
        sql`insert into schedules (company_id, body, contact_id, ticket_id, user_id, send_at, sent_at, status, error, created_at, updated_at)
          values (${companyId}, ${str(s.body)}, ${contactId}, ${ref(ticketMap, s.ticketId)}, ${ref(userMap, s.userId)},
            ${date(s.sendAt) ?? new Date()}, ${sentAt}, ${status}, ${error}, ${date(s.createdAt) ?? new Date()}, now()) returning id`,
      );
      await remember(tx, 'Schedules', s.id, companyId, Number(ins[0]!.id));
      return 'imported';
    });

    // ── Contact lists and their items ──────────────────────────────────────────────────────────────
    await eachBatch(
      'ContactLists',
      `select * from "ContactLists" x where x."companyId" = $1`,
      async (tx, l) => {
        const existing = await mapped(tx, 'ContactLists', l.id);
        const name = str(l.name, `List ${str(l.id)}`);
        if (existing) {
          await tx.execute(
            sql`update contact_lists set name = ${name}, updated_at = now() where id = ${existing} and company_id = ${companyId}`,
          );
          return 'updated';
        }
        const ins = await rowsOf(
          tx,
          sql`insert into contact_lists (company_id, name, created_at, updated_at)
          values (${companyId}, ${name}, ${date(l.createdAt) ?? new Date()}, now()) returning id`,
        );
        await remember(tx, 'ContactLists', l.id, companyId, Number(ins[0]!.id));
        return 'imported';
      },
    );
    const listMap = await loadMap('ContactLists');
    await eachBatch(
      'ContactListItems',
      `select x.* from "ContactListItems" x join "ContactLists" l on l.id = x."contactListId" where l."companyId" = $1`,
      async (tx, i) => {
        const listId = ref(listMap, i.contactListId);
        if (!listId) {
          reason('ContactListItems', 'its list was not imported');
          return 'skipped';
        }
        const number = digits(i.number);
        if (!number) {
          reason('ContactListItems', 'no number');
          return 'skipped';
        }
        const existing = await mapped(tx, 'ContactListItems', i.id);
        const name = str(i.name) || number;
        const valid = typeof i.isWhatsappValid === 'boolean' ? i.isWhatsappValid : null;
        if (existing) {
          await tx.execute(sql`update contact_list_items set name = ${name}, email = ${str(i.email)}, updated_at = now()
            where id = ${existing} and company_id = ${companyId}`);
          return 'updated';
        }
        const ins = await rowsOf(
          tx,
          sql`insert into contact_list_items (company_id, contact_list_id, name, number, email, is_whatsapp_valid, created_at, updated_at)
            values (${companyId}, ${listId}, ${name}, ${number}, ${str(i.email)}, ${valid}, ${date(i.createdAt) ?? new Date()}, now())
            on conflict (contact_list_id, number) do update set name = excluded.name returning id`,
        );
        await remember(tx, 'ContactListItems', i.id, companyId, Number(ins[0]!.id));
        return 'imported';
      },
    );

    // ── Campaigns (drafts, or finished/cancelled as they were: never sent again) ───────────────────
    await eachBatch('Campaigns', `select * from "Campaigns" x where x."companyId" = $1`, async (tx, c) => {
      const existing = await mapped(tx, 'Campaigns', c.id);
      const was = str(c.status);
      const status = was === 'FINALIZADA' || was === 'CANCELADA' ? was : 'INATIVA';
      if (existing) return 'updated'; // Recado's own edits since the first run win; nothing to refresh.
      if (status !== was)
        reason('Campaigns', `status ${was || '(none)'} imported as a draft (INATIVA)`, false);
      if (c.mediaPath) reason('Campaigns', 'attachment not imported: text kept', false);
      const m = (k: string) => str(c[k]);
      const ins = await rowsOf(
        tx,
        sql`insert into campaigns (company_id, name, message1, message2, message3, message4, message5, confirmation,
            confirmation_message1, confirmation_message2, confirmation_message3, confirmation_message4, confirmation_message5,
            status, scheduled_at, completed_at, whatsapp_id, contact_list_id, tag_id, created_at, updated_at)
          values (${companyId}, ${str(c.name, `Campaign ${str(c.id)}`)}, ${m('message1')}, ${m('message2')}, ${m('message3')},
            ${m('message4')}, ${m('message5')}, ${c.confirmation === true}, ${m('confirmationMessage1')}, ${m('confirmationMessage2')},
            ${m('confirmationMessage3')}, ${m('confirmationMessage4')}, ${m('confirmationMessage5')}, ${status},
            ${date(c.scheduledAt)}, ${date(c.completedAt)}, ${ref(whatsappMap, c.whatsappId)}, ${ref(listMap, c.contactListId)},
            ${ref(tagMap, c.tagId)}, ${date(c.createdAt) ?? new Date()}, now()) returning id`,
      );
      await remember(tx, 'Campaigns', c.id, companyId, Number(ins[0]!.id));
      return 'imported';
    });

    // ── Settings (those with a Recado equivalent of the same name) ─────────────────────────────────
    {
      const known = new Set<string>(SETTING_KEYS);
      const r = tableReport('Settings');
      const rows = (
        await client.query(`select * from "Settings" x where x."companyId" = $1 order by x.key`, [
          o.companyId,
        ])
      ).rows as Row[];
      await db.transaction(async (tx) => {
        for (const s of rows) {
          r.read++;
          const key = str(s.key);
          if (!known.has(key)) {
            reason('Settings', `no Recado setting "${key}"`);
            continue;
          }
          const ins = await rowsOf(
            tx,
            sql`insert into settings (company_id, key, value) values (${companyId}, ${key}, ${str(s.value)})
              on conflict (company_id, key) do update set value = excluded.value, updated_at = now()
              returning (xmax = 0) as inserted`,
          );
          if (ins[0]?.inserted) r.imported++;
          else r.updated++;
        }
      });
    }

    report.ok = true;
    return report;
  } catch (err) {
    report.error = err instanceof Error ? err.message : String(err);
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}
