import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { rooms, type TicketView } from '@recado/contracts';
import type { Db } from '../db/client.js';
import { contacts, inboundFailures, messages, tickets, whatsapps } from '../db/schema/index.js';
import { connectionOutages } from '../db/schema/connection-recovery.js';
import { executePrepared, executeRows, rowOf } from '../db/rows.js';
import { toMessageView, type MessageRow } from '../modules/messages/message-queries.js';
import {
  tagsFor,
  ticketQueries,
  toTicketView,
  trackingFor,
  type ViewRow,
} from '../modules/tickets/ticket-queries.js';
import type { DomainBus, DomainEvents } from '../events/domain-events.js';
import type { OutboxBus } from '../events/outbox.js';
import type { Events } from '../realtime/events.js';
import { ticketEventRooms } from '../realtime/room-policy.js';
import { readSetting } from '../modules/settings/setting-service.js';
import type { AckUpdate, InboundMessage } from './channel.js';
import type { AckClaim } from './inbound-events.js';
import type { MediaStore } from './media-store.js';
import type { ConnectionRef } from './session-manager.js';
import { cleanDeep, cleanText, truncate } from '../lib/text.js';
import { groupCommit } from '../lib/group-commit.js';
import { contactForIdentity } from '../modules/contacts/contact-identities.js';

class Duplicate extends Error {}

/** Batch statements on their way at once for all connections, and the messages one may carry. */
const BATCH_IN_FLIGHT = 3;
const BATCH_ROWS = 200;

interface Item {
  m: InboundMessage;
  mediaPath: string | null;
  mediaName: string | null;
  /** #34 The contact already resolved by the message's identity (channels without phone numbers). */
  contactId?: number;
}

interface Stored {
  contact: TicketView['contact'];
  ticket: TicketView;
  message: MessageRow;
  quoted: MessageRow | null;
  ticketCreated?: boolean;
  /** #32 The `message.stored` outbox row the statement wrote beside the message (staged, not at emit time). */
  outboxId?: string;
}

/**
 * #33.3 A history-sync message older than the outage it would fill (minus this margin for clocks) is old
 * history, not the gap: it is left out.
 */
const HISTORY_MARGIN_MS = 60_000;

/** #33.3-5 Messages stored and shown, but answered by no greeting, bot, flow, AI or rating. */
const isQuiet = (m: Pick<MessageRow, 'data' | 'mediaType'>, ticket: Pick<TicketView, 'isGroup'>) =>
  ticket.isGroup ||
  m.mediaType === 'call_log' ||
  (m.data as { recovered?: unknown } | null)?.recovered === true;

/**
 * #32 The sweep's way back from a `message.stored` outbox row the storing statement wrote (its payload holds
 * only ids): the event as the pipeline emitted it, read again (the ticket as it is now). Null when the message
 * or its ticket is gone (nothing left to record).
 */
export function rebuildStored(db: Db) {
  return async (partial: unknown): Promise<DomainEvents['message.stored'] | null> => {
    const p = partial as { messageId?: unknown; whatsappId?: unknown; ticketCreated?: unknown };
    if (typeof p.messageId !== 'number') return null;
    const [message] = await db.select().from(messages).where(eq(messages.id, p.messageId));
    if (!message) return null;
    const [w] = await db
      .select({ id: whatsapps.id, companyId: whatsapps.companyId, channel: whatsapps.channel })
      .from(whatsapps)
      .where(eq(whatsapps.id, message.whatsappId ?? -1));
    const ticket = await ticketQueries.byId(db, message.companyId, message.ticketId);
    if (!w || !ticket) return null;
    return {
      ref: { ...w, channelConfig: {} },
      ticket,
      message,
      ...(p.ticketCreated === true ? { ticketCreated: true } : {}),
      ...(isQuiet(message, ticket) ? { quiet: true } : {}),
    };
  };
}

/** #32 The sweep's way back from a `message.acked` outbox row the ack's statement wrote (ids and the ack). */
export function rebuildAcked(db: Db) {
  return async (partial: unknown): Promise<DomainEvents['message.acked'] | null> => {
    const p = partial as { messageId?: unknown; ack?: unknown };
    if (typeof p.messageId !== 'number' || typeof p.ack !== 'number') return null;
    const [message] = await db.select().from(messages).where(eq(messages.id, p.messageId));
    return message ? { companyId: message.companyId, message: { ...message, ack: p.ack } } : null;
  };
}

export interface InboundResult {
  /** failed: given up after maxAttempts failures (kept in inbound_failures for the admins). */
  status: 'stored' | 'duplicate' | 'ignored' | 'updated' | 'failed';
  messageId?: number;
  ticketId?: number;
  contactId?: number;
}

/** The database's own words (drizzle wraps them in the query and its parameters: the customer's text). */
const describeError = (err: unknown) => {
  const e = err as { message?: unknown; cause?: { message?: unknown } };
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return cleanText(truncate(String(message), 1000));
};

/**
 * Failures that say nothing about the message: serialization and deadlock (40), connection (08), resources
 * (53), operator intervention (57: a cancelled or timed-out statement, a shutdown).
 */
const isTransient = (err: unknown) => {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = String(e?.cause?.code ?? e?.code ?? '');
  return /^(40|08|53|57)/.test(code) || /ECONNREFUSED|ECONNRESET|ETIMEDOUT/.test(code);
};

/** A short preview for ticket lists. */
const preview = (m: InboundMessage) =>
  truncate(cleanText(m.body || (m.mediaType ? `[${m.mediaType}]` : '')), 255);

/**
 * Every inbound message of every channel passes here. It is stored exactly once, keyed by (connection,
 * provider id); the contact and the contact's active ticket on that connection are found or created by
 * the database's unique rules (never look-up-then-insert), and the ticket's counters change in the same
 * statement as the message — one statement per message, or per batch of different customers' messages
 * (`messages`), prepared once per connection on PostgreSQL. Events go out after the commit, built from
 * what the statement returned.
 */
export function inboundPipeline(deps: {
  db: Db;
  events: Events;
  media: MediaStore;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /**
   * Failed attempts after which a message is given up (stored in inbound_failures with its error) and
   * answered `failed`, so that the channel moves on to the customer's next messages. Default 3.
   */
  maxAttempts?: number;
  /** Domain events: `message.stored` once per stored message, after its socket events (docs/events.md). */
  bus?: Pick<DomainBus, 'emit'>;
  /**
   * Looks first at each customer message (ratings: an answer to a resolved ticket's rating question is
   * stored there and never opens a ticket). `take` answers a result when it took the message; `held` is the
   * SQL condition, on an input row (`input.number`, `input.lid`) of the connection and company given (SQL
   * values), of the senders `take` may want: the batch statement leaves those out and they go one by one
   * through `take`, so a batch costs no look-up of its own.
   */
  intercept?: {
    take(ref: ConnectionRef, m: InboundMessage): Promise<InboundResult | undefined>;
    held(whatsappId: SQL, companyId: SQL): SQL;
  };
}) {
  const { db, events } = deps;
  const maxAttempts = deps.maxAttempts ?? 3;
  /**
   * #32 Whether the stored message's message.stored outbox row is written by the storing statement itself
   * (the outbox's bus with a durable consumer of the event): asked when a statement shape is first built,
   * after every listener has registered.
   */
  let stagesStoredDecided: boolean | undefined;
  const staging = (event: 'message.stored' | 'message.acked') => {
    const bus = deps.bus as Partial<Pick<OutboxBus, 'stage' | 'hasDurable'>> | undefined;
    return Boolean(bus?.stage && bus.hasDurable?.(event));
  };
  const stagesStored = () => (stagesStoredDecided ??= staging('message.stored'));
  const stagesAcked = () => staging('message.acked');
  /** Messages that failed here before and have a row in inbound_failures to clear once they pass. */
  const failedBefore = new Set<string>();

  /**
   * Counts a failed attempt; answers the attempts so far, or undefined when even that could not be written
   * (the database is away: the channel retries later, nothing is given up).
   */
  async function recordFailure(ref: ConnectionRef, m: InboundMessage, err: unknown) {
    const error = describeError(err);
    const giveUp = sql`${inboundFailures.attempts} + 1 >= ${maxAttempts}`;
    try {
      const [row] = await db
        .insert(inboundFailures)
        .values({
          companyId: ref.companyId,
          whatsappId: ref.id,
          providerId: m.providerId,
          sender: m.from || m.lid || '',
          preview: preview(m),
          error,
          failed: maxAttempts <= 1,
        })
        .onConflictDoUpdate({
          target: [inboundFailures.whatsappId, inboundFailures.providerId],
          set: {
            attempts: sql`${inboundFailures.attempts} + 1`,
            failed: sql`${inboundFailures.failed} or ${giveUp}`,
            error,
            updatedAt: new Date(),
          },
        })
        .returning({ attempts: inboundFailures.attempts, failed: inboundFailures.failed });
      failedBefore.add(`${ref.id}:${m.providerId}`);
      return row;
    } catch {
      return undefined;
    }
  }

  /** Runs one message's store; a message that keeps failing is given up instead of holding the customer. */
  async function guarded(
    ref: ConnectionRef,
    m: InboundMessage,
    run: () => Promise<InboundResult>,
  ): Promise<InboundResult> {
    const key = `${ref.id}:${m.providerId}`;
    let result: InboundResult;
    try {
      result = await run();
    } catch (err) {
      // A busy or unreachable database is nobody's poison: the channel retries without counting.
      if (isTransient(err)) throw err;
      const row = await recordFailure(ref, m, err);
      if (!row?.failed) throw err;
      deps.log.error(
        {
          error: describeError(err),
          whatsappId: ref.id,
          companyId: ref.companyId,
          providerId: m.providerId,
          attempts: row.attempts,
        },
        'inbound message given up after repeated failures; the customer’s next messages go on',
      );
      return { status: 'failed' };
    }
    if (failedBefore.delete(key))
      await db
        .delete(inboundFailures)
        .where(and(eq(inboundFailures.whatsappId, ref.id), eq(inboundFailures.providerId, m.providerId)))
        .catch(() => undefined);
    return result;
  }

  async function exists(whatsappId: number, providerId: string) {
    const [hit] = await db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.whatsappId, whatsappId), eq(messages.providerId, providerId)))
      .limit(1);
    return hit;
  }

  async function applyToTarget(ref: ConnectionRef, m: InboundMessage): Promise<InboundResult> {
    if (!m.targetProviderId) return { status: 'ignored' };
    const set =
      m.kind === 'edit'
        ? { body: m.body, isEdited: true, updatedAt: new Date() }
        : m.kind === 'revoke'
          ? { isDeleted: true, updatedAt: new Date() }
          : {
              // #33.7 The customer's reaction, or the company's own made on the phone (fromMe).
              data: sql`coalesce(${messages.data}, '{}'::jsonb) || ${JSON.stringify(m.fromMe ? { myReaction: m.body } : { reaction: m.body })}::jsonb`,
              updatedAt: new Date(),
            };
    const [updated] = await db
      .update(messages)
      .set(set)
      .where(and(eq(messages.whatsappId, ref.id), eq(messages.providerId, m.targetProviderId)))
      .returning();
    if (!updated) return { status: 'ignored' };
    const payload = { action: 'update' as const, message: toMessageView(updated) };
    events.toRoom(rooms.ticket(ref.companyId, updated.ticketId), ref.companyId, 'appMessage', payload);
    return { status: 'updated', messageId: updated.id, ticketId: updated.ticketId };
  }

  /**
   * Stores messages of different customers (at most one per contact) in one statement, atomic on its own:
   * each contact upserted by number (or hidden id), each contact's active ticket on this connection
   * upserted through the unique index (a call only touches an existing one), the ticket's first history
   * entry when the statement created it, each message inserted once per (connection, provider id) with
   * its quoted message resolved, and the ticket views' joins read back. A message already stored (a
   * redelivery) is left out from the start. One stored by someone else while this statement ran (a race
   * between two deliveries) trips the guard, a division by zero that aborts the whole statement: no ticket
   * counter ever moves for a duplicate. Returns what was stored and which were duplicates, by index; a
   * call without an active ticket is in neither.
   */
  async function storeMany(
    items: (Item & { ref: ConnectionRef })[],
    calls: boolean,
    checkHeld = false,
  ): Promise<{ stored: Map<number, Stored>; duplicates: Set<number>; held: Set<number> }> {
    const now = new Date().toISOString();
    const staged = stagesStored();
    const rows = items.map(({ m, mediaPath, mediaName, ref, contactId }, i) => ({
      i,
      contact_id: contactId ?? null,
      company_id: ref.companyId,
      whatsapp_id: ref.id,
      name: m.isGroup ? m.name || m.from : m.name || m.from || m.lid || '',
      number: m.from,
      lid: m.from ? (m.lid ?? null) : m.lid,
      is_group: m.isGroup,
      provider_id: m.providerId,
      body: m.body,
      media_type: m.kind === 'call' ? 'call_log' : (m.mediaType ?? null),
      media_url: mediaPath,
      media_name: mediaName,
      from_me: m.fromMe,
      participant: m.participant?.number ?? null,
      data: m.data ?? null,
      created_at: m.timestamp.toISOString(),
      preview: preview(m),
      unread: m.fromMe ? 0 : 1,
      quoted: m.quotedProviderId ?? null,
      // Only a customer's message can say where the customer came from.
      referral: m.referral && !m.fromMe ? m.referral : null,
      // #32 The id of the message's `message.stored` outbox row, written by the same statement.
      outbox_id: randomUUID(),
    }));
    type Row = {
      duplicates: number[];
      held: number[];
      i: number;
      contact: Record<string, unknown> | null;
      ticket: Record<string, unknown> | null;
      extra: Omit<ViewRow, 'ticket' | 'contact'> | null;
      message: Record<string, unknown> | null;
      quoted: Record<string, unknown> | null;
      outbox_id: string | null;
    };
    const intercept = deps.intercept;
    const withHeld = checkHeld && !calls && Boolean(intercept);
    // Built once per shape with placeholders; each call fills in the values (executePrepared).
    const build = (p: (key: string) => unknown) => {
      const at = sql`${p('at')}::timestamptz`;
      const ticketStep = calls
        ? // A call never opens a ticket: it is recorded on the active one, if any.
          sql`update tickets set
              last_message = case when tickets.last_message_at > x.created_at then tickets.last_message
                else x.preview end,
              last_message_at = greatest(tickets.last_message_at, x.created_at),
              unread_messages = tickets.unread_messages + x.unread, updated_at = ${at}
            from x join c on c.i = x.i
            where tickets.contact_id = c.id and tickets.whatsapp_id = x.whatsapp_id and tickets.status <> 'closed'
            returning tickets.*, false as created`
        : sql`insert into tickets (company_id, contact_id, whatsapp_id, status, is_group, last_message,
              last_message_at, unread_messages)
            select x.company_id, c.id, x.whatsapp_id, 'pending', x.is_group, x.preview, x.created_at, x.unread
            from x join c on c.i = x.i order by c.id, x.whatsapp_id
            on conflict (contact_id, whatsapp_id) where status <> 'closed' do update set
              -- #33.3 A recovered (older) message never replaces a newer last message.
              last_message = case when tickets.last_message_at > excluded.last_message_at
                then tickets.last_message else excluded.last_message end,
              last_message_at = greatest(tickets.last_message_at, excluded.last_message_at),
              unread_messages = tickets.unread_messages + excluded.unread_messages, updated_at = ${at}
            returning *, (xmax = 0) as created`;
      const tid = sql.raw('t.id');
      // #32 Only a bus with the outbox (and a durable consumer of the event) takes the row.
      const outboxFilter = staged ? sql`` : sql`where false`;
      return sql`with input as (
            select * from jsonb_to_recordset(${p('rows')}::jsonb) as x(i int, contact_id int, company_id int,
              whatsapp_id int, name text, number text,
              lid text, is_group boolean, provider_id text, body text, media_type text, media_url text,
              media_name text, from_me boolean, participant text, data jsonb, created_at timestamptz,
              preview text, unread int, quoted text, referral jsonb, outbox_id uuid)),
          d as (select i from input where exists (
            select 1 from messages m where m.whatsapp_id = input.whatsapp_id and m.provider_id = input.provider_id)),
          -- Senders an interceptor may take: left out here, stored one by one after it looked.
          hd as (select i from input where ${withHeld && intercept ? intercept.held(sql.raw('input.whatsapp_id'), sql.raw('input.company_id')) : sql`false`} and i not in (select i from d)),
          x as (select * from input where i not in (select i from d) and i not in (select i from hd)),
          -- One row a customer of a company (the same number may write to two of its connections at once).
          cn as (insert into contacts (company_id, name, number, lid, is_group)
            select distinct on (x.company_id, x.number) x.company_id, x.name, x.number, x.lid, x.is_group
            from x where x.number <> '' order by x.company_id, x.number, x.i
            on conflict (company_id, number) where number <> '' do update set
              lid = coalesce(excluded.lid, contacts.lid),
              -- A pushed name replaces only a name nobody typed (still the bare number).
              name = case when contacts.name = contacts.number and excluded.name <> '' then excluded.name
                else contacts.name end,
              updated_at = ${at}
            returning *),
          cl as (insert into contacts (company_id, name, number, lid, is_group)
            select distinct on (x.company_id, x.lid) x.company_id, x.name, '', x.lid, x.is_group
            from x where x.number = '' and x.contact_id is null order by x.company_id, x.lid, x.i
            on conflict (company_id, lid) where lid is not null do update set updated_at = ${at}
            returning *),
          c as (select x.i, cn.* from x
              join cn on x.number <> '' and cn.company_id = x.company_id and cn.number = x.number
            union all
            select x.i, cl.* from x join cl on x.number = '' and cl.company_id = x.company_id and cl.lid = x.lid
            union all
            -- #34 Found by its identity beforehand (contactForIdentity).
            select x.i, ck.* from x join contacts ck on ck.id = x.contact_id and ck.company_id = x.company_id),
          t as (${ticketStep}),
          -- The ad or link a ticket's first message came through (the chat's campaign-source strip).
          st as (insert into ticket_source_tracking (company_id, ticket_id, campaign, source, medium, metadata)
            select x.company_id, t.id, coalesce(x.referral->>'campaign', ''), coalesce(x.referral->>'source', ''),
              coalesce(x.referral->>'medium', ''),
              jsonb_strip_nulls(coalesce(x.referral->'metadata', '{}'::jsonb)
                || jsonb_build_object('sourceUrl', x.referral->>'sourceUrl'))
            from x join c on c.i = x.i join t on t.contact_id = c.id and t.whatsapp_id = x.whatsapp_id
            where t.created and x.referral is not null
            returning *),
          h as (insert into ticket_histories (company_id, ticket_id, action, whatsapp_id, status, data)
            select t.company_id, t.id, 'create', t.whatsapp_id, t.status, '{"by":"customer"}'::jsonb from t
            where t.created),
          q as (select x.i, m.* from x join messages m on m.whatsapp_id = x.whatsapp_id and m.provider_id = x.quoted),
          n as (insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, media_type,
              media_url, media_name, from_me, ack, read, participant, data, created_at, quoted_msg_id)
            select x.company_id, t.id, t.contact_id, x.whatsapp_id, x.provider_id, x.body, x.media_type,
              x.media_url, x.media_name, x.from_me, case when x.from_me then 1 else 0 end, x.from_me,
              x.participant, x.data, x.created_at, q.id
            from x join c on c.i = x.i join t on t.contact_id = c.id and t.whatsapp_id = x.whatsapp_id
            left join q on q.i = x.i
            order by x.i
            on conflict do nothing
            returning *),
          -- #32 The message's message.stored outbox row, committed with it: a crash before the event reached
          -- the record (timeline, webhooks) leaves it for the sweep, which rebuilds the event from the ids.
          ob as (insert into event_outbox (id, company_id, event, payload, created_at)
            select x.outbox_id, n.company_id, 'message.stored',
              json_build_object('$rebuild', json_build_object('messageId', n.id, 'whatsappId', n.whatsapp_id,
                'ticketCreated', t.created))::text, ${at}
            from n join x on x.whatsapp_id = n.whatsapp_id and x.provider_id = n.provider_id
            join t on t.id = n.ticket_id
            ${outboxFilter})
        select g.guard, g.duplicates, g.held, x.i, row_to_json(c) as contact, row_to_json(t) as ticket,
          json_build_object(
            'queue', (select json_build_object('id', y.id, 'name', y.name, 'color', y.color)
              from queues y where y.id = t.queue_id),
            'user', (select json_build_object('id', y.id, 'name', y.name) from users y where y.id = t.user_id),
            'whatsapp', (select json_build_object('id', y.id, 'name', y.name, 'channel', y.channel)
              from whatsapps y where y.id = t.whatsapp_id),
            'tags', ${tagsFor(tid)},
            -- This statement's own inserts are not visible to its subqueries on the table: read them from st.
            'tracking', coalesce((select json_agg(json_build_object('id', s.id, 'uuid', s.uuid,
                'campaign', s.campaign, 'source', s.source, 'medium', s.medium, 'metadata', s.metadata,
                'createdAt', s.created_at) order by s.id) from st s where s.ticket_id = t.id),
              ${trackingFor(tid)})) as extra,
          row_to_json(n) as message, row_to_json(q) as quoted, x.outbox_id
        from (select 1 / (case when (select count(*) from n) < (select count(*) from t) then 0 else 1 end) as guard,
            (select coalesce(json_agg(i), '[]') from d) as duplicates,
            (select coalesce(json_agg(i), '[]') from hd) as held) g
        left join (n join x on x.whatsapp_id = n.whatsapp_id and x.provider_id = n.provider_id
          join t on t.id = n.ticket_id join c on c.i = x.i left join q on q.i = x.i) on true`;
    };
    const result = await executePrepared<Row>(
      db,
      calls ? 'recado_inbound_calls_v6' : withHeld ? 'recado_inbound_batch_v6' : 'recado_inbound_messages_v6',
      build,
      { at: now, rows: JSON.stringify(rows) },
    ).catch((err: unknown) => {
      const e = err as { code?: string; cause?: { code?: string } };
      if ((e?.code ?? e?.cause?.code) === '22012') throw new Duplicate();
      throw err;
    });
    const stored = new Map<number, Stored>();
    const duplicates = new Set<number>(result[0]?.duplicates ?? []);
    const heldBack = new Set<number>(result[0]?.held ?? []);
    const opened = new Set<unknown>();
    for (const r of result) {
      if (!r.ticket || !r.message || !r.contact) continue;
      const c = rowOf(contacts, r.contact);
      const contact = {
        id: c.id,
        name: c.name,
        number: c.number,
        email: c.email,
        profilePicUrl: c.profilePicUrl,
        isGroup: c.isGroup,
        // The owner decides who hears the ticket when the company shows attendants only their own contacts.
        ownerId: c.ownerId,
        // The same contact view GET /tickets/{id} answers (#32.7 custom fields included).
        customFields: c.customFields ?? {},
      };
      stored.set(r.i, {
        contact,
        ticket: toTicketView({ ticket: rowOf(tickets, r.ticket), contact, ...r.extra! }),
        message: rowOf(messages, r.message),
        quoted: r.quoted ? rowOf(messages, r.quoted) : null,
        // The statement created the ticket: its first message here says so (once per ticket).
        ticketCreated:
          r.ticket.created === true && !opened.has(r.ticket.id) && Boolean(opened.add(r.ticket.id)),
        ...(r.outbox_id && staged ? { outboxId: r.outbox_id } : {}),
      });
    }
    return { stored, duplicates, held: heldBack };
  }

  /*
   * Plain messages of every connection share the batch statement: what is handed in during one turn of the
   * loop, or while BATCH_IN_FLIGHT statements run, leaves together in the next one (up to BATCH_ROWS), so
   * under load one statement carries many connections' messages instead of one each. A statement that
   * fails fails each of its hand-ins, whose messages then go one by one.
   */
  type Batch = Awaited<ReturnType<typeof storeMany>>;
  type HandIn = (Item & { ref: ConnectionRef })[];
  const storeBatch = groupCommit<HandIn, Batch>(
    async (handIns) => {
      const r = await storeMany(handIns.flat(), false, true);
      let offset = 0;
      return handIns.map((items) => {
        const from = offset;
        offset += items.length;
        const mine = (k: number) => k >= from && k < offset;
        const own = (set: Set<number>) => new Set([...set].filter(mine).map((k) => k - from));
        const stored = new Map([...r.stored].filter(([k]) => mine(k)).map(([k, v]) => [k - from, v]));
        return { stored, duplicates: own(r.duplicates), held: own(r.held) };
      });
    },
    { inFlight: BATCH_IN_FLIGHT, maxWeight: BATCH_ROWS, weight: (items) => items.length },
  );

  /** Events after the commit, in the same shapes as the HTTP answers (built from what the statement returned). */
  function announce(
    ref: ConnectionRef,
    { contact, ticket, message, quoted, ticketCreated, outboxId }: Stored,
  ): InboundResult {
    const messageView = toMessageView(message, { quoted, contact: { id: contact.id, name: contact.name } });
    // Only those who may see the ticket hear about it (contracts/visibility.ts), in its lists and its room.
    const all = ticketEventRooms(ref.companyId, ticket);
    const lists = all.filter((r) => r !== rooms.ticket(ref.companyId, ticket.id));
    events.toRoom(all, ref.companyId, 'appMessage', {
      action: 'create',
      message: messageView,
      ticket,
      contact: ticket.contact,
    });
    events.toRoom(lists, ref.companyId, 'ticket', { action: 'update', ticket });
    deps.bus?.emit(
      'message.stored',
      {
        ref,
        ticket,
        message,
        ...(ticketCreated ? { ticketCreated } : {}),
        ...(isQuiet(message, ticket) ? { quiet: true } : {}),
      },
      // #32 Staged by the storing statement: dispatched as a committed outbox row.
      outboxId ? { outboxId, at: new Date() } : undefined,
    );
    return { status: 'stored', messageId: message.id, ticketId: ticket.id, contactId: contact.id };
  }

  /** Whether a message can share a statement with others (plain, no media to fetch, one customer). */
  const batchable = (m: InboundMessage) =>
    m.kind === 'message' && !m.isGroup && !m.media && !m.recovered && !m.identity && Boolean(m.from || m.lid);
  const customerOf = (m: InboundMessage) =>
    m.identity ? `i:${m.identity.kind}:${m.identity.value}` : m.from ? `n:${m.from}` : `l:${m.lid}`;

  /** One message: its text cleaned (no NUL, no lone surrogate) and its failures counted. */
  async function one(ref: ConnectionRef, raw: InboundMessage): Promise<InboundResult> {
    const m = cleanDeep(raw);
    return guarded(ref, m, () => storeOne(ref, m));
  }

  /** #33.4-5 What the connection does with groups and calls (read per message: both are rare). */
  async function connectionOptions(ref: ConnectionRef) {
    const [o] = await db
      .select({
        groupMode: whatsapps.groupMode,
        callMode: whatsapps.callMode,
        callRejectMessage: whatsapps.callRejectMessage,
        callOpensTicket: whatsapps.callOpensTicket,
      })
      .from(whatsapps)
      .where(and(eq(whatsapps.id, ref.id), eq(whatsapps.companyId, ref.companyId)));
    return o;
  }

  /**
   * #33.3 A recovered message is tagged with the outage it fills (`data.recovered`, `data.recovery`: the
   * connection's recovery count is read from there). A history-sync message from before that outage is old
   * history: null, left out. Offline notifications are always the gap (WhatsApp held them for us).
   */
  async function recoveredData(ref: ConnectionRef, m: InboundMessage) {
    const [outage] = await db
      .select({ id: connectionOutages.id, startedAt: connectionOutages.startedAt })
      .from(connectionOutages)
      .where(and(eq(connectionOutages.whatsappId, ref.id), eq(connectionOutages.companyId, ref.companyId)))
      .orderBy(desc(connectionOutages.id))
      .limit(1);
    if (
      m.recovered === 'history' &&
      (!outage || m.timestamp.getTime() < outage.startedAt.getTime() - HISTORY_MARGIN_MS)
    )
      return null;
    return { recovered: true, ...(outage ? { recovery: outage.id } : {}) };
  }

  /**
   * #33.4 A call: rejected (with the connection's text) when the connection says so, logged as a missed-call
   * line on the caller's open ticket (or a new one when the connection says so), and `call.received` emitted.
   */
  async function storeCall(ref: ConnectionRef, m: InboundMessage): Promise<InboundResult> {
    const o = await connectionOptions(ref);
    if (!o) return { status: 'ignored' };
    const rejected = o.callMode === 'reject' && Boolean(m.reject);
    let reply: { providerId: string; timestamp: Date } | null = null;
    if (rejected)
      reply = await m.reject!(o.callRejectMessage.trim()).catch((err: unknown) => {
        deps.log.warn({ err, whatsappId: ref.id }, 'call could not be rejected');
        return null;
      });
    let result: InboundResult = { status: 'ignored' };
    const log =
      (m.from || m.lid) && !m.isGroup && (await readSetting(db, ref.companyId, 'call')) !== 'disabled';
    if (log) {
      const line = { ...m, data: { ...m.data, rejected } };
      let r: Awaited<ReturnType<typeof storeMany>> | undefined;
      try {
        // A call line opens a ticket only when the connection says so; otherwise it joins an open one.
        r = await storeMany([{ m: line, mediaPath: null, mediaName: null, ref }], !o.callOpensTicket);
      } catch (err) {
        if (!(err instanceof Duplicate)) throw err;
      }
      const stored = r?.stored.get(0);
      if (stored) {
        result = announce(ref, stored);
        // What the caller was told is part of the conversation too.
        if (reply)
          await storeMany(
            [
              {
                m: {
                  ...m,
                  kind: 'message',
                  providerId: reply.providerId,
                  fromMe: true,
                  body: o.callRejectMessage.trim(),
                  mediaType: undefined,
                  data: undefined,
                  timestamp: reply.timestamp,
                },
                mediaPath: null,
                mediaName: null,
                ref,
              },
            ],
            false,
          )
            .then((s) => s.stored.get(0) && announce(ref, s.stored.get(0)!))
            .catch((err: unknown) => deps.log.warn({ err, whatsappId: ref.id }, 'call reply not stored'));
      } else if (r?.duplicates.has(0)) return { status: 'duplicate' };
    }
    deps.bus?.emit('call.received', {
      companyId: ref.companyId,
      whatsappId: ref.id,
      providerId: m.providerId,
      from: m.participant?.number ?? m.from,
      isVideo: (m.data as { isVideo?: unknown } | undefined)?.isVideo === true,
      isGroup: m.isGroup,
      at: m.timestamp,
      rejected,
      ticketId: result.ticketId ?? null,
      contactId: result.status === 'stored' && result.contactId ? result.contactId : null,
    });
    return result;
  }

  async function storeOne(ref: ConnectionRef, raw: InboundMessage): Promise<InboundResult> {
    {
      let m = raw;
      if (m.kind === 'edit' || m.kind === 'revoke' || m.kind === 'reaction') return applyToTarget(ref, m);
      if (m.kind === 'call') return storeCall(ref, m);
      if (m.isGroup) {
        // #33.5 Groups are the connection's choice: ignored (default) or one ticket per group.
        if ((await connectionOptions(ref))?.groupMode !== 'tickets') return { status: 'ignored' };
        // Each message shows who wrote it in the group.
        if (m.participant?.name) m = { ...m, data: { ...m.data, participantName: m.participant.name } };
      }
      if (!m.from && !m.lid && !m.identity?.value) return { status: 'ignored' };
      if (m.recovered) {
        const data = await recoveredData(ref, m);
        if (!data) return { status: 'ignored' };
        m = { ...m, data: { ...m.data, ...data } };
      }
      // A recovered message answers no rating question asked meanwhile (and a group's never does).
      const taken = m.recovered || m.isGroup ? undefined : await deps.intercept?.take(ref, m);
      if (taken) return taken;
      // Saves downloading a redelivered message's media; the statement itself refuses duplicates.
      if (m.media && (await exists(ref.id, m.providerId))) return { status: 'duplicate' };

      let mediaPath: string | null = null;
      let mediaName: string | null = null;
      if (m.media) {
        try {
          const file = await m.media();
          mediaPath = await deps.media.save(ref.companyId, file.data, file.filename);
          mediaName = file.filename;
        } catch (err) {
          deps.log.warn({ err, whatsappId: ref.id }, 'media download failed; message kept without media');
        }
      }

      // #34 A customer known by an identity: its contact found or created first, atomically.
      const contactId = m.identity?.value
        ? await contactForIdentity(db, ref.companyId, m.identity, m.name ?? '', m.isGroup)
        : undefined;
      let result: Awaited<ReturnType<typeof storeMany>>;
      try {
        result = await storeMany(
          [{ m, mediaPath, mediaName, ref, ...(contactId ? { contactId } : {}) }],
          false,
        );
      } catch (err) {
        if (!(err instanceof Duplicate)) throw err;
        result = { stored: new Map(), duplicates: new Set([0]), held: new Set() };
      }
      const stored = result.stored.get(0);
      if (stored) return announce(ref, stored);
      if (!result.duplicates.has(0)) return { status: 'ignored' };
      if (mediaPath) await deps.media.remove(mediaPath);
      return { status: 'duplicate' };
    }
  }

  const pipeline = {
    message: one,

    /**
     * Several messages at once, each customer's in the order given. Plain messages of different customers
     * share one statement; anything else, and a statement that fails (a duplicate among them), goes one by
     * one. Settles per message: a failure of one does not fail the others.
     */
    async messages(
      ref: ConnectionRef,
      raw: InboundMessage[],
    ): Promise<PromiseSettledResult<InboundResult>[]> {
      const ms = raw.map(cleanDeep);
      const results: PromiseSettledResult<InboundResult>[] = new Array(ms.length);
      // Senders an interceptor may take are left out by the statement and go one by one (through message());
      // so does a message that failed here before (its failure row is cleared once it passes).
      const fits = (m: InboundMessage) => batchable(m) && !failedBefore.has(`${ref.id}:${m.providerId}`);
      const one = async (i: number) => {
        try {
          results[i] = { status: 'fulfilled', value: await pipeline.message(ref, ms[i]!) };
        } catch (reason) {
          results[i] = { status: 'rejected', reason };
        }
      };
      // Rounds: one message per customer each, so a customer's later message waits for its earlier one.
      let left = ms.map((_, i) => i);
      while (left.length) {
        const seen = new Set<string>();
        const round: number[] = [];
        const later: number[] = [];
        for (const i of left) {
          const key = customerOf(ms[i]!);
          if (seen.has(key)) later.push(i);
          else {
            seen.add(key);
            round.push(i);
          }
        }
        left = later;
        const plain = round.filter((i) => fits(ms[i]!));
        const other = round.filter((i) => !fits(ms[i]!));
        const single = other.map(one);
        if (plain.length) {
          let heldBack: number[] = [];
          try {
            const r = await storeBatch(
              plain.map((i) => ({ m: ms[i]!, mediaPath: null, mediaName: null, ref })),
            );
            plain.forEach((i, k) => {
              const s = r.stored.get(k);
              if (s) results[i] = { status: 'fulfilled', value: announce(ref, s) };
              else if (r.held.has(k)) heldBack.push(i);
              else
                results[i] = {
                  status: 'fulfilled',
                  value: { status: r.duplicates.has(k) ? 'duplicate' : 'ignored' },
                };
            });
          } catch {
            // A race with another delivery (or a clash between two of them): each on its own says which.
            heldBack = plain;
          }
          await Promise.all(heldBack.map(one));
        }
        await Promise.all(single);
      }
      return results;
    },
    /**
     * Acks only move forward (a late "delivered" never overwrites "read"); a failure (0) marks the message.
     * #31 One statement: the channel's own row (`a.own`) and the claims (a campaign send's row) are CTEs of it;
     * the message is updated only when the channel's row was found and no claim took the ack.
     */
    async ack(ref: ConnectionRef, a: AckUpdate, claims: AckClaim[] = []): Promise<void> {
      const failed = a.ack === 0;
      // #32 The ack's message.acked outbox row commits with the ack (ids only; the sweep rebuilds the event).
      const outboxId = !failed && stagesAcked() ? randomUUID() : null;
      const now = new Date().toISOString();
      const guard = a.own ? sql`exists (select 1 from ack_own)` : sql`true`;
      const taking = claims.flatMap((c) => {
        const cte = c.cte(ref, a, guard);
        return cte ? [{ claim: c, cte }] : [];
      });
      const ctes: SQL[] = [];
      if (a.own) ctes.push(sql`ack_own as (${a.own.cte})`);
      taking.forEach(({ cte }, i) => ctes.push(sql`${sql.raw(`ack_claim${i}`)} as (${cte})`));
      const untaken = taking.map((_, i) => sql` and not exists (select 1 from ${sql.raw(`ack_claim${i}`)})`);
      ctes.push(sql`u as (update messages set ${
        failed
          ? sql`data = coalesce(data, '{}'::jsonb) || ${JSON.stringify(failureData(a.data))}::jsonb`
          : sql`ack = ${a.ack}`
      }, updated_at = ${now}::timestamptz
          where whatsapp_id = ${ref.id} and provider_id = ${a.providerId}
            and ${failed ? sql`ack <= 1` : sql`ack < ${a.ack}`} and ${guard}${sql.join(untaken, sql``)}
          returning *)`);
      if (outboxId)
        ctes.push(sql`ob as (insert into event_outbox (id, company_id, event, payload, created_at)
          select ${outboxId}::uuid, u.company_id, 'message.acked',
            json_build_object('$rebuild', json_build_object('messageId', u.id, 'ack', u.ack))::text,
            ${now}::timestamptz
          from u)`);
      const extra = [
        ...(a.own ? [sql`, (select row_to_json(ack_own) from ack_own limit 1) as own`] : []),
        ...taking.map(
          (_, i) =>
            sql`, (select json_agg(${sql.raw(`ack_claim${i}`)}) from ${sql.raw(`ack_claim${i}`)}) as ${sql.raw(`claim${i}`)}`,
        ),
      ];
      const [raw] = await executeRows<Record<string, unknown> & { m: Record<string, unknown> | null }>(
        db,
        sql`with ${sql.join(ctes, sql`, `)}
          select (select row_to_json(u) from u limit 1) as m${sql.join(extra, sql``)}`,
      );
      const json = <T>(v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
      taking.forEach(({ claim }, i) => {
        const rows = json<Record<string, unknown>[] | null>(raw?.[`claim${i}`]);
        if (rows?.length) claim.taken(ref, rows);
      });
      const updated = raw?.m ? rowOf(messages, json<Record<string, unknown>>(raw.m)) : undefined;
      if (updated) {
        events.toRoom(rooms.ticket(ref.companyId, updated.ticketId), ref.companyId, 'appMessage', {
          action: 'update',
          message: toMessageView(updated),
        });
        if (!failed)
          deps.bus?.emit(
            'message.acked',
            { companyId: ref.companyId, message: updated },
            outboxId ? { outboxId, at: new Date(now) } : undefined,
          );
      }
      if (a.own) await a.own.seen(json<Record<string, unknown> | null>(raw?.own) ?? undefined);
    },
  };
  return pipeline;
}
export type InboundPipeline = ReturnType<typeof inboundPipeline>;

/**
 * What a failed ack stores on the message: `error` is the text the bubble shows; a channel's error object
 * (Cloud API: Meta's { code, title, message, details }) also keeps its code as `errorCode`.
 */
export function failureData(data: unknown): { error: string; errorCode?: number } {
  const e = (data as { error?: unknown } | undefined)?.error;
  if (e && typeof e === 'object') {
    const { code, title, message, details } = e as Record<string, unknown>;
    const text = [title, message, details].filter((x): x is string => typeof x === 'string' && !!x);
    const unique = [...new Set(text)].join(' — ');
    return {
      error: `${typeof code === 'number' ? `(#${code}) ` : ''}${unique || 'failed'}`.slice(0, 500),
      ...(typeof code === 'number' ? { errorCode: code } : {}),
    };
  }
  if (typeof data === 'string' && data) return { error: data.slice(0, 500) };
  return { error: 'failed' };
}
