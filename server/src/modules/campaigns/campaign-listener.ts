import type { DomainBus } from '../../events/domain-events.js';
import type { AckIntercept } from '../../messaging/inbound-events.js';
import type { CampaignDispatch } from './campaign-dispatch.js';

/**
 * Campaigns see what the channels deliver: a customer's reply answers a confirmation message
 * (`inbound.received`, once per batch: one statement), and the ack of a campaign send sets `deliveredAt`
 * (an ack intercept: a campaign send has no message row, so the pipeline has nothing to do with it).
 */
export function campaignListeners(bus: DomainBus, dispatch: Pick<CampaignDispatch, 'onInbound'>) {
  bus.on('inbound.received', ({ ref, messages }) => dispatch.onInbound(ref, messages), 'campaign-replies');
}

export const campaignAckIntercept =
  (dispatch: Pick<CampaignDispatch, 'onAck'>): AckIntercept =>
  (ref, a) =>
    dispatch.onAck(ref, a);
