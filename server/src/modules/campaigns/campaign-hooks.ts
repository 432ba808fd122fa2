import type { AckUpdate, InboundMessage } from '../../messaging/channel.js';
import type { ConnectionRef, SessionManagerDeps } from '../../messaging/session-manager.js';
import type { CampaignDispatch } from './campaign-dispatch.js';

type Inbound = SessionManagerDeps['inbound'];

/**
 * What the channels deliver, seen by campaigns as well: acks of campaign sends set `deliveredAt`, and a
 * customer's reply answers a confirmation message. The pipeline runs first and alone decides what is
 * stored; a campaign hook failing is logged and never fails the delivery (the channel would retry it).
 */
export function withCampaignHooks(
  inbound: Inbound,
  dispatch: Pick<CampaignDispatch, 'onAck' | 'onInbound'>,
  log: { warn(o: object, m: string): void },
): Inbound {
  const after = (ref: ConnectionRef, ms: InboundMessage[]) => {
    void dispatch
      .onInbound(ref, ms)
      .catch((err: unknown) => log.warn({ err, whatsappId: ref.id }, 'campaign reply hook failed'));
  };
  return {
    async message(ref: ConnectionRef, m: InboundMessage) {
      const result = await inbound.message(ref, m);
      after(ref, [m]);
      return result;
    },
    messages: inbound.messages
      ? async (ref: ConnectionRef, ms: InboundMessage[]) => {
          const results = await inbound.messages!(ref, ms);
          after(
            ref,
            ms.filter((_, i) => results[i]?.status === 'fulfilled'),
          );
          return results;
        }
      : undefined,
    // A campaign send has no message row (no ticket): when the ack was a campaign's, the pipeline has nothing to do.
    async ack(ref: ConnectionRef, a: AckUpdate) {
      const campaign = await dispatch.onAck(ref, a).catch((err: unknown) => {
        log.warn({ err, whatsappId: ref.id }, 'campaign ack hook failed');
        return false;
      });
      if (!campaign) await inbound.ack(ref, a);
    },
  };
}
