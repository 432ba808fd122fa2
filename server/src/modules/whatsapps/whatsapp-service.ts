import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import {
  SECRET_MASK,
  type ConnectionToken,
  type Whatsapp,
  type WhatsappInput,
  type WhatsappUpdate,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import {
  companies,
  inboundFailures,
  plans,
  queues,
  whatsappQueues,
  whatsapps,
} from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { assertCompanyRefs } from '../../db/company-refs.js';
import type { Events } from '../../realtime/events.js';
import type { SessionManager } from '../../messaging/session-manager.js';
import type { StateUpdate } from '../../messaging/channel.js';
import type { SecretBox } from '../../lib/crypto.js';
import { hashApiToken, newApiToken } from '../external-api/api-token.js';
import { lastRecoveries, trackOutage } from '../../messaging/connection-outages.js';

type Row = typeof whatsapps.$inferSelect;

/** Keys whose values never leave the server (sealed Cloud API secrets); the webhook verify token is shown. */
const SECRET_KEY = /sealed|secret|password/i;
export const maskConfig = (config: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [k, SECRET_KEY.test(k) && v ? '********' : v]));

/**
 * Where the last state's reason is kept: inside channelConfig (no schema change), replaced by every state
 * update, dropped whenever the admin saves new channel settings, never shown as a setting.
 */
const STATUS_REASON = 'statusReason';
const isReason = (v: unknown): v is { reason: string; detail?: string } =>
  typeof v === 'object' && v !== null && typeof (v as { reason?: unknown }).reason === 'string';

const reasonOf = (d: { reason: string; detail?: string }) => ({
  reason: d.reason.slice(0, 100),
  ...(d.detail ? { detail: d.detail.slice(0, 500) } : {}),
});

export interface WhatsappServiceDeps {
  db: Db;
  events: Events;
  sessions: () => SessionManager | undefined;
  /** Seals channel secrets before they are stored (Cloud API). */
  sealConfig?: (
    channel: string,
    config: Record<string, unknown>,
    previous?: Record<string, unknown>,
  ) => Record<string, unknown>;
  /** Seals the external API token (shown to admins on request). */
  box?: SecretBox;
}

export function whatsappService(deps: WhatsappServiceDeps) {
  const { db, events } = deps;

  async function view(rows: Row[]): Promise<Whatsapp[]> {
    if (!rows.length) return [];
    const links = await db
      .select({
        whatsappId: whatsappQueues.whatsappId,
        id: queues.id,
        name: queues.name,
        color: queues.color,
      })
      .from(whatsappQueues)
      .innerJoin(queues, eq(queues.id, whatsappQueues.queueId))
      .where(
        inArray(
          whatsappQueues.whatsappId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(asc(queues.orderQueue), asc(queues.name));
    // #33.3 "N mensagens recuperadas após X h offline": the last outage that recovered messages.
    const recoveries = await lastRecoveries(
      db,
      rows[0]!.companyId,
      rows.map((r) => r.id),
    );
    return rows.map((r) => {
      const {
        leaseOwner: _o,
        leaseExpiresAt: _e,
        companyId: _c,
        createdAt: _cr,
        apiTokenHash,
        apiTokenSealed: _s,
        ...rest
      } = r;
      const { [STATUS_REASON]: reason, ...config } = r.channelConfig ?? {};
      const showReason = (r.status === 'DISCONNECTED' || r.status === 'TIMEOUT') && isReason(reason);
      return {
        ...rest,
        channel: r.channel as Whatsapp['channel'],
        status: r.status as Whatsapp['status'],
        groupMode: r.groupMode as Whatsapp['groupMode'],
        callMode: r.callMode as Whatsapp['callMode'],
        channelConfig: maskConfig(config),
        // The API token is revealed only by GET /whatsapp/{id}/token (admins).
        token: apiTokenHash ? SECRET_MASK : '',
        ...(showReason ? { statusReason: reason } : {}),
        recovery: recoveries.get(r.id) ?? null,
        updatedAt: r.updatedAt.toISOString(),
        queues: links
          .filter((l) => l.whatsappId === r.id)
          .map(({ id, name, color }) => ({ id, name, color })),
      };
    });
  }

  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(whatsapps)
      .where(and(eq(whatsapps.id, id), eq(whatsapps.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_WAPP_FOUND', 404);
    return r;
  }

  const get = async (t: Tenant, id: number) => (await view([await row(t.companyId, id)]))[0]!;

  async function setQueues(tx: Tx, companyId: number, whatsappId: number, queueIds: number[]) {
    const unique = [...new Set(queueIds)];
    if (unique.length) {
      const owned = await tx
        .select({ id: queues.id })
        .from(queues)
        .where(and(eq(queues.companyId, companyId), inArray(queues.id, unique)));
      if (owned.length !== unique.length) throw new AppError('ERR_VALIDATION', 400, 'unknown queue');
    }
    await tx.delete(whatsappQueues).where(eq(whatsappQueues.whatsappId, whatsappId));
    if (unique.length)
      await tx.insert(whatsappQueues).values(unique.map((queueId) => ({ whatsappId, queueId })));
  }

  async function assertQueueRefs(companyId: number, ids: (number | null | undefined)[]) {
    const wanted = ids.filter((x): x is number => typeof x === 'number');
    if (!wanted.length) return;
    const owned = await db
      .select({ id: queues.id })
      .from(queues)
      .where(and(eq(queues.companyId, companyId), inArray(queues.id, wanted)));
    if (owned.length !== new Set(wanted).size) throw new AppError('ERR_VALIDATION', 400, 'unknown queue');
  }

  const emit = (companyId: number, whatsapp: Whatsapp) =>
    events.toAdmins(companyId, 'whatsapp', { action: 'update', whatsapp });

  return {
    get,
    /** Admins: the connection's API token (null when it predates sealing: regenerate to see one). */
    async revealToken(t: Tenant, id: number): Promise<ConnectionToken> {
      const r = await row(t.companyId, id);
      const token = r.apiTokenSealed && deps.box ? deps.box.open(r.apiTokenSealed) : null;
      return { token, hasToken: Boolean(r.apiTokenHash) };
    },
    /** Admins: a new API token; the previous one stops working at once. */
    async regenerateToken(t: Tenant, id: number): Promise<ConnectionToken> {
      await row(t.companyId, id);
      const token = newApiToken();
      await db
        .update(whatsapps)
        .set({
          apiTokenHash: hashApiToken(token),
          apiTokenSealed: deps.box ? deps.box.seal(token) : null,
          updatedAt: new Date(),
        })
        .where(and(eq(whatsapps.id, id), eq(whatsapps.companyId, t.companyId)));
      emit(t.companyId, await get(t, id));
      return { token, hasToken: true };
    },
    async list(t: Tenant) {
      const rows = await db
        .select()
        .from(whatsapps)
        .where(eq(whatsapps.companyId, t.companyId))
        .orderBy(asc(whatsapps.name));
      return view(rows);
    },

    async create(t: Tenant, input: WhatsappInput) {
      if (input.queueIds.length > 1 && !input.greetingMessage.trim())
        throw new AppError('ERR_WAPP_GREETING_REQUIRED', 400);
      await assertQueueRefs(t.companyId, [input.transferQueueId]);
      await assertCompanyRefs(db, t.companyId, {
        prompt: input.promptId,
        integration: input.integrationId,
        flow: input.flowId,
      });
      const config = deps.sealConfig
        ? deps.sealConfig(input.channel, input.channelConfig ?? {})
        : (input.channelConfig ?? {});
      let id: number;
      try {
        id = await db.transaction(async (tx) => {
          // Lock the company: the plan's connection limit holds under concurrent creations.
          const [limit] = await tx
            .select({ max: plans.connections })
            .from(companies)
            .innerJoin(plans, eq(plans.id, companies.planId))
            .where(eq(companies.id, t.companyId))
            .for('update', { of: companies });
          const [count] = await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(whatsapps)
            .where(eq(whatsapps.companyId, t.companyId));
          if ((count?.n ?? 0) >= (limit?.max ?? 0))
            throw new AppError('ERR_NO_PERMISSION', 403, `The plan allows ${limit?.max ?? 0} connections`);
          const isDefault = input.isDefault || (count?.n ?? 0) === 0;
          if (isDefault)
            await tx.update(whatsapps).set({ isDefault: false }).where(eq(whatsapps.companyId, t.companyId));
          const { queueIds, channelConfig: _cc, token: _t, ...fields } = input;
          // Every new connection gets its external API token (docs/external-api.md).
          const token = newApiToken();
          const [w] = await tx
            .insert(whatsapps)
            .values({
              ...fields,
              apiTokenHash: hashApiToken(token),
              apiTokenSealed: deps.box ? deps.box.seal(token) : null,
              companyId: t.companyId,
              isDefault,
              channelConfig: config,
              status: 'OPENING',
            })
            .returning({ id: whatsapps.id });
          await setQueues(tx, t.companyId, w!.id, queueIds);
          return w!.id;
        });
      } catch (err) {
        if (isUniqueViolation(err, 'whatsapps_company_name_uq'))
          throw new AppError('ERR_VALIDATION', 409, 'A connection with this name exists');
        throw err;
      }
      const whatsapp = await get(t, id);
      emit(t.companyId, whatsapp);
      // Start its session right away (the simulator is CONNECTED at once; Baileys shows a QR code).
      await deps.sessions()?.tick();
      return get(t, id);
    },

    async update(t: Tenant, id: number, input: WhatsappUpdate) {
      const current = await row(t.companyId, id);
      const queueIds = input.queueIds;
      const greeting = input.greetingMessage ?? current.greetingMessage;
      if (queueIds && queueIds.length > 1 && !greeting.trim())
        throw new AppError('ERR_WAPP_GREETING_REQUIRED', 400);
      await assertQueueRefs(t.companyId, [input.transferQueueId]);
      await assertCompanyRefs(db, t.companyId, {
        prompt: input.promptId,
        integration: input.integrationId,
        flow: input.flowId,
      });
      // The token changes only through POST /whatsapp/{id}/token.
      const { queueIds: _q, channelConfig, token: _t, ...fields } = input;
      const config =
        channelConfig === undefined
          ? undefined
          : deps.sealConfig
            ? deps.sealConfig(current.channel, channelConfig, current.channelConfig)
            : channelConfig;
      try {
        await db.transaction(async (tx) => {
          if (input.isDefault === false && current.isDefault)
            // Some connection must stay the default one.
            throw new AppError('ERR_NO_OTHER_WHATSAPP', 400);
          if (input.isDefault === true && !current.isDefault)
            await tx
              .update(whatsapps)
              .set({ isDefault: false })
              .where(and(eq(whatsapps.companyId, t.companyId), ne(whatsapps.id, id)));
          await tx
            .update(whatsapps)
            .set({ ...fields, ...(config ? { channelConfig: config } : {}), updatedAt: new Date() })
            .where(and(eq(whatsapps.id, id), eq(whatsapps.companyId, t.companyId)));
          if (queueIds) await setQueues(tx, t.companyId, id, queueIds);
        });
      } catch (err) {
        if (isUniqueViolation(err, 'whatsapps_company_name_uq'))
          throw new AppError('ERR_VALIDATION', 409, 'A connection with this name exists');
        throw err;
      }
      const whatsapp = await get(t, id);
      emit(t.companyId, whatsapp);
      return whatsapp;
    },

    async remove(t: Tenant, id: number) {
      const current = await row(t.companyId, id);
      await deps.sessions()?.remove(id);
      await db.transaction(async (tx) => {
        await tx.delete(whatsapps).where(and(eq(whatsapps.id, id), eq(whatsapps.companyId, t.companyId)));
        if (current.isDefault) {
          // The oldest remaining connection becomes the default one.
          const [next] = await tx
            .select({ id: whatsapps.id })
            .from(whatsapps)
            .where(eq(whatsapps.companyId, t.companyId))
            .orderBy(asc(whatsapps.id))
            .limit(1);
          if (next) await tx.update(whatsapps).set({ isDefault: true }).where(eq(whatsapps.id, next.id));
        }
      });
      events.toAdmins(t.companyId, 'whatsapp', { action: 'delete', whatsappId: id });
      return { message: 'Connection deleted' };
    },

    async startSession(t: Tenant, id: number) {
      await row(t.companyId, id);
      await deps.sessions()?.startSession(id);
      return get(t, id);
    },
    /** A new QR code: the session restarts with its credentials forgotten. */
    async renewSession(t: Tenant, id: number) {
      await row(t.companyId, id);
      await deps.sessions()?.restart(id, { clearAuth: true });
      return get(t, id);
    },
    async stopSession(t: Tenant, id: number) {
      await row(t.companyId, id);
      await deps.sessions()?.logout(id);
      const whatsapp = await get(t, id);
      events.toAdmins(t.companyId, 'whatsappSession', { action: 'update', session: whatsapp });
      return whatsapp;
    },

    /** The session manager's state sink: persist, then tell the company's admins. */
    async applyState(ref: { id: number; companyId: number }, s: StateUpdate) {
      // #33.3 Leaving CONNECTED opens an outage, coming back closes it (read before the row changes).
      await trackOutage(db, ref, s.status);
      const [r] = await db
        .update(whatsapps)
        .set({
          status: s.status,
          ...(s.qrcode !== undefined ? { qrcode: s.qrcode } : {}),
          ...(s.retries !== undefined ? { retries: s.retries } : {}),
          ...(s.number ? { number: s.number } : {}),
          channelConfig: s.data?.reason
            ? sql`jsonb_set(${whatsapps.channelConfig}, '{statusReason}', ${JSON.stringify(reasonOf(s.data))}::jsonb)`
            : sql`${whatsapps.channelConfig} - 'statusReason'`,
          updatedAt: new Date(),
        })
        .where(eq(whatsapps.id, ref.id))
        .returning();
      if (!r) return;
      const [session] = await view([r]);
      if (session) events.toAdmins(ref.companyId, 'whatsappSession', { action: 'update', session });
    },

    /** The company's default connection, or ERR_NO_DEF_WAPP_FOUND. */
    async defaultFor(companyId: number): Promise<Row> {
      const [r] = await db
        .select()
        .from(whatsapps)
        .where(and(eq(whatsapps.companyId, companyId), eq(whatsapps.isDefault, true)));
      if (!r) throw new AppError('ERR_NO_DEF_WAPP_FOUND', 404);
      return r;
    },
    row,

    /**
     * Customer messages the pipeline gave up on (repeated failures), newest first, with their error: an
     * admin's view of what never reached a ticket.
     */
    async inboundFailures(t: Tenant, id: number) {
      await row(t.companyId, id);
      const rows = await db
        .select()
        .from(inboundFailures)
        .where(
          and(
            eq(inboundFailures.companyId, t.companyId),
            eq(inboundFailures.whatsappId, id),
            eq(inboundFailures.failed, true),
          ),
        )
        .orderBy(desc(inboundFailures.id))
        .limit(100);
      return {
        failures: rows.map((r) => ({
          id: r.id,
          providerId: r.providerId,
          sender: r.sender,
          preview: r.preview,
          attempts: r.attempts,
          error: r.error,
          createdAt: r.createdAt.toISOString(),
          updatedAt: r.updatedAt.toISOString(),
        })),
      };
    },
  };
}
export type WhatsappService = ReturnType<typeof whatsappService>;
