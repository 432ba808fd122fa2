import { and, eq, sql, type SQL } from 'drizzle-orm';
import {
  DEFAULT_OPT_OUT_WORD,
  RETENTION_BATCH,
  isOptedOut,
  type ConsentStatus,
  type ContactConsent,
  type ContactEraseResult,
  type PrivacySettings,
  type PrivacySettingsInput,
  type RetentionPreview,
  type RetentionRunResult,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { tickets } from '../../db/schema/index.js';
import { privacySettings } from '../../db/schema/privacy.js';
import type { DomainBus } from '../../events/domain-events.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, noPayload } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { MessageService } from '../messages/message-service.js';
import { zipStream, type ZipEntry } from './zip-writer.js';
import { consentReplyBlock } from './consent-gate.js';

/** A text[] literal of values (bound one by one). */
const pgArray = (values: string[]) =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

const DAY = 24 * 60 * 60 * 1000;
/** How long the inbound listener keeps a company's privacy settings. */
const SETTINGS_TTL_MS = 5000;
/** Tickets anonymised per transaction (their messages go in the same one). */
const TICKET_BATCH = 50;
/** Rows of an export's message list read per query. */
const EXPORT_PAGE = 1000;
/** What an erased contact is called from then on (no personal data: a mark, the same in every language). */
export const ERASED_NAME = '—';

const DEFAULT_CONSENT_TEXT =
  'Para continuar o atendimento, precisamos do seu consentimento para tratar seus dados conforme a LGPD. ' +
  'Responda SIM para aceitar ou NÃO para recusar. Envie SAIR a qualquer momento para não receber mais mensagens.';

// Words only: a digit is the queue menu's answer (sent beside the question), never a consent.
const YES = new Set(['sim', 's', 'yes', 'y', 'si', 'aceito', 'concordo', 'ok', 'acepto']);
const NO = new Set(['nao', 'n', 'no', 'recuso', 'nego']);

/** Lower case, accents off, trimmed, trailing punctuation off: how a one-word answer is compared. */
export const answerOf = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/[.!?\s]+$/g, '');

/** #35.2 A customer's yes/no to the consent question, or null for anything else (the bot and the flow node). */
export function consentAnswerOf(body: string): 'granted' | 'refused' | null {
  const answer = answerOf(body ?? '');
  if (YES.has(answer)) return 'granted';
  if (NO.has(answer)) return 'refused';
  return null;
}

/** Keeps a contact's consent and its time (one company's contact only). */
export async function recordConsent(
  db: Db | Tx,
  at: Date,
  companyId: number,
  contactId: number,
  status: ConsentStatus,
) {
  await (db as Db).execute(sql`update contacts set consent_status = ${status},
    consent_at = ${at.toISOString()}::timestamptz
    where id = ${contactId} and company_id = ${companyId}`);
}

/** The question the company asks: its consent text, or the default. */
export async function consentQuestionOf(db: Db, companyId: number) {
  const [row] = await db
    .select({ text: privacySettings.consentText })
    .from(privacySettings)
    .where(eq(privacySettings.companyId, companyId));
  return row?.text.trim() || DEFAULT_CONSENT_TEXT;
}

/**
 * #35.2 Whether the connection's flow for new conversations (published) asks consent with its own node: the
 * bot's automatic question is then left to the flow, never asked twice.
 */
async function flowAsksConsent(db: Db, companyId: number, whatsappId: number | null | undefined) {
  if (!whatsappId) return false;
  const found = await executeRows<{ one: number }>(
    db,
    sql`select 1 as one from whatsapps w
        join flows f on f.id = w.flow_id and f.company_id = w.company_id
        join flow_versions v on v.flow_id = f.id and v.version = f.published_version
        where w.id = ${whatsappId} and w.company_id = ${companyId}
          and jsonb_path_exists(v.graph::jsonb, '$.nodes[*] ? (@.type == "consent")')`,
  );
  return found.length > 0;
}

const affected = (r: unknown) =>
  (r as { rowCount?: number; affectedRows?: number }).rowCount ??
  (r as { affectedRows?: number }).affectedRows ??
  0;

type Settings = PrivacySettings;
const DEFAULTS: Settings = {
  consentRequired: false,
  consentText: '',
  optOutWord: DEFAULT_OPT_OUT_WORD,
  mediaRetentionDays: null,
  ticketRetentionMonths: null,
};

interface ContactRow {
  id: number;
  name: string;
  number: string;
  lid: string | null;
  email: string;
  profile_pic_url: string;
  custom_fields: unknown;
  consent_status: ConsentStatus | null;
  consent_at: string | Date | null;
  erased_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface PrivacyDeps {
  db: Db;
  media: MediaStore;
  clock: Clock;
  messages: Pick<MessageService, 'deliver'>;
  log: { warn(obj: unknown, msg?: string): void; info?(obj: unknown, msg?: string): void };
}

export function privacyService(deps: PrivacyDeps) {
  const { db, media, clock } = deps;
  const rows = <T>(q: SQL, on: Db | Tx = db) => executeRows<T>(on as Db, q);

  /** Columns of the tables that exist here (some arrive with other migrations): table → columns. */
  let columnsCache: Map<string, Set<string>> | undefined;
  async function columns() {
    if (columnsCache) return columnsCache;
    const found = await rows<{ table_name: string; column_name: string }>(
      sql`select table_name, column_name from information_schema.columns where table_schema = current_schema()`,
    );
    const map = new Map<string, Set<string>>();
    for (const r of found) {
      if (!map.has(r.table_name)) map.set(r.table_name, new Set());
      map.get(r.table_name)!.add(r.column_name);
    }
    return (columnsCache = map);
  }

  async function settings(companyId: number): Promise<Settings> {
    const [row] = await db.select().from(privacySettings).where(eq(privacySettings.companyId, companyId));
    if (!row) return { ...DEFAULTS };
    return {
      consentRequired: row.consentRequired,
      consentText: row.consentText,
      optOutWord: row.optOutWord,
      mediaRetentionDays: row.mediaRetentionDays,
      ticketRetentionMonths: row.ticketRetentionMonths,
    };
  }

  /**
   * The settings as the inbound listener reads them: kept SETTINGS_TTL_MS per company (a change made in this
   * process applies at once; one made in another process within that time).
   */
  const settingsCache = new Map<number, { at: number; value: Promise<Settings> }>();
  function cachedSettings(companyId: number): Promise<Settings> {
    const hit = settingsCache.get(companyId);
    if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.value;
    const value = settings(companyId);
    value.catch(() => settingsCache.delete(companyId));
    settingsCache.set(companyId, { at: Date.now(), value });
    return value;
  }

  async function contactOf(companyId: number, id: number, on: Db | Tx = db, lock = false) {
    const [c] = await rows<ContactRow>(
      sql`select id, name, number, lid, email, profile_pic_url, custom_fields, consent_status, consent_at,
            erased_at, created_at, updated_at
          from contacts where id = ${id} and company_id = ${companyId} ${lock ? sql`for update` : sql``}`,
      on,
    );
    if (!c) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
    return c;
  }

  const setConsent = (companyId: number, contactId: number, status: ConsentStatus) =>
    recordConsent(db, clock.now(), companyId, contactId, status);

  // ---------------------------------------------------------------- consent

  /**
   * A stored customer message: the opt-out word marks the contact opted out (always, consent required or
   * not); with consent required, a new conversation of a contact never asked gets the question, and the
   * next answer of one asked is kept with its time.
   */
  async function onStored(p: {
    ticket: { id: number; contactId?: number; contact?: { id: number } | null; isGroup?: boolean };
    message: { fromMe: boolean; body: string; companyId: number };
    ticketCreated?: boolean;
  }) {
    const { ticket, message } = p;
    if (message.fromMe || ticket.isGroup) return;
    const companyId = message.companyId;
    const contactId = ticket.contact?.id ?? ticket.contactId;
    if (!contactId) return;
    const s = await cachedSettings(companyId);
    const answer = answerOf(message.body ?? '');
    if (answer && answer === answerOf(s.optOutWord || DEFAULT_OPT_OUT_WORD)) {
      await db.execute(sql`update contacts set consent_status = 'opted_out',
        consent_at = ${clock.now().toISOString()}::timestamptz
        where id = ${contactId} and company_id = ${companyId} and consent_status is distinct from 'opted_out'`);
      return;
    }
    // Most companies ask nothing: no statement for their messages beyond the cached settings.
    if (!s.consentRequired) return;
    const [c] = await rows<{ consent_status: ConsentStatus | null }>(
      sql`select consent_status from contacts where id = ${contactId} and company_id = ${companyId}`,
    );
    if (!c) return;
    // #35.2 One who refused may change their mind: a later yes grants (a no stays a no).
    const said = consentAnswerOf(message.body ?? '');
    if (c.consent_status === 'refused') {
      if (said === 'granted') await setConsent(companyId, contactId, 'granted');
      return;
    }
    if (c.consent_status === 'asked') {
      if (said) await setConsent(companyId, contactId, said);
      return;
    }
    if (c.consent_status === null && p.ticketCreated) {
      // #35.2 A connection whose new-conversation flow has a consent node: the flow asks, not the bot.
      const [own] = await db
        .select({ whatsappId: tickets.whatsappId })
        .from(tickets)
        .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, companyId)));
      if (await flowAsksConsent(db, companyId, own?.whatsappId)) return;
      // Claimed first (null → asked): a redelivered or concurrent first message never asks twice.
      const claimed = await rows<{ id: number }>(
        sql`update contacts set consent_status = 'asked', consent_at = ${clock.now().toISOString()}::timestamptz
            where id = ${contactId} and company_id = ${companyId} and consent_status is null returning id`,
      );
      if (!claimed.length) return;
      const [row] = await db.select().from(tickets).where(eq(tickets.id, ticket.id));
      if (!row) return;
      try {
        await deps.messages.deliver(companyId, row, {
          body: s.consentText.trim() || DEFAULT_CONSENT_TEXT,
          userId: null,
        });
      } catch (err) {
        deps.log.warn({ err, ticketId: ticket.id }, 'consent question not sent');
      }
    }
  }

  async function consent(t: Tenant, contactId: number): Promise<ContactConsent> {
    const c = await contactOf(t.companyId, contactId);
    return {
      contactId: c.id,
      status: c.consent_status,
      at: c.consent_at ? new Date(c.consent_at).toISOString() : null,
      optedOut: isOptedOut(c.consent_status),
      erased: !!c.erased_at,
      replyBlocked: await consentReplyBlock(db, t.companyId, c.id),
    };
  }

  async function optedOut(t: Tenant) {
    const found = await rows<{ id: number }>(
      sql`select id from contacts where company_id = ${t.companyId} and consent_status in ('refused', 'opted_out')
          order by id limit 50000`,
    );
    return { ids: found.map((r) => Number(r.id)) };
  }

  // ---------------------------------------------------------------- export

  /** Everything stored about one contact, as a ZIP (JSON documents, then the media files), streamed. */
  async function exportContact(t: Tenant, contactId: number) {
    const c = await contactOf(t.companyId, contactId);
    const company = t.companyId;
    const json = (v: unknown) => Buffer.from(JSON.stringify(v, null, 2), 'utf8');
    const ticketRows = await rows<Record<string, unknown> & { id: number }>(
      sql`select id, uuid, protocol, status, whatsapp_id, queue_id, user_id, last_message, last_message_at,
            created_at, updated_at, closed_at, accepted_at, first_response_at, custom_fields, priority
          from tickets where contact_id = ${c.id} and company_id = ${company} order by id`,
    );
    const ticketIds = ticketRows.map((r) => Number(r.id));
    const idList = ticketIds.length
      ? sql.join(
          ticketIds.map((i) => sql`${i}`),
          sql`, `,
        )
      : sql`null`;
    const [identities, customFields, notes, ratings, timeline, schedules] = await Promise.all([
      rows(
        sql`select number, lid, created_at from contacts where id = ${c.id} union all
            select null, null, null where false`,
      ),
      rows(sql`select name, value from contact_custom_fields where contact_id = ${c.id} order by id`),
      rows(
        sql`select id, ticket_id, user_id, note, created_at from ticket_notes
            where company_id = ${company} and (ticket_id in (${idList}) or contact_id = ${c.id}) order by id`,
      ),
      rows(
        sql`select id, ticket_id, user_id, rate, created_at from user_ratings
            where ticket_id in (${idList}) order by id`,
      ),
      rows(
        sql`select id, ticket_id, type, actor_kind, actor_id, data, created_at from ticket_events
            where company_id = ${company} and ticket_id in (${idList}) order by id`,
      ),
      rows(
        sql`select id, body, send_at, sent_at, status, media_name, created_at from schedules
            where company_id = ${company} and contact_id = ${c.id} order by id`,
      ).catch(() => []),
    ]);
    const lidMaps = (await columns()).has('lid_mappings')
      ? await rows(
          sql`select lid, number, created_at from lid_mappings where company_id = ${company}
              and ((${c.number} <> '' and number = ${c.number}) or (${c.lid ?? ''} <> '' and lid = ${c.lid ?? ''}))`,
        )
      : [];

    const mediaFiles: { name: string; path: string }[] = [];
    async function* messagesJson(): AsyncGenerator<ZipEntry> {
      // Messages a page at a time, one JSON document per page: a long history never sits in memory at once.
      let after = 0;
      let page = 1;
      for (;;) {
        const list = await rows<Record<string, unknown> & { id: number | string; media_url: string | null }>(
          sql`select id, ticket_id, from_me, body, media_type, media_url, media_name, ack, is_deleted, is_edited,
                quoted_msg_id, user_id, data, created_at from messages
              where company_id = ${company} and (ticket_id in (${idList}) or contact_id = ${c.id}) and id > ${after}
              order by id limit ${EXPORT_PAGE}`,
        );
        if (!list.length) return;
        for (const m of list) {
          if (m.media_url && media.belongsTo(m.media_url, company)) {
            const name = `media/${m.id}-${String(m.media_name ?? m.media_url.split('/').pop()).replace(/[/\\]/g, '_')}`;
            mediaFiles.push({ name, path: m.media_url });
            m.file = name;
          }
          delete (m as Record<string, unknown>).media_url;
        }
        yield { name: `messages/${String(page).padStart(4, '0')}.json`, data: json(list) };
        after = Number(list[list.length - 1]!.id);
        page++;
        if (list.length < EXPORT_PAGE) return;
      }
    }

    const contactDoc = {
      id: c.id,
      name: c.name,
      number: c.number,
      lid: c.lid,
      email: c.email,
      profilePicUrl: c.profile_pic_url,
      customFields: c.custom_fields,
      consent: { status: c.consent_status, at: c.consent_at },
      createdAt: c.created_at,
      updatedAt: c.updated_at,
    };
    async function* entries(): AsyncGenerator<ZipEntry> {
      yield {
        name: 'README.txt',
        data: Buffer.from(
          `Recado: everything stored about contact ${c.id}, exported ${clock.now().toISOString()}.\n` +
            'contact.json, identities.json, custom-fields.json, tickets.json, messages/*.json (each message ' +
            'with "file" naming its media in media/), notes.json, ratings.json, timeline.json, schedules.json.\n',
        ),
      };
      yield { name: 'contact.json', data: json(contactDoc) };
      yield { name: 'identities.json', data: json({ numbers: identities, lidMappings: lidMaps }) };
      yield { name: 'custom-fields.json', data: json({ values: c.custom_fields, extraInfo: customFields }) };
      yield { name: 'tickets.json', data: json(ticketRows) };
      yield* messagesJson();
      yield { name: 'notes.json', data: json(notes) };
      yield { name: 'ratings.json', data: json(ratings) };
      yield { name: 'timeline.json', data: json(timeline) };
      yield { name: 'schedules.json', data: json(schedules) };
      for (const f of mediaFiles) yield { name: f.name, data: () => media.read(f.path).catch(() => null) };
    }
    return { filename: `contact-${c.id}.zip`, stream: zipStream(entries(), clock.now()) };
  }

  // ---------------------------------------------------------------- erase

  /**
   * Patterns (LIKE) that find the contact in free text and JSON: its number, hidden id and e-mail, its
   * tickets' uuids, and `"contactId":<id>` as JSON writes it.
   */
  function needlesOf(c: ContactRow, ticketUuids: string[]) {
    const esc = (s: string) => s.replace(/[\\%_]/g, (x) => `\\${x}`);
    const out = new Set<string>();
    if (c.number.length >= 6) out.add(`%${esc(c.number)}%`);
    if (c.lid && c.lid.length >= 6) out.add(`%${esc(c.lid.split('@')[0]!)}%`);
    if (c.email.includes('@')) out.add(`%${esc(c.email)}%`);
    for (const u of ticketUuids) out.add(`%${u}%`);
    out.add(`%"contactId":${c.id},%`);
    out.add(`%"contactId":${c.id}}%`);
    return [...out];
  }

  /**
   * Log-like tables where the contact may appear inside text or JSON (deliveries, outbox, jobs, channel inboxes):
   * rows that match a needle are emptied or deleted. Tables and columns are looked up first: some arrive with
   * other migrations.
   */
  async function scrubLogs(tx: Tx, companyId: number, patterns: string[]) {
    if (!patterns.length) return;
    const cols = await columns();
    const any = sql`any(${pgArray(patterns)})`;
    const scoped = (table: string) =>
      cols.get(table)?.has('company_id') ? sql`company_id = ${companyId} and` : sql``;
    const plan: { table: string; column: string; action: SQL }[] = [
      {
        table: 'webhook_deliveries',
        column: 'body',
        action: sql`update webhook_deliveries set body = '{"erased":true}'`,
      },
      { table: 'event_outbox', column: 'payload', action: sql`delete from event_outbox` },
      { table: 'jobs', column: 'payload', action: sql`delete from jobs` },
      { table: 'outbound_queue', column: 'job', action: sql`delete from outbound_queue` },
      { table: 'api_send_keys', column: 'answer', action: sql`update api_send_keys set answer = null` },
      { table: 'baileys_inbox', column: 'payload', action: sql`delete from baileys_inbox` },
      {
        table: 'ticket_histories',
        column: 'data',
        action: sql`update ticket_histories set data = '{}'::jsonb`,
      },
      {
        table: 'ticket_automations',
        column: 'data',
        action: sql`update ticket_automations set data = '{}'::jsonb`,
      },
      {
        table: 'automation_incidents',
        column: 'last_error',
        action: sql`update automation_incidents set last_error = ''`,
      },
      { table: 'inbound_failures', column: 'sender', action: sql`delete from inbound_failures` },
      { table: 'inbound_failures', column: 'preview', action: sql`delete from inbound_failures` },
    ];
    for (const p of plan) {
      if (!cols.get(p.table)?.has(p.column)) continue;
      const guard = p.table === 'jobs' ? sql` and status <> 'running'` : sql``;
      await tx.execute(
        sql`${p.action} where ${scoped(p.table)} ${sql.raw(`"${p.column}"`)}::text like ${any}${guard}`,
      );
    }
  }

  async function erase(t: Tenant, contactId: number): Promise<ContactEraseResult> {
    const companyId = t.companyId;
    const now = clock.now().toISOString();
    const cols = await columns();
    const files: string[] = [];
    const result = await db.transaction(async (tx) => {
      const c = await contactOf(companyId, contactId, tx, true);
      const ts = await rows<{ id: number; uuid: string }>(
        sql`select id, uuid from tickets where contact_id = ${c.id} and company_id = ${companyId} for update`,
        tx,
      );
      const ids = ts.map((r) => Number(r.id));
      const idList = ids.length
        ? sql.join(
            ids.map((i) => sql`${i}`),
            sql`, `,
          )
        : sql`null`;
      const patterns = needlesOf(
        c,
        ts.map((r) => r.uuid),
      );
      const ofContact = sql`ticket_id in (${idList}) or contact_id = ${c.id}`;

      // Media paths first (the update below clears them), then every message of the contact emptied.
      const paths = await rows<{ media_url: string }>(
        sql`select media_url from messages where company_id = ${companyId} and (${ofContact}) and media_url is not null`,
        tx,
      );
      files.push(...paths.map((p) => p.media_url));
      // Sends still waiting in the outbound queue would go out empty: they go.
      await tx.execute(
        sql`delete from outbound_queue where company_id = ${companyId} and message_id in (
              select id from messages where company_id = ${companyId} and (${ofContact}))`,
      );
      const msgs = await tx.execute(
        sql`update messages set body = '', media_url = null, media_name = null, data = null, participant = null
            where company_id = ${companyId} and (${ofContact})`,
      );
      // Quoted texts live in the quoting message's data (emptied above when it is the contact's); other
      // tickets quoting these messages keep only the id.
      await tx.execute(
        sql`update tickets set last_message = '', custom_fields = '{}'::jsonb, automation = null,
              anonymized_at = ${now}::timestamptz
            where company_id = ${companyId} and id in (${idList})`,
      );
      await tx.execute(sql`delete from ticket_notes where company_id = ${companyId} and (${ofContact})`);
      await tx.execute(
        sql`update ticket_events set data = '{}'::jsonb where company_id = ${companyId} and ticket_id in (${idList})`,
      );
      await tx.execute(
        sql`update ticket_histories set data = '{}'::jsonb where ticket_id in (${idList}) and data is not null`,
      );
      await tx.execute(
        sql`update flow_runs set variables = '{}'::jsonb, node_state = '{}'::jsonb
            where company_id = ${companyId} and ticket_id in (${idList})`,
      );
      await tx
        .execute(
          sql`update ticket_source_tracking set metadata = null where company_id = ${companyId} and ticket_id in (${idList})`,
        )
        .catch(() => undefined);
      // Schedules to the contact: their files, then the rows (nothing must reach an erased person).
      const sched = await rows<{ media_path: string | null }>(
        sql`delete from schedules where company_id = ${companyId} and contact_id = ${c.id} returning media_path`,
        tx,
      );
      files.push(...sched.flatMap((s) => (s.media_path ? [s.media_path] : [])));
      await tx.execute(sql`delete from contact_custom_fields where contact_id = ${c.id}`);
      if (c.number) {
        // Campaign recipients keep their status (the campaign's figures) without who they were.
        await tx.execute(
          sql`update campaign_shippings set number = 'erased-' || id, name = '', email = '', message = '',
                confirmation_message = '', error = null
              where company_id = ${companyId} and (contact_id = ${c.id} or number = ${c.number})`,
        );
        await tx.execute(
          sql`delete from contact_list_items where company_id = ${companyId} and number = ${c.number}`,
        );
        // The simulator's phone: this customer's conversation and its files.
        const sim = await rows<{ path: string | null }>(
          sql`delete from simulator_messages where number = ${c.number}
                and whatsapp_id in (select id from whatsapps where company_id = ${companyId})
              returning media->>'path' as path`,
          tx,
        );
        files.push(...sim.flatMap((s) => (s.path ? [s.path] : [])));
      } else {
        await tx.execute(
          sql`update campaign_shippings set number = 'erased-' || id, name = '', email = '', message = '',
                confirmation_message = '', error = null
              where company_id = ${companyId} and contact_id = ${c.id}`,
        );
      }
      if (cols.has('lid_mappings')) {
        await tx.execute(
          sql`delete from lid_mappings where company_id = ${companyId}
                and ((${c.number} <> '' and number = ${c.number}) or (${c.lid ?? ''} <> '' and lid = ${c.lid ?? ''}))`,
        );
      }
      await scrubLogs(tx, companyId, patterns);
      // Audit entries whose details held the person (an admin's list item, a merge): details redacted under
      // the trigger's one exception (migration 0057); who, what, when and the target stay.
      const auditPatterns = [...patterns, `%"name": "${c.name.replace(/[\\%_]/g, (x) => `\\${x}`)}"%`];
      await tx.execute(sql`select set_config('recado.audit_redact', 'on', true)`);
      await tx.execute(
        sql`update audit_log set before = '{"redacted":"erased"}'::jsonb, after = '{"redacted":"erased"}'::jsonb
            where company_id = ${companyId} and (
              (target_type = 'contact' and target_id = ${String(c.id)})
              or before::text like any(${pgArray(auditPatterns)}) or after::text like any(${pgArray(auditPatterns)}))`,
      );
      await tx.execute(sql`select set_config('recado.audit_redact', 'off', true)`);
      await tx.execute(
        sql`update contacts set name = ${ERASED_NAME}, number = '', lid = null, email = '', profile_pic_url = '',
              profile_pic_fetched_at = null, custom_fields = '{}'::jsonb, owner_id = null,
              consent_status = null, consent_at = null, erased_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
            where id = ${c.id} and company_id = ${companyId}`,
      );
      return { id: c.id, messages: affected(msgs), tickets: ids.length };
    });
    // Files go once the database no longer names them (a crash in between leaves an orphan file, never a
    // row pointing at nothing).
    const own = [...new Set(files)].filter((f) => media.belongsTo(f, companyId));
    for (const f of own) await media.remove(f);
    return { ...result, mediaFiles: own.length };
  }

  // ---------------------------------------------------------------- retention

  function cutoffs(s: Settings, now: Date) {
    const mediaBefore = s.mediaRetentionDays ? new Date(now.getTime() - s.mediaRetentionDays * DAY) : null;
    let ticketsClosedBefore: Date | null = null;
    if (s.ticketRetentionMonths) {
      ticketsClosedBefore = new Date(now);
      ticketsClosedBefore.setUTCMonth(ticketsClosedBefore.getUTCMonth() - s.ticketRetentionMonths);
    }
    return { mediaBefore, ticketsClosedBefore };
  }

  const mediaDue = (companyId: number, before: Date) =>
    sql`company_id = ${companyId} and media_url is not null and created_at < ${before.toISOString()}::timestamptz`;
  const ticketsDue = (companyId: number, before: Date) =>
    sql`company_id = ${companyId} and status = 'closed' and closed_at is not null and anonymized_at is null
        and closed_at < ${before.toISOString()}::timestamptz`;

  async function preview(companyId: number, now = clock.now()): Promise<RetentionPreview> {
    const s = await settings(companyId);
    const { mediaBefore, ticketsClosedBefore } = cutoffs(s, now);
    let mediaCount = 0;
    let ticketCount = 0;
    let ticketMessages = 0;
    if (mediaBefore) {
      const [r] = await rows<{ n: number }>(
        sql`select count(*)::int as n from messages where ${mediaDue(companyId, mediaBefore)}`,
      );
      mediaCount = Number(r?.n ?? 0);
    }
    if (ticketsClosedBefore) {
      const [r] = await rows<{ n: number; m: number }>(
        sql`select count(*)::int as n, coalesce(sum((select count(*) from messages m where m.ticket_id = t.id)), 0)::int as m
            from tickets t where ${ticketsDue(companyId, ticketsClosedBefore)}`,
      );
      ticketCount = Number(r?.n ?? 0);
      ticketMessages = Number(r?.m ?? 0);
    }
    return {
      media: mediaCount,
      tickets: ticketCount,
      ticketMessages,
      mediaBefore: mediaBefore?.toISOString() ?? null,
      ticketsClosedBefore: ticketsClosedBefore?.toISOString() ?? null,
    };
  }

  /**
   * One company's retention at `now`: media past their days, then closed tickets past their months, in
   * transactions of at most RETENTION_BATCH rows that lock only the rows they take (SKIP LOCKED: a row busy
   * elsewhere waits for the next run). Files are deleted after each batch commits.
   */
  async function runRetention(companyId: number, now = clock.now()): Promise<RetentionRunResult> {
    const s = await settings(companyId);
    const { mediaBefore, ticketsClosedBefore } = cutoffs(s, now);
    const out = { media: 0, tickets: 0, ticketMessages: 0 };
    if (mediaBefore) {
      for (;;) {
        const batch = await db.transaction(async (tx) =>
          rows<{ id: number; path: string }>(
            sql`with due as (select id, media_url from messages where ${mediaDue(companyId, mediaBefore)}
                  order by created_at, id limit ${RETENTION_BATCH} for update skip locked)
                update messages m set media_url = null, media_name = null,
                  data = coalesce(m.data, '{}'::jsonb) || '{"mediaExpired":true}'::jsonb
                from due where m.id = due.id returning m.id, due.media_url as path`,
            tx,
          ),
        );
        for (const b of batch) if (media.belongsTo(b.path, companyId)) await media.remove(b.path);
        out.media += batch.length;
        if (batch.length < RETENTION_BATCH) break;
      }
    }
    if (ticketsClosedBefore) {
      const stamp = now.toISOString();
      for (;;) {
        const {
          taken,
          messages: n,
          files,
        } = await db.transaction(async (tx) => {
          const due = await rows<{ id: number }>(
            sql`select id from tickets where ${ticketsDue(companyId, ticketsClosedBefore)}
                order by closed_at, id limit ${TICKET_BATCH} for update skip locked`,
            tx,
          );
          if (!due.length) return { taken: 0, messages: 0, files: [] as string[] };
          const idList = sql.join(
            due.map((d) => sql`${Number(d.id)}`),
            sql`, `,
          );
          const paths = await rows<{ media_url: string }>(
            sql`select media_url from messages where ticket_id in (${idList}) and media_url is not null`,
            tx,
          );
          const msgs = await tx.execute(
            sql`update messages set body = '', media_url = null, media_name = null, data = null, participant = null
                where company_id = ${companyId} and ticket_id in (${idList})`,
          );
          await tx.execute(
            sql`delete from ticket_notes where company_id = ${companyId} and ticket_id in (${idList})`,
          );
          await tx.execute(
            sql`update ticket_events set data = '{}'::jsonb where company_id = ${companyId} and ticket_id in (${idList})`,
          );
          await tx.execute(
            sql`update flow_runs set variables = '{}'::jsonb, node_state = '{}'::jsonb
                where company_id = ${companyId} and ticket_id in (${idList})`,
          );
          await tx.execute(
            sql`update tickets set last_message = '', custom_fields = '{}'::jsonb, anonymized_at = ${stamp}::timestamptz
                where id in (${idList})`,
          );
          return { taken: due.length, messages: affected(msgs), files: paths.map((p) => p.media_url) };
        });
        for (const f of files) if (media.belongsTo(f, companyId)) await media.remove(f);
        out.tickets += taken;
        out.ticketMessages += n;
        if (taken < TICKET_BATCH) break;
      }
    }
    return out;
  }

  const retentionJob = defineJob({
    kind: 'privacy.retention',
    payload: noPayload,
    options: { every: DAY / 4 },
    handler: async () => {
      const companies = await rows<{ company_id: number }>(
        sql`select company_id from privacy_settings
            where media_retention_days is not null or ticket_retention_months is not null order by company_id`,
      );
      for (const c of companies) {
        try {
          await runRetention(Number(c.company_id));
        } catch (err) {
          deps.log.warn({ err, companyId: c.company_id }, 'retention run failed');
        }
      }
    },
  });

  return {
    jobs: { retention: retentionJob },
    settings: (t: Tenant) => settings(t.companyId),
    settingsOf: settings,
    async updateSettings(t: Tenant, input: PrivacySettingsInput): Promise<Settings> {
      const next = { ...(await settings(t.companyId)), ...input };
      await db
        .insert(privacySettings)
        .values({ companyId: t.companyId, ...next, updatedAt: clock.now() })
        .onConflictDoUpdate({ target: privacySettings.companyId, set: { ...next, updatedAt: clock.now() } });
      settingsCache.delete(t.companyId);
      return settings(t.companyId);
    },
    onStored,
    consent,
    optedOut,
    exportContact,
    erase,
    preview: (t: Tenant) => preview(t.companyId),
    previewOf: preview,
    runRetention: (t: Tenant) => runRetention(t.companyId),
    runRetentionOf: runRetention,
  };
}

export type PrivacyService = ReturnType<typeof privacyService>;
export const privacyListeners = (
  bus: DomainBus,
  privacy: Pick<PrivacyService, 'onStored'>,
  log: PrivacyDeps['log'],
) =>
  bus.on(
    'message.stored',
    async (p) => {
      const { ticket, message, ticketCreated } = p;
      // #33.3 A recovered message (`quiet`) is not a new conversation.
      if ((p as { quiet?: boolean }).quiet) return;
      try {
        await privacy.onStored({
          ticket: ticket as unknown as {
            id: number;
            contactId?: number;
            contact?: { id: number };
            isGroup?: boolean;
          },
          message: message as unknown as { fromMe: boolean; body: string; companyId: number },
          ticketCreated,
        });
      } catch (err) {
        log.warn({ err }, 'consent not handled');
      }
    },
    'privacy',
  );
