import { randomUUID } from 'node:crypto';
import { and, eq, gt, isNotNull, sql } from 'drizzle-orm';
import type { Db, Database } from '../db/client.js';
import { whatsapps } from '../db/schema/index.js';
import { AppError } from '../http/errors.js';
import type { Channel } from './channel.js';
import type { SessionManager } from './session-manager.js';

const COMMANDS = 'recado_channel_cmd';
const REPLIES = 'recado_channel_reply';
/** NOTIFY payloads stop at 8,000 bytes. */
const MAX_PAYLOAD = 7900;
/** The calls whose answer carries a result back (the others answer only how they went). */
const LOOKUPS = new Set<Op>(['checkNumber', 'profilePicture', 'addressBook']);

type Op =
  | 'markRead'
  | 'deleteMessage'
  | 'editMessage'
  | 'handleWebhook'
  | 'checkNumber'
  | 'profilePicture'
  | 'addressBook';
export type ChannelActions = Pick<Channel, 'markRead' | 'deleteMessage'> &
  Required<Pick<Channel, 'editMessage'>>;
/** What a request may ask of a connection's channel wherever its session runs: actions and look-ups. */
export type ReachableChannel = ChannelActions &
  Pick<Channel, 'checkNumber' | 'profilePicture'> &
  Required<Pick<Channel, 'addressBook'>>;
/** A connection's channel wherever its session runs (`reach` below), or undefined when nobody runs it. */
export type Reach = (whatsappId: number) => Promise<ReachableChannel | Channel | undefined>;

/** `reach` without other processes: the channel only when its session runs in this one. */
export const localReach =
  (sessions: () => SessionManager | undefined): Reach =>
  async (whatsappId) =>
    sessions()?.get(whatsappId);

/**
 * Edits, deletes and read marks for a connection whose session runs in another process, its look-ups (is a
 * number on WhatsApp, a profile picture, the address book: answers up to 7,900 bytes), and a provider's
 * webhook that reached a process other than the connection's (Cloud API): the request's process sends the
 * command with NOTIFY, the lease holder runs it on its channel and NOTIFYs the outcome back
 * (docs/deployment.md). Sends go through the outbox instead (they must survive a takeover); these are
 * answered now or refused.
 */
export function channelCommands(deps: {
  db: Db;
  listen?: Database['listen'];
  sessions: () => SessionManager | undefined;
  log: { warn(o: object, m: string): void };
  timeoutMs?: number;
}) {
  const waiting = new Map<string, { done: (error?: string, result?: unknown) => void }>();
  const stops: (() => Promise<void>)[] = [];
  const notify = (channel: string, payload: string) =>
    deps.db.execute(sql`select pg_notify(${channel}, ${payload})`);

  async function run(payload: string) {
    let cmd: { id: string; whatsappId: number; op: Op; args: unknown[] };
    try {
      cmd = JSON.parse(payload);
    } catch {
      return;
    }
    const channel = deps.sessions()?.get(cmd.whatsappId);
    if (!channel) return; // another process owns it (or nobody): the owner answers
    let error: string | undefined;
    let result: unknown;
    try {
      // handleWebhook: only channels fed by webhooks (Cloud API) have it; addressBook only some.
      const fn = (channel as unknown as Record<Op, ((...a: unknown[]) => Promise<unknown>) | undefined>)[
        cmd.op
      ];
      if (!fn) throw new Error('This channel cannot do that');
      // Look-ups answer their result; actions answer nothing.
      const value = await fn.apply(channel, cmd.args);
      if (LOOKUPS.has(cmd.op)) result = value ?? null;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    let reply = JSON.stringify({ id: cmd.id, error, result });
    if (Buffer.byteLength(reply) > MAX_PAYLOAD)
      reply = JSON.stringify({ id: cmd.id, error: 'The answer is too long for another process' });
    await notify(REPLIES, reply).catch((err) => deps.log.warn({ err }, 'channel command reply failed'));
  }

  function onReply(payload: string) {
    try {
      const r = JSON.parse(payload) as { id: string; error?: string; result?: unknown };
      waiting.get(r.id)?.done(r.error, r.result);
    } catch {
      // not ours
    }
  }

  /**
   * The connection's channel wherever its session runs: the channel itself here, or one whose calls go to
   * the lease holder (a live lease on a CONNECTED connection); undefined when nobody runs it.
   */
  const reach: Reach = async (whatsappId) => {
    const local = deps.sessions()?.get(whatsappId);
    if (local) return local;
    if (!(await runningElsewhere(whatsappId))) return undefined;
    return {
      markRead: async (to, ids) => void (await call(whatsappId, 'markRead', [to, ids])),
      deleteMessage: async (to, providerId, fromMe) =>
        void (await call(whatsappId, 'deleteMessage', [to, providerId, fromMe])),
      editMessage: async (to, providerId, body) =>
        void (await call(whatsappId, 'editMessage', [to, providerId, body])),
      checkNumber: async (number) =>
        (await call(whatsappId, 'checkNumber', [number])) as Awaited<ReturnType<Channel['checkNumber']>>,
      profilePicture: async (replyTo) =>
        (await call(whatsappId, 'profilePicture', [replyTo])) as string | null,
      addressBook: async () =>
        (await call(whatsappId, 'addressBook', [])) as { number: string; name: string }[],
    };
  };

  /** Another process holds a live lease on this CONNECTED connection, and commands can reach it. */
  async function runningElsewhere(whatsappId: number): Promise<boolean> {
    if (stops.length === 0) return false;
    const [owned] = await deps.db
      .select({ id: whatsapps.id })
      .from(whatsapps)
      .where(
        and(
          eq(whatsapps.id, whatsappId),
          eq(whatsapps.status, 'CONNECTED'),
          isNotNull(whatsapps.leaseOwner),
          gt(whatsapps.leaseExpiresAt, sql`now()`),
        ),
      );
    return Boolean(owned);
  }

  async function call(whatsappId: number, op: Op, args: unknown[]): Promise<unknown> {
    const id = randomUUID();
    const payload = JSON.stringify({ id, whatsappId, op, args });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) throw new Error('Too long for another process');
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('The connection did not answer'));
      }, deps.timeoutMs ?? 10_000);
      waiting.set(id, {
        done: (error, result) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (error) reject(new Error(error));
          else resolve(result);
        },
      });
    });
    await notify(COMMANDS, payload);
    return answer;
  }

  return {
    async start() {
      if (!deps.listen) return;
      try {
        stops.push(await deps.listen(COMMANDS, (p) => void run(p)));
        stops.push(await deps.listen(REPLIES, onReply));
      } catch (err) {
        deps.log.warn({ err }, 'LISTEN unavailable; channel actions only where the session runs');
      }
    },
    async stop() {
      for (const s of stops.splice(0)) await s();
    },
    /**
     * The connection's channel actions: the channel itself when its session runs here, a remote one when
     * another process holds a live lease on a CONNECTED connection; otherwise ERR_WAPP_NOT_INITIALIZED.
     */
    async actions(whatsappId: number | null | undefined): Promise<ReachableChannel | Channel> {
      const reached = whatsappId ? await reach(whatsappId) : undefined;
      if (!reached) throw new AppError('ERR_WAPP_NOT_INITIALIZED', 400, 'The connection is not running');
      return reached;
    },
    reach,
    /**
     * A provider's webhook payload, handled by the connection's channel wherever its session runs; resolves
     * once it was, so the webhook's answer still means "stored". Throws when no process runs the connection
     * (or its channel takes no webhooks), the payload is too long for a notification, or the owner does not
     * answer in time: the provider delivers again later.
     */
    async webhook(whatsappId: number, payload: unknown): Promise<void> {
      const local = deps.sessions()?.get(whatsappId) as
        (Channel & { handleWebhook?(p: unknown): Promise<unknown> }) | undefined;
      if (local) {
        if (!local.handleWebhook) throw new Error('This channel takes no webhooks');
        await local.handleWebhook(payload);
      } else if (await runningElsewhere(whatsappId)) await call(whatsappId, 'handleWebhook', [payload]);
      else throw new Error('The connection is not running');
    },
  };
}
export type ChannelCommands = ReturnType<typeof channelCommands>;
