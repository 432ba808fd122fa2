import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { canSeeTicket, normalizeNumber, type SimulatorInbound } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows, rowOf } from '../../db/rows.js';
import { contacts, simulatorMessages, tickets, whatsapps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { cleanDeep } from '../../lib/text.js';
import { groupCommit } from '../../lib/group-commit.js';
import type { Tenant } from '../../http/tenant.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import {
  markCustomerRead,
  mediaTypeOf,
  quotedRows,
  SIMULATOR_INBOUND_CHANNEL,
  toSimulatorView,
  type SimulatorChannelApi,
  type SimulatorRow,
  type SimulatorView,
} from '../../messaging/channels/simulator-channel.js';
import type { Events } from '../../realtime/events.js';
import { simulatorConnectionRoom, simulatorRoom } from '../../realtime/room-policy.js';
import { isManager, loadViewer } from '../tickets/ticket-queries.js';

/** The simulator's HTTP entry (GUIDE §8) and what its page reads: the customers' side of the conversation. */
export function simulatorService(deps: {
  db: Db;
  media: MediaStore;
  events: Events;
  sessions: () => SessionManager | undefined;
  log: { warn(o: object, m: string): void };
}) {
  const { db } = deps;

  async function connection(t: Tenant, whatsappId: number) {
    const [w] = await db
      .select({ id: whatsapps.id, channel: whatsapps.channel })
      .from(whatsapps)
      .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, t.companyId)));
    if (!w) throw new AppError('ERR_NO_WAPP_FOUND', 404);
    if (w.channel !== 'simulator') throw new AppError('ERR_VALIDATION', 400, 'not a simulator connection');
    return w;
  }

  /*
   * Group commit: messages arriving while an insert is on its way are stored together by the next one, so
   * a burst costs a few statements instead of one each. Each caller still answers only once its own row
   * is committed. The connection check (this company's, a simulator) is part of the insert.
   */
  type Incoming = {
    whatsapp_id: number;
    company_id: number;
    number: string;
    name: string;
    provider_id: string;
    body: string;
    media_type: string | null;
    media: { mimetype: string; filename: string; path: string } | null;
    /** The connection's session runs in another process (told in the same statement). */
    remote: boolean;
  };

  /**
   * Rows for connections whose session runs in another process (`remote`) are announced to their owner in
   * the same statement (NOTIFY at commit, once durable): the row itself, or only the connection's id when
   * the row is too large for a notification (the owner then reads its table).
   */
  async function insertMany(rows: Incoming[]): Promise<(SimulatorRow | null)[]> {
    const inserted = await executeRows(
      db,
      sql`with ins as (insert into simulator_messages (whatsapp_id, number, name, provider_id, from_me, body,
            media_type, media, ack, delivered)
          select w.id, x.number, x.name, x.provider_id, false, x.body, x.media_type, x.media, 1, false
          from jsonb_to_recordset(${JSON.stringify(rows.map((r, i) => ({ ...r, i })))}::jsonb) as x(i int,
            whatsapp_id int, company_id int, number text, name text, provider_id text, body text, media_type text,
            media jsonb, remote boolean)
          join whatsapps w on w.id = x.whatsapp_id and w.company_id = x.company_id and w.channel = 'simulator'
          order by x.i
          on conflict do nothing
          returning *),
        told as (select pg_notify(${SIMULATOR_INBOUND_CHANNEL},
            case when octet_length(j) <= 7900 then j else r.whatsapp_id::text end)
          from (select ins.whatsapp_id, row_to_json(ins)::text as j, ins.id from ins
            where ins.whatsapp_id = any(string_to_array(${rows
              .filter((r) => r.remote)
              .map((r) => r.whatsapp_id)
              .join(',')}, ',')::int[]) order by ins.id) r)
        select ins.*, (select count(*) from told) as told from ins`,
      'recado_simulator_inbound_v2',
    );
    const byKey = new Map(
      inserted.map((r) => {
        const row = rowOf(simulatorMessages, r);
        return [`${row.whatsappId}:${row.providerId}`, row];
      }),
    );
    // The same id twice in one batch: the first caller stored it, the second is a duplicate.
    return rows.map((r) => {
      const key = `${r.whatsapp_id}:${r.provider_id}`;
      const row = byKey.get(key) ?? null;
      byKey.delete(key);
      return row;
    });
  }

  /** One bad row must not fail the others: after a failed batch, each row alone answers for itself. */
  const stored = groupCommit<Incoming, { row: SimulatorRow | null } | { err: unknown }>(async (rows) => {
    try {
      return (await insertMany(rows)).map((row) => ({ row }));
    } catch (err) {
      if (rows.length === 1) return [{ err }];
      const out: ({ row: SimulatorRow | null } | { err: unknown })[] = [];
      for (const r of rows)
        out.push(
          await insertMany([r]).then(
            ([row]) => ({ row: row ?? null }),
            (e: unknown) => ({ err: e }),
          ),
        );
      return out;
    }
  });
  async function storeIncoming(row: Incoming): Promise<SimulatorRow | null> {
    const r = await stored(row);
    if ('err' in r) throw r.err;
    return r.row;
  }

  /**
   * The simulator's events carry the conversation: they go to the sockets that follow this conversation
   * (joined through the same visibility rule as its tickets) and to the simulator pages open on the whole
   * connection (managers), never to everyone, nor to every admin's browser.
   */
  const notify = (
    companyId: number,
    whatsappId: number,
    payload: { action: 'message' | 'update'; message: SimulatorView },
  ) =>
    deps.events.toRoom(
      [
        simulatorConnectionRoom(companyId, whatsappId),
        simulatorRoom(companyId, whatsappId, payload.message.number),
      ],
      companyId,
      'simulator',
      { ...payload, whatsappId },
    );

  /**
   * The conversations of a connection a non-admin may read: those whose latest ticket they may see (the
   * rule of GET /tickets/{id}). Managers read every one. `numbers` narrows the search.
   */
  async function followable(t: Tenant, whatsappId: number, numbers?: string[]): Promise<Set<string> | 'all'> {
    const viewer = await loadViewer(db, t);
    if (isManager(viewer)) return 'all';
    const latest = await db
      .selectDistinctOn([contacts.number], {
        number: contacts.number,
        userId: tickets.userId,
        queueId: tickets.queueId,
        status: tickets.status,
      })
      .from(tickets)
      .innerJoin(contacts, eq(contacts.id, tickets.contactId))
      .where(
        and(
          eq(tickets.companyId, t.companyId),
          eq(tickets.whatsappId, whatsappId),
          numbers ? inArray(contacts.number, numbers) : undefined,
        ),
      )
      .orderBy(contacts.number, desc(tickets.id));
    return new Set(latest.filter((r) => canSeeTicket(viewer, r)).map((r) => r.number));
  }

  async function mayFollow(t: Tenant, whatsappId: number, number: string) {
    const allowed = await followable(t, whatsappId, [number]);
    return allowed === 'all' || allowed.has(number);
  }

  async function requireFollow(t: Tenant, whatsappId: number, number: string) {
    if (!(await mayFollow(t, whatsappId, number))) throw new AppError('ERR_NO_PERMISSION', 403);
  }

  return {
    notify,

    /**
     * Whether the caller may follow this conversation (its socket room, its reads); with `rawNumber` null,
     * every conversation of the connection (only those who read them all: managers).
     */
    async mayFollow(t: Tenant, whatsappId: number, rawNumber: string | null) {
      await connection(t, whatsappId);
      if (rawNumber === null) return isManager(await loadViewer(db, t));
      return mayFollow(t, whatsappId, normalizeNumber(rawNumber));
    },

    /**
     * Stores the customer's message durably (idempotent by id), answers, then hands it to the pipeline. The
     * connection check (this company's, a simulator) is part of the insert: one round trip per message.
     */
    async inbound(
      t: Tenant,
      whatsappId: number,
      raw: SimulatorInbound,
    ): Promise<{ id: string; duplicate: boolean }> {
      // The phone's table refuses what PostgreSQL refuses (NUL, half an emoji) like the pipeline's do.
      const input = cleanDeep(raw);
      const number = normalizeNumber(input.from);
      const invalid = number.length < 10 || number.length > 15;
      // Media is stored first (rare, large): check the connection before writing a file for it.
      if (input.media || invalid) await connection(t, whatsappId);
      if (invalid) throw new AppError('ERR_WAPP_INVALID_CONTACT', 400);
      const providerId = input.id ?? `SIMIN${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;
      let media: { mimetype: string; filename: string; path: string } | null = null;
      if (input.media) {
        const data = Buffer.from(input.media.data, 'base64');
        if (!data.length) throw new AppError('ERR_VALIDATION', 400, 'empty media');
        const path = await deps.media.save(t.companyId, data, input.media.filename, 'simulator');
        media = { mimetype: input.media.mimetype, filename: input.media.filename, path };
      }
      // The session running here takes the row at once; another process's is told by the insert itself.
      const channel = deps.sessions()?.get(whatsappId) as unknown as SimulatorChannelApi | undefined;
      const row = await storeIncoming({
        remote: !channel?.accept,
        whatsapp_id: whatsappId,
        company_id: t.companyId,
        number,
        name: input.name ?? '',
        provider_id: providerId,
        body: input.body ?? '',
        media_type: media ? mediaTypeOf(media.mimetype) : null,
        media,
      });
      if (!row) {
        if (media) await deps.media.remove(media.path);
        // Nothing stored: another company's or no connection (404/400), or this id was already accepted.
        await connection(t, whatsappId);
        return { id: providerId, duplicate: true };
      }
      notify(t.companyId, whatsappId, { action: 'message', message: toSimulatorView(row, whatsappId) });
      // The answer means "durably accepted"; the session running here delivers it now, or its owner (told
      // by the insert's NOTIFY, or its poll) does.
      channel?.accept?.([row]);
      return { id: providerId, duplicate: false };
    },

    async conversation(t: Tenant, whatsappId: number, rawNumber: string): Promise<SimulatorView[]> {
      await connection(t, whatsappId);
      const number = normalizeNumber(rawNumber);
      await requireFollow(t, whatsappId, number);
      const rows = await db
        .select()
        .from(simulatorMessages)
        .where(and(eq(simulatorMessages.whatsappId, whatsappId), eq(simulatorMessages.number, number)))
        .orderBy(asc(simulatorMessages.id));
      const quotedOf = await quotedRows(db, whatsappId, rows);
      return rows.map((r) => toSimulatorView(r, whatsappId, quotedOf(r)));
    },

    /** The customers this simulator has talked to, newest conversation first. */
    async customers(t: Tenant, whatsappId: number) {
      await connection(t, whatsappId);
      const rows = await db.execute<{ number: string; name: string; last_body: string; last_at: string }>(sql`
        select distinct on (number) number, media_type as last_media_type, media->>'filename' as last_media_name,
          coalesce(nullif((select s2.name from simulator_messages s2 where s2.whatsapp_id = ${whatsappId} and s2.number = s.number and s2.name <> '' order by s2.id desc limit 1), ''), number) as name,
          body as last_body, created_at as last_at
        from simulator_messages s where whatsapp_id = ${whatsappId}
        order by number, id desc`);
      const list = (rows as unknown as { rows?: unknown[] }).rows ?? (rows as unknown as unknown[]);
      const allowed = await followable(t, whatsappId);
      type Row = {
        number: string;
        name: string;
        last_body: string;
        last_at: string | Date;
        last_media_type: string | null;
        last_media_name: string | null;
      };
      return (list as Row[])
        .filter((r) => allowed === 'all' || allowed.has(r.number))
        .map((r) => ({
          number: r.number,
          name: r.name,
          lastMessage: r.last_body,
          // A file sent without a caption (an API send, a campaign's document) still names the conversation's last word.
          lastMediaType: r.last_media_type ?? null,
          lastMediaName: r.last_media_name ?? null,
          lastAt: new Date(r.last_at).toISOString(),
        }))
        .sort((a, b) => b.lastAt.localeCompare(a.lastAt));
    },

    /** The customer opens the chat: every company message to them shows as read (ack 3). */
    async read(t: Tenant, whatsappId: number, rawNumber: string) {
      await connection(t, whatsappId);
      await requireFollow(t, whatsappId, normalizeNumber(rawNumber));
      const channel = deps.sessions()?.get(whatsappId) as unknown as SimulatorChannelApi | undefined;
      if (channel?.customerRead) return { read: await channel.customerRead(rawNumber) };
      // Session not running here: the phone still shows them read; the company learns it when it reconnects.
      const rows = await markCustomerRead(db, whatsappId, rawNumber);
      rows.forEach((r) =>
        notify(t.companyId, whatsappId, { action: 'update', message: toSimulatorView(r, whatsappId) }),
      );
      return { read: rows.length };
    },

    async media(t: Tenant, whatsappId: number, providerId: string) {
      await connection(t, whatsappId);
      const [r] = await db
        .select()
        .from(simulatorMessages)
        .where(
          and(eq(simulatorMessages.whatsappId, whatsappId), eq(simulatorMessages.providerId, providerId)),
        )
        .orderBy(desc(simulatorMessages.id));
      if (!r?.media) throw new AppError('ERR_NOT_FOUND', 404);
      await requireFollow(t, whatsappId, r.number);
      return { ...r.media, data: await deps.media.read(r.media.path) };
    },
  };
}
export type SimulatorService = ReturnType<typeof simulatorService>;
