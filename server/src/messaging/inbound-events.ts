import { sql, type SQL } from 'drizzle-orm';
import type { DomainBus } from '../events/domain-events.js';
import type { AckUpdate, InboundMessage } from './channel.js';
import type { ConnectionRef, SessionManagerDeps } from './session-manager.js';

type Inbound = SessionManagerDeps['inbound'];

/**
 * Decides whether an ack belongs to someone else (a campaign send has no message row); true when it took
 * the ack, and the pipeline then has nothing to do. Must not throw (a failure is logged and counts as false).
 */
export type AckIntercept = (ref: ConnectionRef, a: AckUpdate) => Promise<boolean>;

/**
 * #31 An ack intercept run inside the pipeline's ack statement instead of a statement of its own: `cte` is a
 * data-modifying statement with `returning` for this ack (null: never its ack), `guard` an SQL condition to
 * and into its `where` (the channel's own row was found). When it returns rows it took the ack: the message
 * update of the same statement does nothing. `taken` gets those rows (as JSON) after the statement.
 */
export interface AckClaim {
  cte(ref: ConnectionRef, a: AckUpdate, guard: SQL): SQL | null;
  taken(ref: ConnectionRef, rows: Record<string, unknown>[]): void;
}

/** A claim that has taken the ack already (an AckIntercept did). */
const TAKEN: AckClaim = { cte: () => sql`select 1 as taken`, taken: () => undefined };

/** The pipeline's ack, with the claims its statement runs. */
export type AckWithClaims = (ref: ConnectionRef, a: AckUpdate, claims?: AckClaim[]) => Promise<void>;

/**
 * What the channels deliver, after the pipeline: every delivery (a message or a batch) the pipeline
 * settled is announced as `inbound.received`, once per batch. Acks first pass the explicit, ordered
 * `ackIntercepts` (they decide rather than report); the first that takes an ack ends it.
 */
export function withInboundEvents(
  inbound: Omit<Inbound, 'ack'> & { ack: AckWithClaims },
  deps: {
    bus: Pick<DomainBus, 'emit'>;
    ackIntercepts?: AckIntercept[];
    /** Intercepts run inside the pipeline's ack statement, after `ackIntercepts` passed. */
    ackClaims?: AckClaim[];
    log: { warn(o: object, m: string): void };
  },
): Inbound {
  const received = (ref: ConnectionRef, messages: InboundMessage[]) => {
    if (messages.length) deps.bus.emit('inbound.received', { ref, messages });
  };
  return {
    async message(ref: ConnectionRef, m: InboundMessage) {
      const result = await inbound.message(ref, m);
      received(ref, [m]);
      return result;
    },
    messages: inbound.messages
      ? async (ref: ConnectionRef, ms: InboundMessage[]) => {
          const results = await inbound.messages!(ref, ms);
          received(
            ref,
            ms.filter((_, i) => results[i]?.status === 'fulfilled'),
          );
          return results;
        }
      : undefined,
    async ack(ref: ConnectionRef, a: AckUpdate) {
      for (const take of deps.ackIntercepts ?? []) {
        const taken = await take(ref, a).catch((err: unknown) => {
          deps.log.warn({ err, whatsappId: ref.id }, 'ack intercept failed');
          return false;
        });
        if (taken) {
          // The channel's own row still moves (in a statement whose message update a claim stops).
          if (a.own) await inbound.ack(ref, a, [TAKEN]);
          return;
        }
      }
      await inbound.ack(ref, a, deps.ackClaims);
    },
  };
}
