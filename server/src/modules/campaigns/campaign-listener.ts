import type { DomainBus } from '../../events/domain-events.js';
import type { CampaignDispatch } from './campaign-dispatch.js';

/**
 * Campaigns see what the channels deliver: a customer's reply answers a confirmation message
 * (`inbound.received`, once per batch: one statement), and the ack of a campaign send sets `deliveredAt`
 * (the dispatch's ackClaim, a CTE of the pipeline's ack statement: a campaign send's row takes the ack).
 */
export function campaignListeners(bus: DomainBus, dispatch: Pick<CampaignDispatch, 'onInbound'>) {
  bus.on('inbound.received', ({ ref, messages }) => dispatch.onInbound(ref, messages), 'campaign-replies');
}
