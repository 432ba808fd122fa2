import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import {
  API_NUMBER_PATTERN,
  normalizeNumber,
  priorityRank,
  type ApiCheckResult,
  type ApiMessageStatus,
  type ApiScheduleInput,
  type ApiScheduleResult,
  type ApiSendInput,
  type ApiSendResult,
  type TicketView,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import {
  apiSendKeys,
  contactIdentities,
  contacts,
  messages,
  ticketHistories,
  tickets,
  whatsapps,
} from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import { localReach, type Reach } from '../../messaging/channel-commands.js';
import type { DomainBus } from '../../events/domain-events.js';
import { requirePlanFlag } from '../companies/company-queries.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import type { MessageService, OutboundFile } from '../messages/message-service.js';
import type { ScheduleService } from '../schedules/schedule-service.js';
import { hashApiToken, sameHash } from './api-token.js';
import { identityKindOf, identityValue } from '../contacts/contact-identities.js';

type WhatsappRow = typeof whatsapps.$inferSelect;
type TicketRow = typeof tickets.$inferSelect;
type ContactRow = typeof contacts.$inferSelect;
type KeyRow = typeof apiSendKeys.$inferSelect;
type SendAnswer = Omit<ApiSendResult, 'duplicate'>;

/** An incomplete claim without progress for this long was left by a crash: the next call takes it over. */
export const STALE_CLAIM_MS = 60_000;

/** Thrown inside a message's transaction (rolling it back) when another call holds the key. */
class KeyTaken extends Error {}

/** The connection a token opens: every call acts for its company, through it. */
export interface ApiCaller {
  companyId: number;
  whatsappId: number;
}

/** States that need a person (scan a QR code, reconnect): a message sent now would wait indefinitely. */
const NOT_SENDING = new Set(['DISCONNECTED', 'qrcode', 'PAIRING', 'TIMEOUT']);
const CHECK_TIMEOUT_MS = 10_000;

/**
 * The external messaging API (docs/external-api.md): a connection's token sends, schedules and reads the
 * status of messages of that connection's company. The same rules as an attendant's reply: the contact by
 * its canonical number, the active ticket of the contact on this connection or a new one, the message and
 * its outbox row stored together (messageService.deliver).
 */
export function externalApiService(deps: {
  db: Db;
  messages: MessageService;
  schedules: ScheduleService;
  sessions: () => SessionManager | undefined;
  /** The connection's channel wherever its session runs (channel-commands.ts); default: this process's only. */
  reach?: Reach;
  emitTicket: (companyId: number, view: TicketView) => void;
  bus?: Pick<DomainBus, 'emit'>;
  log: { warn(o: object, m: string): void };
}) {
  const { db } = deps;

  /** `Authorization: Bearer <token>` → the connection; 401 for anything else, 403 without the plan flag. */
  async function authenticate(header: string | undefined): Promise<ApiCaller> {
    const m = /^Bearer\s+(\S{16,200})\s*$/i.exec(header ?? '');
    if (!/^Bearer\s/i.test(header ?? ''))
      throw new AppError(
        'ERR_INVALID_API_TOKEN',
        401,
        "A connection token is required: 'Authorization: Bearer <token>'",
      );
    if (!m) throw new AppError('ERR_INVALID_API_TOKEN', 401, 'Invalid connection token');
    const hash = hashApiToken(m[1]!);
    const [w] = await db
      .select({ id: whatsapps.id, companyId: whatsapps.companyId, hash: whatsapps.apiTokenHash })
      .from(whatsapps)
      .where(eq(whatsapps.apiTokenHash, hash));
    if (!w?.hash || !sameHash(w.hash, hash))
      throw new AppError('ERR_INVALID_API_TOKEN', 401, 'Invalid connection token');
    await requirePlanFlag(db, w.companyId, 'useExternalApi', 'the external API');
    return { companyId: w.companyId, whatsappId: w.id };
  }

  async function connection(c: ApiCaller): Promise<WhatsappRow> {
    const [w] = await db
      .select()
      .from(whatsapps)
      .where(and(eq(whatsapps.id, c.whatsappId), eq(whatsapps.companyId, c.companyId)));
    if (!w) throw new AppError('ERR_INVALID_API_TOKEN', 401, 'Invalid connection token');
    return w;
  }

  function canonical(raw: string): string {
    const number = API_NUMBER_PATTERN.test(raw) ? normalizeNumber(raw) : '';
    if (!number || number.length < 10 || number.length > 15)
      throw new AppError('ERR_WAPP_INVALID_CONTACT', 400, 'Invalid phone number', {
        fields: [{ path: 'number', message: 'invalid phone number' }],
      });
    return number;
  }

  /** The company's contact with this canonical number, created (named after the number) when missing. */
  async function contactFor(companyId: number, number: string): Promise<ContactRow> {
    const [created] = await db
      .insert(contacts)
      .values({ companyId, name: number, number })
      .onConflictDoNothing({ target: [contacts.companyId, contacts.number], where: sql`number <> ''` })
      .returning();
    if (created) {
      deps.bus?.emit('contact.created', { companyId, contact: created, by: null });
      return created;
    }
    const [found] = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), eq(contacts.number, number)));
    if (!found) throw new AppError('ERR_NO_CONTACT_FOUND', 404);
    return found;
  }

  /**
   * #34.4 The message's contact: by phone number (created when missing), by id, or by an identity of a channel
   * without phone numbers (docs/external-api.md); another company's id or an unknown identity is not found.
   * The connection must be able to reach it: its identity of the connection's channel, or a number on a
   * phone channel (ERR_WAPP_INVALID_CONTACT otherwise, before any ticket is opened).
   */
  async function recipient(
    w: WhatsappRow,
    input: Pick<ApiSendInput, 'number' | 'contactId' | 'identity'>,
  ): Promise<ContactRow> {
    let contact: ContactRow | undefined;
    if (input.number !== undefined) contact = await contactFor(w.companyId, canonical(input.number));
    else {
      const byId = input.contactId
        ? eq(contacts.id, input.contactId)
        : sql`${contacts.id} = (select i.contact_id from ${contactIdentities} i where i.company_id = ${w.companyId}
            and i.kind = ${input.identity!.kind} and i.value = ${input.identity!.value})`;
      [contact] = await db
        .select()
        .from(contacts)
        .where(and(eq(contacts.companyId, w.companyId), byId));
      if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND', 404, 'Contact not found');
    }
    const kind = identityKindOf(w.channel);
    const reachable = kind ? await identityValue(db, w.companyId, contact.id, kind) : contact.number;
    if (!reachable)
      throw new AppError(
        'ERR_WAPP_INVALID_CONTACT',
        400,
        kind ? `The contact has no ${kind} identity for this connection` : 'The contact has no phone number',
      );
    return contact;
  }

  /** The contact's active ticket on this connection, or a new pending one (waiting for an attendant). */
  async function ticketFor(w: WhatsappRow, contact: ContactRow): Promise<TicketRow> {
    const active = () =>
      db
        .select()
        .from(tickets)
        .where(
          and(
            eq(tickets.companyId, w.companyId),
            eq(tickets.contactId, contact.id),
            eq(tickets.whatsappId, w.id),
            sql`${tickets.status} <> 'closed'`,
          ),
        )
        .orderBy(desc(tickets.updatedAt))
        .limit(1);
    const [open] = await active();
    if (open) return open;
    let created: TicketRow | undefined;
    try {
      [created] = await db
        .insert(tickets)
        .values({
          companyId: w.companyId,
          contactId: contact.id,
          whatsappId: w.id,
          status: 'pending',
          isGroup: contact.isGroup,
        })
        .returning();
    } catch (err) {
      // A customer's message opened one meanwhile: use it.
      if (!isUniqueViolation(err, 'tickets_one_active_uq')) throw err;
      const [raced] = await active();
      if (!raced) throw err;
      return raced;
    }
    await db.insert(ticketHistories).values({
      companyId: w.companyId,
      ticketId: created!.id,
      action: 'create',
      whatsappId: w.id,
      status: created!.status,
      data: { by: 'api' },
    });
    const view = await ticketQueries.byId(db, w.companyId, created!.id);
    if (view) deps.emitTicket(w.companyId, view);
    deps.bus?.emit('ticket.created', { companyId: w.companyId, ticketId: created!.id });
    return created!;
  }

  async function sendNow(
    c: ApiCaller,
    input: ApiSendInput,
    files: OutboundFile[],
    resume: {
      /** Messages an earlier call with the same key stored (it crashed): those parts are not sent again. */
      sent?: number[];
      /** Runs in each message's transaction with the answer so far (the idempotency claim records it). */
      onStored?: (tx: Tx, answer: SendAnswer) => Promise<void>;
    } = {},
  ): Promise<SendAnswer> {
    const w = await connection(c);
    if (NOT_SENDING.has(w.status))
      throw new AppError('ERR_WAPP_NOT_INITIALIZED', 409, `The connection is ${w.status}`);
    const body = input.body.trim();
    if (input.number !== undefined) canonical(input.number);
    if (!body && !files.length) throw new AppError('ERR_VALIDATION', 400, 'body or medias is required');
    const contact = await recipient(w, input);
    let ticket = await ticketFor(w, contact);
    if (input.priority && priorityRank(input.priority) !== ticket.priority) {
      // The integrator's priority (#30.6) is the ticket's from now on; the lists hear it.
      [ticket] = (await db
        .update(tickets)
        .set({ priority: priorityRank(input.priority), updatedAt: new Date() })
        .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, c.companyId)))
        .returning()) as [TicketRow];
      const view = await ticketQueries.byId(db, c.companyId, ticket.id);
      if (view) deps.emitTicket(c.companyId, view);
    }
    const ids = [...(resume.sent ?? [])];
    const answer = (): SendAnswer => ({
      messageId: ids[ids.length - 1]!,
      messageIds: [...ids],
      ticketId: ticket.id,
      protocol: ticket.protocol,
      contactId: contact.id,
    });
    const parts = files.length ? files : [undefined];
    // Several files: the caption goes with the first one (as an attendant's reply).
    for (const [i, file] of parts.entries()) {
      if (i < ids.length) continue;
      const onStored = resume.onStored;
      const sent = await deps.messages.deliver(c.companyId, ticket, {
        body: i === 0 ? body : '',
        file: file ? { ...file, asVoice: false } : undefined,
        quotedMsgId: i === 0 ? (input.quotedMsgId ?? null) : null,
        userId: null,
        human: true,
        ...(onStored
          ? {
              onStored: (tx: Tx, messageId: number) => {
                ids.push(messageId);
                return onStored(tx, answer());
              },
            }
          : {}),
      });
      if (!onStored) ids.push(sent.id);
    }
    return answer();
  }

  const keyRow = async (whatsappId: number, key: string) =>
    (
      await db
        .select()
        .from(apiSendKeys)
        .where(and(eq(apiSendKeys.whatsappId, whatsappId), eq(apiSendKeys.externalKey, key)))
    )[0];

  /** The answer a claim holds once every message of its call is stored; undefined before. */
  const finished = (row: KeyRow): SendAnswer | undefined => {
    const a = row.answer as SendAnswer | null;
    return a && Array.isArray(a.messageIds) && a.messageIds.length >= row.parts ? a : undefined;
  };

  const inProgress = () =>
    new AppError('ERR_EXTERNAL_KEY_IN_PROGRESS', 409, 'The first call with this key is still sending');

  return {
    authenticate,

    /**
     * POST /api/messages/send; with an externalKey the first answer is kept and repeated. The claim on the key
     * is stored in the transaction of the call's first message and updated in each next one's, so a crash
     * leaves either nothing (the key is free) or the messages stored so far, recorded on the claim (each then
     * reaches the customer through the outbox). A claim a crash left incomplete (files not yet stored) is
     * taken over by the next call with its key after STALE_CLAIM_MS without progress, which sends the rest.
     */
    async send(c: ApiCaller, input: ApiSendInput, files: OutboundFile[] = []): Promise<ApiSendResult> {
      if (!input.externalKey) return { ...(await sendNow(c, input, files)), duplicate: false };
      const key = input.externalKey;
      const token = randomUUID();
      let sent: number[] = [];
      let claimId: number | undefined;
      const first = await keyRow(c.whatsappId, key);
      if (first) {
        const done = finished(first);
        if (done) return { ...done, duplicate: true };
        const [taken] = await db
          .update(apiSendKeys)
          .set({ claimToken: token, updatedAt: sql`now()` })
          .where(
            and(
              eq(apiSendKeys.id, first.id),
              eq(apiSendKeys.claimToken, first.claimToken),
              sql`${apiSendKeys.updatedAt} < now() - make_interval(secs => ${STALE_CLAIM_MS / 1000})`,
            ),
          )
          .returning({ id: apiSendKeys.id });
        if (!taken) throw inProgress();
        claimId = taken.id;
        const before = (first.answer as SendAnswer | null)?.messageIds;
        sent = Array.isArray(before) ? before : [];
      }
      const record = async (tx: Tx, answer: SendAnswer) => {
        if (claimId === undefined) {
          const [mine] = await tx
            .insert(apiSendKeys)
            .values({
              companyId: c.companyId,
              whatsappId: c.whatsappId,
              externalKey: key,
              parts: Math.max(files.length, 1),
              claimToken: token,
              answer,
            })
            .onConflictDoNothing()
            .returning({ id: apiSendKeys.id });
          // Another call with this key stored its first message meanwhile: this one stores nothing.
          if (!mine) throw new KeyTaken();
          claimId = mine.id;
          return;
        }
        const [still] = await tx
          .update(apiSendKeys)
          .set({ answer, updatedAt: sql`now()` })
          .where(and(eq(apiSendKeys.id, claimId), eq(apiSendKeys.claimToken, token)))
          .returning({ id: apiSendKeys.id });
        if (!still) throw new KeyTaken();
      };
      try {
        const answer = await sendNow(c, input, files, { sent, onStored: record });
        return { ...answer, duplicate: false };
      } catch (err) {
        if (err instanceof KeyTaken) {
          const other = await keyRow(c.whatsappId, key);
          const done = other && finished(other);
          if (done) return { ...done, duplicate: true };
          throw inProgress();
        }
        // Nothing answered: the key is free for a retry (a message the channel refused stays on the ticket).
        if (claimId !== undefined)
          await db
            .delete(apiSendKeys)
            .where(and(eq(apiSendKeys.id, claimId), eq(apiSendKeys.claimToken, token)));
        throw err;
      }
    },

    /** POST /api/messages/schedule: a schedule on this connection (plan flag useSchedules too). */
    async schedule(c: ApiCaller, input: ApiScheduleInput): Promise<ApiScheduleResult> {
      await requirePlanFlag(db, c.companyId, 'useSchedules', 'schedules');
      const contact = await recipient(await connection(c), input);
      const s = await deps.schedules.createFromApi(c.companyId, {
        body: input.body,
        contactId: contact.id,
        sendAt: input.sendAt,
        whatsappId: c.whatsappId,
      });
      return { scheduleId: s.id, contactId: contact.id, sendAt: s.sendAt, status: s.status };
    },

    /** GET /api/messages/status/{id}: a message of the token's company. */
    async status(c: ApiCaller, id: number): Promise<ApiMessageStatus> {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, id), eq(messages.companyId, c.companyId)));
      if (!m) throw new AppError('ERR_NOT_FOUND', 404, 'Message not found');
      const error = (m.data as { error?: unknown } | null)?.error;
      return {
        id: m.id,
        ticketId: m.ticketId,
        fromMe: m.fromMe,
        ack: m.ack,
        error: typeof error === 'string' ? error : null,
        createdAt: m.createdAt.toISOString(),
        updatedAt: m.updatedAt.toISOString(),
      };
    },

    /** POST /api/contacts/check: asks the connection whether the number is on WhatsApp. */
    async check(c: ApiCaller, raw: string): Promise<ApiCheckResult> {
      const number = canonical(raw);
      const channel = await (deps.reach ?? localReach(deps.sessions))(c.whatsappId);
      if (!channel) {
        const w = await connection(c);
        if (NOT_SENDING.has(w.status))
          throw new AppError('ERR_WAPP_NOT_INITIALIZED', 409, `The connection is ${w.status}`);
        return { number, exists: null };
      }
      try {
        const answer = await Promise.race([
          channel.checkNumber(number),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref?.(),
          ),
        ]);
        return { number: answer.number ?? number, exists: answer.exists };
      } catch (err) {
        deps.log.warn({ err, whatsappId: c.whatsappId }, 'number check failed');
        return { number, exists: null };
      }
    },
  };
}
export type ExternalApiService = ReturnType<typeof externalApiService>;
