import type { DomainBus } from '../../events/domain-events.js';
import type { LiveService } from './live-service.js';

/**
 * #30.8 What changes the live view: tickets (created, taken, moved, closed, snoozed, woken, assigned by
 * routing, breaching an SLA target), queues, messages
 * (a customer's starts a wait; an attendant's is their last reply), presence and users. Each pokes the
 * company's coalesced push; an attendant's sent message also records their last reply.
 */
export function liveListener(bus: DomainBus, live: LiveService) {
  bus.on('ticket.announced', (e) => live.poke(e.companyId), 'live.ticket');
  bus.on('message.stored', (e) => live.poke(e.ref.companyId), 'live.inbound');
  bus.on(
    'message.sent',
    async (e) => {
      if (e.message.userId && e.message.fromMe)
        await live.replied(e.message.userId, e.companyId, e.message.createdAt);
      live.poke(e.companyId);
    },
    'live.reply',
  );
  bus.on('user.presence', (e) => live.poke(e.companyId), 'live.presence');
  bus.on('user.changed', (e) => live.poke(e.companyId), 'live.user');
  // Changes that do not always announce the ticket: a breach found by its job, a snooze and its wake-up,
  // routing's assignment, a queue's new capacity.
  bus.on('sla.breached', (e) => live.poke(e.companyId), 'live.sla');
  bus.on('ticket.snoozed', (e) => live.poke(e.companyId), 'live.snooze');
  bus.on('ticket.woken', (e) => live.poke(e.companyId), 'live.wake');
  bus.on('ticket.assigned', (e) => live.poke(e.companyId), 'live.assigned');
  bus.on('queue.changed', (e) => live.poke(e.companyId), 'live.queue');
}
