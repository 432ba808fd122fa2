import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import {
  rooms,
  splitSignature,
  statusScope,
  ticketRooms,
  type ErrorCode,
  type MessageSend,
  windowOpen,
  HUMAN_AGENT_DAYS,
  isHumanAgentChannel,
  messageTagFor,
  type ConversationWindow,
  type TicketView,
} from '@recado/contracts';
import type { MessageTemplateService } from '../message-templates/message-template-service.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Db, Tx } from '../../db/client.js';
import { executeRows, preparedQuery, rowOf } from '../../db/rows.js';
import { contacts, messages, tickets, whatsapps, type OutboundJob } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { subscriptionExpired } from '../../http/subscription-block.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import { ticketEventRooms } from '../../realtime/room-policy.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import type { InteractiveSend, MediaPayload, TemplateSend } from '../../messaging/channel.js';
import {
  outboundSender,
  type OutboundSender,
  type OutboundSenderDeps,
} from '../../messaging/outbound-sender.js';
import { mediaTypeOf } from '../../messaging/channels/simulator-channel.js';
import { channelCommands } from '../../messaging/channel-commands.js';
import { ticketQueries, viewFromJson, viewJsonOf, visibleTicketRow } from '../tickets/ticket-queries.js';
import {
  messagePage,
  toMessageView,
  withRelations,
  type MessageRow,
  type MessageView,
} from './message-queries.js';
import { voiceNotes, type VoiceNotes } from './voice-note.js';
import { withTicketVariables } from '../../lib/ticket-variables.js';
import { identityKindOf, identityValue } from '../contacts/contact-identities.js';
import type { DomainBus, DomainEvents } from '../../events/domain-events.js';
import { assertHumanReplyAllowed } from '../privacy/consent-gate.js';
import type { OutboxBus } from '../../events/outbox.js';
import type { EmitMeta } from '../../events/bus.js';

type TicketRow = typeof tickets.$inferSelect;

/** The ticket's last message after a send (and its first response, when a person sent one): prepared. */
const lastMessageQuery = preparedQuery((db: Db) =>
  db
    .update(tickets)
    .set({
      lastMessage: sql`${sql.placeholder('preview')}`,
      lastMessageAt: sql`${sql.placeholder('now')}::timestamptz`,
      updatedAt: sql`${sql.placeholder('now')}::timestamptz`,
      firstResponseAt: sql`coalesce(${tickets.firstResponseAt}, ${sql.placeholder('firstResponse')}::timestamptz)`,
    })
    .where(eq(tickets.id, sql.placeholder('id')))
    .prepare('ticket_last_message'),
);

export interface OutboundFile extends MediaPayload {
  asVoice?: boolean;
  /** A microphone recording from the web client: converted to a voice note before it is sent. */
  recording?: boolean;
}

/**
 * Messages of a ticket: reading them, and sending through the ticket's connection. An outbound message is
 * stored first (ack 0, a local id), then sent; the channel's id and ack 1 replace those when it answers,
 * so a failed send is visible on the screen instead of silently lost.
 */
export function messageService(deps: {
  db: Db;
  events: Events;
  media: MediaStore;
  sessions: () => SessionManager | undefined;
  /** Turns recordings into OGG/Opus voice notes (ffmpeg); by default ffmpeg from PATH. */
  voice?: VoiceNotes;
  log?: OutboundSenderDeps['log'];
  /** LISTEN on the database, to hear about messages other processes stored for connections running here. */
  listen?: OutboundSenderDeps['listen'];
  outboundPollMs?: number;
  /** Cloud API message templates (sends outside the 24-hour window). */
  templates?: MessageTemplateService;
  /** Business time: the 24-hour window is measured with it. */
  clock?: Clock;
  /** message.sent for listeners (outgoing webhooks). */
  /** stage: message.sent's outbox row commits with the message (docs/events.md "The outbox"). */
  bus?: Pick<DomainBus, 'emit'> & Partial<Pick<OutboxBus, 'stage' | 'hasDurable'>>;
  /** Whether the company's subscription is blocked (billing): then nothing is sent for it. */
  blocked?: (companyId: number) => Promise<boolean>;
}) {
  const { db, events } = deps;
  const clock = deps.clock ?? systemClock;

  /** #34 Where a ticket's contact is reached: its identity on channels without numbers, else its number. */
  async function addressOf(
    companyId: number,
    ticket: TicketRow,
    contact: { id: number; number: string } | undefined,
  ): Promise<string> {
    if (!contact) return '';
    const [w] = ticket.whatsappId
      ? await db
          .select({ channel: whatsapps.channel })
          .from(whatsapps)
          .where(and(eq(whatsapps.id, ticket.whatsappId), eq(whatsapps.companyId, companyId)))
      : [];
    const kind = identityKindOf(w?.channel);
    return kind ? ((await identityValue(db, companyId, contact.id, kind)) ?? '') : contact.number;
  }

  /**
   * Meta's customer service window (docs/cloud-api.md): on a Cloud API connection free text may go out only
   * within 24 hours of the customer's last message on that connection; afterwards only a template.
   */
  async function conversationWindow(
    companyId: number,
    ticket: TicketRow,
    /** The ticket's connection's channel when the caller holds it already. */
    knownChannel?: string,
  ): Promise<ConversationWindow> {
    const [w] =
      knownChannel !== undefined
        ? [{ channel: knownChannel }]
        : ticket.whatsappId
          ? await db
              .select({ channel: whatsapps.channel })
              .from(whatsapps)
              .where(and(eq(whatsapps.id, ticket.whatsappId), eq(whatsapps.companyId, companyId)))
          : [];
    const channel = w?.channel ?? '';
    if (channel !== 'cloud_api' && !isHumanAgentChannel(channel))
      return { channel, lastInboundAt: null, open: true };
    const [last] = await db
      .select({ at: messages.createdAt })
      .from(messages)
      .where(
        and(
          eq(messages.contactId, ticket.contactId),
          eq(messages.whatsappId, ticket.whatsappId!),
          eq(messages.fromMe, false),
        ),
      )
      .orderBy(desc(messages.createdAt))
      .limit(1);
    const lastInboundAt = last?.at ?? null;
    return {
      channel,
      lastInboundAt: lastInboundAt?.toISOString() ?? null,
      open: windowOpen(channel, lastInboundAt, clock.now()),
      // #34 Instagram/Messenger: after 24 hours (up to 7 days) a reply goes tagged HUMAN_AGENT.
      ...(isHumanAgentChannel(channel) ? { tag: messageTagFor(channel, lastInboundAt, clock.now()) } : {}),
    };
  }
  const voice = deps.voice ?? voiceNotes();

  const visibleTicket = (t: Tenant, ticketId: number): Promise<TicketRow> =>
    visibleTicketRow(db, t, ticketId);

  async function emitMessage(
    companyId: number,
    ticket: TicketRow,
    action: 'create' | 'update',
    row: MessageRow,
  ) {
    return (await emitMessageWith(companyId, ticket, action, row)).message;
  }

  /**
   * emitMessage answering the ticket view it sent too; what the caller holds (the message's relations, the
   * view an announcement of the same message sent a moment ago: deliver's update after its create) is not
   * read again.
   */
  async function emitMessageWith(
    companyId: number,
    ticket: TicketRow,
    action: 'create' | 'update',
    row: MessageRow,
    /** The message's relations (its contact, the quoted message) as the caller holds them. */
    relations?: { contact: MessageView['contact']; quoted: MessageRow | undefined },
    /** The ticket view an announcement of the same message sent a moment ago. */
    known?: { view: TicketView | undefined },
  ) {
    const [message] = relations
      ? [toMessageView(row, { quoted: relations.quoted ?? null, contact: relations.contact })]
      : await withRelations(db, [row]);
    const view = known ? known.view : await ticketQueries.byId(db, companyId, ticket.id);
    const payload = { action, message: message!, ticket: view, contact: view?.contact };
    events.toRoom(
      action === 'create'
        ? ticketEventRooms(companyId, ticket, undefined, { status: true })
        : rooms.ticket(companyId, ticket.id),
      companyId,
      'appMessage',
      payload,
    );
    return { message: message!, view };
  }

  // Edits, deletes and read marks reach the session wherever it runs (messaging/channel-commands.ts).
  const commands = channelCommands({
    db,
    listen: deps.listen,
    sessions: deps.sessions,
    log: deps.log ?? { warn: () => undefined },
  });
  const channelFor = (ticket: TicketRow) => commands.actions(ticket.whatsappId);

  /** One outbound message as `deliver` takes it. */
  type DeliverContent = {
    body: string;
    file?: OutboundFile;
    /** #32.9 A file already in the media store (a forward reuses it: no copy, no download). */
    stored?: { path: string; mimetype: string; filename: string };
    /** #32.9 Sent as a forward (data.forwarded; the channel marks it where it can). */
    forwarded?: boolean;
    quotedMsgId?: number | null;
    userId: number | null;
    /** Stored with the message (an automation marks its answers: `{ automation: kind }`). */
    data?: Record<string, unknown>;
    /** A Cloud API template (`body` is then its rendered text); the only thing allowed outside the window. */
    template?: TemplateSend;
    /**
     * Reply buttons or a list (flows' options on the Cloud API): sent as such where the channel has them;
     * `body` (the same choice as numbered text) is what is stored and what other channels send.
     */
    interactive?: InteractiveSend;
    /** Runs inside the transaction that stores the message and its outbox row: a caller records the
     *  hand-over atomically (a scheduled message marks itself handed over, so a crash never sends twice). */
    onStored?: (tx: Tx, messageId: number) => Promise<void>;
    /** #35.2 A person's message without a user (the external API): the consent rule applies as for `userId`. */
    human?: boolean;
  };
  /** What the caller holds already (the flow runtime: the ticket's contact and connection's channel). */
  type DeliverKnown = { contact?: typeof contacts.$inferSelect; channel?: string };
  /**
   * Statements that commit with deliverMany's messages (a flow's run position and its timer): CTEs of its one
   * statement, or statements of its transaction. `returning`'s first row comes back (raw: column names).
   */
  type AlsoStatements = {
    name?: string;
    returning?: SQL;
    others?: SQL[];
    /**
     * Only with `returning`, and only when the messages go in one statement (storeTogether): more CTEs after
     * `r as (returning)`, which may name it (`where exists (select 1 from r)`); the answer's `staged` says
     * whether they went in.
     */
    afterReturning?: SQL[];
  };

  /**
   * Stores, sends and records one outbound message. `userId` null means the system (bot, greeting).
   * The message and its outbox job are stored in one transaction. When the connection's session runs in
   * this process it is sent at once and the answer says how it went (a failure throws, the message keeps
   * the error); when it runs in another process, the answer is the stored message (ack 0) and the owner
   * sends it (outbound-sender.ts), announcing the outcome as an update.
   */
  async function deliver(
    companyId: number,
    ticket: TicketRow,
    content: DeliverContent,
    known: DeliverKnown = {},
  ): Promise<MessageView> {
    const {
      messages: [view],
    } = await deliverMany(companyId, ticket, [content], known);
    return view!;
  }

  /**
   * `deliver` for several messages of one ticket, in order (a flow's step: docs/flows.md "A step's
   * messages"): the checks once, the messages, their outbox jobs and the ticket's last message in one
   * transaction of one INSERT each, `onBatchStored` in that transaction (the run's new position commits with
   * its messages), one read of the ticket's view for the announcements; then each is sent in order, and the
   * first failure throws once all were tried.
   */
  async function deliverMany(
    companyId: number,
    ticket: TicketRow,
    items: DeliverContent[],
    known: DeliverKnown = {},
    also?: AlsoStatements,
  ): Promise<{ messages: MessageView[]; also: Record<string, unknown> | null; staged: boolean }> {
    if (!items.length) return { messages: [], also: null, staged: false };
    // Every send of a blocked company stops here, whoever asked: bot, automations, timers, ratings, schedules.
    if (await deps.blocked?.(companyId)) throw subscriptionExpired();
    // #35.2 No person writes to a contact whose required consent is pending or refused (docs/privacy.md).
    if (items.some((c) => c.userId != null || c.human) && !ticket.isGroup)
      await assertHumanReplyAllowed(db, companyId, ticket.contactId);
    // #32.4 {{protocol}} in any text sent on a ticket (greetings, bot texts, quick messages, closing message).
    const contents: DeliverContent[] = [];
    for (const c of items)
      contents.push(
        !c.template && c.body ? { ...c, body: await withTicketVariables(db, companyId, ticket, c.body) } : c,
      );
    const whatsappId = ticket.whatsappId;
    if (!whatsappId) throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, 'The ticket has no connection');
    const here = Boolean(deps.sessions()?.get(whatsappId));
    if (!here) {
      // Elsewhere is fine while the connection is meant to run; a logged-out one would never send it.
      const [w] = await db
        .select({ status: whatsapps.status })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
      if (!w || w.status === 'DISCONNECTED')
        throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, 'The connection is not running');
    }
    let channel = known.channel;
    let messageTag: 'HUMAN_AGENT' | undefined;
    if (contents.some((c) => !c.template)) {
      const window = await conversationWindow(companyId, ticket, known.channel);
      channel = window.channel;
      for (const content of contents.filter((c) => !c.template)) {
        // #34 Instagram/Messenger: 7 days after the customer's last message nothing may go out; between 24 hours
        // and 7 days only a person's reply, tagged HUMAN_AGENT (automatic messages are refused like the Cloud API's).
        if (isHumanAgentChannel(window.channel)) {
          if (!window.open)
            throw new AppError(
              'ERR_OUTSIDE_HUMAN_AGENT_WINDOW',
              409,
              `More than ${HUMAN_AGENT_DAYS} days since the customer last wrote: no reply can be sent until they write again`,
              { lastInboundAt: window.lastInboundAt },
            );
          if (window.tag && content.userId == null && !content.human)
            throw new AppError(
              'ERR_OUTSIDE_WINDOW',
              409,
              'More than 24 hours since the customer last wrote: only a person may answer (HUMAN_AGENT)',
              { lastInboundAt: window.lastInboundAt },
            );
          if (window.tag) messageTag = window.tag;
        } else if (!window.open)
          throw new AppError(
            'ERR_OUTSIDE_WINDOW',
            409,
            'More than 24 hours since the customer last wrote: only an approved template can be sent',
            { lastInboundAt: window.lastInboundAt },
          );
      }
    }
    const [contact] =
      known.contact?.id === ticket.contactId
        ? [known.contact]
        : await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
    if (!contact) throw new AppError('ERR_WAPP_INVALID_CONTACT', 400);
    // #34 On a channel without phone numbers the reply goes to the contact's identity of that channel.
    if (channel === undefined) {
      const [w] = await db
        .select({ channel: whatsapps.channel })
        .from(whatsapps)
        .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
      channel = w?.channel ?? '';
    }
    const identityKind = identityKindOf(channel);
    const to = identityKind ? await identityValue(db, companyId, contact.id, identityKind) : contact.number;
    if (!to)
      throw new AppError(
        'ERR_WAPP_INVALID_CONTACT',
        400,
        identityKind ? `The contact has no ${identityKind} identity` : undefined,
      );
    const prepared: {
      content: DeliverContent;
      quoted: MessageRow | undefined;
      job: OutboundJob;
      values: typeof messages.$inferInsert;
      preview: string;
    }[] = [];
    for (const content of contents) {
      let quoted: MessageRow | undefined;
      if (content.quotedMsgId) {
        [quoted] = await db
          .select()
          .from(messages)
          .where(and(eq(messages.id, content.quotedMsgId), eq(messages.ticketId, ticket.id)));
        if (!quoted) throw new AppError('ERR_VALIDATION', 400, 'quoted message not in this ticket');
      }
      let mediaUrl: string | null = content.stored?.path ?? null;
      if (content.file) mediaUrl = await deps.media.save(companyId, content.file.data, content.file.filename);
      const fileMeta = content.file ?? content.stored;
      const tag = content.template ? undefined : messageTag;
      const job: OutboundJob = {
        to,
        body: content.body,
        ...(fileMeta && mediaUrl
          ? {
              file: {
                path: mediaUrl,
                mimetype: fileMeta.mimetype,
                filename: fileMeta.filename,
                ...(content.file?.asVoice !== undefined ? { asVoice: content.file.asVoice } : {}),
              },
            }
          : {}),
        ...(quoted?.providerId ? { quotedProviderId: quoted.providerId } : {}),
        ...(content.forwarded ? { forwarded: true } : {}),
        ...(content.template ? { template: content.template } : {}),
        ...(content.interactive ? { interactive: content.interactive } : {}),
        ...(tag ? { messageTag: tag } : {}),
      };
      const values: typeof messages.$inferInsert = {
        companyId,
        ticketId: ticket.id,
        contactId: ticket.contactId,
        whatsappId,
        providerId: `local-${randomUUID()}`,
        body: content.body,
        mediaType: fileMeta ? mediaTypeOf(fileMeta.mimetype) : null,
        mediaUrl,
        mediaName: fileMeta?.filename ?? null,
        fromMe: true,
        ack: 0,
        read: true,
        quotedMsgId: quoted?.id ?? null,
        userId: content.userId,
        ...(content.data || content.template || content.forwarded
          ? {
              data: {
                ...content.data,
                ...(content.forwarded ? { forwarded: true } : {}),
                ...(content.template
                  ? { template: { name: content.template.name, language: content.template.language.code } }
                  : {}),
              },
            }
          : {}),
      };
      const preview = (content.body || (fileMeta ? `[${mediaTypeOf(fileMeta.mimetype)}]` : '')).slice(0, 255);
      prepared.push({ content, quoted, job, values, preview });
    }
    // One statement when this process sends them and no caller needs a transaction of its own (the flow's
    // step, most sends): no BEGIN/COMMIT, no round trip per table.
    const together = here && !contents.some((c) => c.onStored);
    const staged = together && Boolean(also?.returning && also.afterReturning?.length);
    const { stored, alsoRow, view } = together
      ? await storeTogether(companyId, ticket, whatsappId, prepared, also)
      : {
          ...(await storeInTransaction(companyId, ticket, whatsappId, prepared, here, also)),
          view: undefined,
        };
    for (const { row, meta } of stored)
      deps.bus?.emit('message.sent', { companyId, ticketId: ticket.id, message: row }, meta);
    // The ticket's view for the announcements: built with the messages (storeTogether), or read while they
    // go out (in order, one by one).
    const viewRead = view ? Promise.resolve(view) : ticketQueries.byId(db, companyId, ticket.id);
    const sending = here
      ? (async () => {
          const outcomes = [];
          for (const [i, { row, queueId }] of stored.entries())
            outcomes.push(
              await outbound.sendNow(queueId, { messageId: row.id, whatsappId, job: prepared[i]!.job }),
            );
          return outcomes;
        })()
      : null;
    // Awaited after the announcements; marked handled now so that a failure meanwhile is not "unhandled".
    sending?.catch(() => undefined);
    const viewOf = { view: await viewRead };
    const created: { message: MessageView; quoted: MessageRow | undefined }[] = [];
    for (const [i, { row }] of stored.entries()) {
      const quoted = prepared[i]!.quoted;
      const c = await emitMessageWith(
        companyId,
        ticket,
        'create',
        row,
        { contact: { id: contact.id, name: contact.name }, quoted },
        viewOf,
      );
      created.push({ message: c.message, quoted });
    }
    if (!sending) return { messages: created.map((c) => c.message), also: alsoRow, staged };
    const views: MessageView[] = [];
    let failure: AppError | undefined;
    for (const [i, outcome] of (await sending).entries()) {
      const row = stored[i]!.row;
      const [after] = outcome.message
        ? [{ ...row, ...outcome.message }]
        : await db.select().from(messages).where(eq(messages.id, row.id));
      // The same message a moment later: its ticket view and relations as the create announced them.
      const { message: view } = await emitMessageWith(
        companyId,
        ticket,
        'update',
        after!,
        { contact: created[i]!.message.contact, quoted: created[i]!.quoted },
        viewOf,
      );
      views.push(view);
      if (!outcome.ok) failure ??= new AppError(outcome.code as ErrorCode, 400, outcome.reason);
    }
    // Stored (with the caller's `also`, and its afterReturning rows when `staged`) and not sent.
    if (failure) throw Object.assign(failure, { staged });
    return { messages: views, also: alsoRow, staged };
  }

  type Prepared = {
    content: DeliverContent;
    quoted: MessageRow | undefined;
    job: OutboundJob;
    values: typeof messages.$inferInsert;
    preview: string;
  };
  type Stored = { row: MessageRow; queueId: number; meta: EmitMeta | undefined }[];

  /**
   * deliverMany's messages, their outbound jobs (claimed by this process), the ticket's last message, their
   * `message.sent` outbox rows (ids only: the sweep rebuilds them, `rebuildSent`) and the caller's `also`
   * statements: one statement of data-modifying CTEs, atomic without a transaction, prepared by its text.
   */
  async function storeTogether(
    companyId: number,
    ticket: TicketRow,
    whatsappId: number,
    prepared: Prepared[],
    also?: AlsoStatements,
  ): Promise<{ stored: Stored; alsoRow: Record<string, unknown> | null; view: TicketView | undefined }> {
    const durable = Boolean(deps.bus?.stage) && (deps.bus?.hasDurable?.('message.sent') ?? true);
    const at = new Date();
    const now = at.toISOString();
    const items = prepared.map((p, i) => ({
      i,
      provider_id: p.values.providerId,
      body: p.values.body ?? '',
      media_type: p.values.mediaType ?? null,
      media_url: p.values.mediaUrl ?? null,
      media_name: p.values.mediaName ?? null,
      quoted_msg_id: p.values.quotedMsgId ?? null,
      user_id: p.values.userId ?? null,
      data: p.values.data ?? null,
      job: p.job,
      outbox_id: durable ? randomUUID() : null,
    }));
    const others = (also?.others ?? []).map((q, i) => sql`, ${sql.raw(`also_${i}`)} as (${q})`);
    const after = also?.returning
      ? (also.afterReturning ?? []).map((q, i) => sql`, ${sql.raw(`after_${i}`)} as (${q})`)
      : [];
    const query = sql`with x as (
        select * from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as x(i int, provider_id text, body text,
          media_type text, media_url text, media_name text, quoted_msg_id bigint, user_id int, data jsonb, job jsonb,
          outbox_id uuid)),
      m as (
        insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, media_type, media_url,
          media_name, from_me, ack, read, quoted_msg_id, user_id, data)
        select ${companyId}::int, ${ticket.id}::int, ${ticket.contactId}::int, ${whatsappId}::int, x.provider_id, x.body,
          x.media_type, x.media_url, x.media_name, true, 0, true, x.quoted_msg_id, x.user_id, x.data
        from x order by x.i
        returning *),
      t as (
        update tickets set last_message = ${prepared[prepared.length - 1]!.preview}, last_message_at = ${now}::timestamptz,
          updated_at = ${now}::timestamptz,
          first_response_at = coalesce(first_response_at, (select min(m.created_at) from m where m.user_id is not null))
        where id = ${ticket.id}::int
        returning *),
      q as (
        insert into outbound_queue (message_id, company_id, whatsapp_id, status, claimed_by, claimed_at, job)
        select m.id, ${companyId}::int, ${whatsappId}::int, 'sending', ${outbound.claimant()}, ${now}::timestamptz, x.job
        from m join x on x.provider_id = m.provider_id order by x.i
        returning id, message_id),
      o as (
        insert into event_outbox (id, company_id, event, payload, created_at)
        select x.outbox_id, ${companyId}::int, 'message.sent',
          json_build_object('$rebuild', json_build_object('messageId', m.id))::text, ${now}::timestamptz
        from m join x on x.provider_id = m.provider_id where x.outbox_id is not null)
      ${sql.join(others, sql``)}${also?.returning ? sql`, r as (${also.returning})` : sql``}${sql.join(after, sql``)}
      select (select json_agg(row_to_json(m)) from m) as messages,
        (select json_agg(json_build_object('id', q.id, 'message_id', q.message_id)) from q) as queue,
        ${viewJsonOf('t')} as view
        ${also?.returning ? sql`, (select row_to_json(r) from r limit 1) as also` : sql``}`;
    const [res] = await executeRows<{ messages: unknown; queue: unknown; view: unknown; also?: unknown }>(
      db,
      query,
      `deliver_${durable ? 'd' : 'n'}_${others.length}_${also?.returning ? (also.name ?? 'r') : '-'}_${after.length}`,
    );
    const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
    const rows = json<Record<string, unknown>[]>(res!.messages).map((r) => rowOf(messages, r));
    const queue = json<{ id: number; message_id: number }[]>(res!.queue);
    const byLocalId = new Map(rows.map((m) => [m.providerId, m]));
    const queueOf = new Map(queue.map((q) => [Number(q.message_id), Number(q.id)]));
    const stored = items.map((item) => {
      const row = byLocalId.get(item.provider_id!)!;
      return {
        row,
        queueId: queueOf.get(row.id)!,
        meta: item.outbox_id ? ({ outboxId: item.outbox_id, at } as EmitMeta) : ({} as EmitMeta),
      };
    });
    const alsoRow =
      res!.also === undefined || res!.also === null ? null : json<Record<string, unknown>>(res!.also);
    return { stored, alsoRow, view: viewFromJson(res!.view) };
  }

  /** deliverMany's storing in a transaction: items with `onStored`, or a connection whose session runs elsewhere. */
  async function storeInTransaction(
    companyId: number,
    ticket: TicketRow,
    whatsappId: number,
    prepared: Prepared[],
    here: boolean,
    also?: AlsoStatements,
  ): Promise<{ stored: Stored; alsoRow: Record<string, unknown> | null }> {
    return db.transaction(async (tx) => {
      const inserted = await tx
        .insert(messages)
        .values(prepared.map((p) => p.values))
        .returning();
      // In the order given (RETURNING's order is not promised): each row by its local id.
      const byLocalId = new Map(inserted.map((m) => [m.providerId, m]));
      const rows = prepared.map((p) => byLocalId.get(p.values.providerId!)!);
      const personal = rows.find((m, i) => prepared[i]!.content.userId != null);
      await lastMessageQuery(tx).execute({
        id: ticket.id,
        preview: prepared[prepared.length - 1]!.preview,
        now: new Date().toISOString(),
        // A person's first message is the ticket's first response (docs/metrics.md); the bot's are not.
        firstResponse: personal ? personal.createdAt.toISOString() : null,
      });
      const queueIds = await outbound.enqueueMany(
        tx,
        rows.map((m, i) => ({ messageId: m.id, companyId, whatsappId, job: prepared[i]!.job })),
        here,
      );
      for (const [i, m] of rows.entries()) await prepared[i]!.content.onStored?.(tx, m.id);
      for (const q of also?.others ?? []) await tx.execute(q);
      const [alsoRow] = also?.returning ? await executeRows(tx as unknown as Db, also.returning) : [];
      const metas =
        (await deps.bus?.stage?.(
          tx,
          rows.map((m) => ({
            event: 'message.sent' as const,
            payload: { companyId, ticketId: ticket.id, message: m },
          })),
        )) ?? [];
      return {
        stored: rows.map((row, i) => ({ row, queueId: queueIds[i]!, meta: metas[i] })),
        alsoRow: alsoRow ?? null,
      };
    });
  }

  /** The owner process sent (or failed to send) a message stored elsewhere: announce it like a direct send. */
  async function announceOutcome(messageId: number) {
    const [m] = await db.select().from(messages).where(eq(messages.id, messageId));
    if (!m) return;
    const [ticket] = await db.select().from(tickets).where(eq(tickets.id, m.ticketId));
    if (ticket) await emitMessage(m.companyId, ticket, 'update', m);
  }

  const outbound: OutboundSender = outboundSender({
    db,
    media: deps.media,
    log: deps.log ?? { warn: () => undefined, error: () => undefined },
    sessions: deps.sessions,
    listen: deps.listen,
    pollMs: deps.outboundPollMs,
    // Messages sent here directly are announced by deliver itself.
    onDone: (messageId) => announceOutcome(messageId),
  });

  return {
    deliver,
    deliverMany,
    conversationWindow,
    /** The outbox worker: app.ts starts it with the sessions and stops it on close. */
    outbound,
    commands,

    async list(t: Tenant, ticketId: number, pageNumber: number) {
      const ticket = await visibleTicket(t, ticketId);
      const page = await messagePage(db, ticketId, pageNumber);
      return {
        ...page,
        ticket: await ticketQueries.byId(db, t.companyId, ticket.id),
        window: await conversationWindow(t.companyId, ticket),
      };
    },

    async send(t: Tenant, ticketId: number, input: MessageSend, files: OutboundFile[] = []) {
      const ticket = await visibleTicket(t, ticketId);
      // A message goes out only on an open ticket (accept or reopen first).
      if (ticket.status !== 'open')
        throw new AppError('ERR_NO_PERMISSION', 403, 'Accept the ticket before answering');
      if (input.template) {
        if (files.length) throw new AppError('ERR_VALIDATION', 400, 'A template takes no attached files');
        if (!deps.templates || !ticket.whatsappId) throw new AppError('ERR_NO_TEMPLATE_FOUND', 404);
        const prepared = await deps.templates.prepareSend(t.companyId, ticket.whatsappId, input.template);
        return deliver(t.companyId, ticket, {
          body: prepared.body,
          template: prepared.template,
          userId: t.userId,
        });
      }
      const body = input.body.trim();
      if (!body && !files.length) throw new AppError('ERR_VALIDATION', 400, 'empty message');
      if (!files.length)
        return deliver(t.companyId, ticket, { body, quotedMsgId: input.quotedMsg?.id, userId: t.userId });
      const sent = [];
      // Several files: the caption goes with the first one.
      for (const [i, upload] of files.entries()) {
        const { recording, ...rest } = upload;
        const file: OutboundFile = recording ? await voice.prepare(rest) : { ...rest, asVoice: false };
        sent.push(
          await deliver(t.companyId, ticket, {
            body: i === 0 ? body : '',
            file,
            quotedMsgId: i === 0 ? input.quotedMsg?.id : null,
            userId: t.userId,
          }),
        );
      }
      return sent[sent.length - 1];
    },

    /** Only one's own messages can be deleted (docs/product.md#states). */
    async remove(t: Tenant, messageId: number) {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m) throw new AppError('ERR_NOT_FOUND', 404, 'message not found');
      const ticket = await visibleTicket(t, m.ticketId);
      if (!m.fromMe || m.userId !== t.userId)
        throw new AppError('ERR_NO_PERMISSION', 403, 'Only your own messages');
      const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
      try {
        await (
          await channelFor(ticket)
        ).deleteMessage(await addressOf(t.companyId, ticket, contact), m.providerId, true);
      } catch (err) {
        throw new AppError('ERR_DELETE_WAPP_MSG', 400, err instanceof Error ? err.message : undefined);
      }
      const [updated] = await db
        .update(messages)
        .set({ isDeleted: true, updatedAt: new Date() })
        .where(eq(messages.id, m.id))
        .returning();
      return emitMessage(t.companyId, ticket, 'update', updated!);
    },

    async edit(t: Tenant, messageId: number, body: string) {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m) throw new AppError('ERR_NOT_FOUND', 404, 'message not found');
      const ticket = await visibleTicket(t, m.ticketId);
      if (!m.fromMe || m.userId !== t.userId || m.isDeleted || m.mediaType)
        throw new AppError('ERR_NO_PERMISSION', 403);
      const channel = await channelFor(ticket);
      if (!channel.editMessage)
        throw new AppError('ERR_SENDING_WAPP_MSG', 400, 'This channel cannot edit messages');
      const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
      // An edit changes the text after the signature; the signature the message went with stays.
      const { signature } = splitSignature(m.body);
      const typed = splitSignature(body);
      const full = signature + (typed.signature === signature ? typed.text : body);
      await channel.editMessage(await addressOf(t.companyId, ticket, contact), m.providerId, full);
      const [updated] = await db
        .update(messages)
        .set({ body: full, isEdited: true, updatedAt: new Date() })
        .where(eq(messages.id, m.id))
        .returning();
      // The ticket lists preview the last message: an edit of that one shows there too (no reordering).
      const [previewed] = await db
        .update(tickets)
        .set({ lastMessage: full })
        .where(and(eq(tickets.id, ticket.id), eq(tickets.lastMessage, m.body)))
        .returning({ id: tickets.id });
      const view = previewed ? await ticketQueries.byId(db, t.companyId, ticket.id) : null;
      if (view)
        events.toRoom(ticketEventRooms(t.companyId, view), t.companyId, 'ticket', {
          action: 'update',
          ticket: view,
        });
      return emitMessage(t.companyId, ticket, 'update', updated!);
    },

    /** The attendant opened the ticket: unread goes to 0 and the customer sees blue ticks. */
    async markRead(t: Tenant, ticketId: number) {
      const ticket = await visibleTicket(t, ticketId);
      const unread = await db
        .update(messages)
        .set({ read: true })
        .where(and(eq(messages.ticketId, ticket.id), eq(messages.fromMe, false), eq(messages.read, false)))
        .returning({ providerId: messages.providerId });
      await db.update(tickets).set({ unreadMessages: 0 }).where(eq(tickets.id, ticket.id));
      const channel = unread.length ? await channelFor(ticket).catch(() => undefined) : undefined;
      if (channel && unread.length) {
        const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
        await channel
          .markRead(
            await addressOf(t.companyId, ticket, contact),
            unread.map((u) => u.providerId),
          )
          .catch(() => undefined);
      }
      const view = await ticketQueries.byId(db, t.companyId, ticket.id);
      const lists = ticketRooms(t.companyId, statusScope(ticket.status), ticket);
      events.toRoom(lists, t.companyId, 'ticket', {
        action: 'updateUnread',
        ticketId: ticket.id,
        ticket: view,
      });
      return view;
    },

    async mediaFile(t: Tenant, messageId: number) {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.companyId, t.companyId)));
      if (!m?.mediaUrl || m.isDeleted || !deps.media.belongsTo(m.mediaUrl, t.companyId))
        throw new AppError('ERR_NOT_FOUND', 404);
      await visibleTicket(t, m.ticketId);
      return {
        data: await deps.media.read(m.mediaUrl),
        filename: m.mediaName ?? 'file',
        mediaType: m.mediaType,
      };
    },
    toMessageView,
    /** Announces a stored message's change (a voice note's transcription added) to its ticket's room. */
    announce: announceOutcome,
  };
}
export type MessageService = ReturnType<typeof messageService>;

/** #31 The sweep's way back from a `message.sent` outbox row deliverMany's one statement wrote (the message's id). */
export function rebuildSent(db: Db) {
  return async (partial: unknown): Promise<DomainEvents['message.sent'] | null> => {
    const p = partial as { messageId?: unknown };
    if (typeof p.messageId !== 'number') return null;
    const [message] = await db.select().from(messages).where(eq(messages.id, p.messageId));
    return message ? { companyId: message.companyId, ticketId: message.ticketId, message } : null;
  };
}
