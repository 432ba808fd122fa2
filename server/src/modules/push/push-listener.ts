import type { DomainBus } from '../../events/domain-events.js';
import type { PushService } from './push-service.js';

/**
 * What reaches a person away from the tab (docs/push.md): customers' messages on tickets they may see and
 * internal-chat messages. Each listener only queues a job.
 */
export function pushListeners(bus: DomainBus, push: PushService) {
  bus.on(
    'message.stored',
    async ({ ref, ticket, message }) => {
      if (message.fromMe || message.isDeleted) return;
      if (ticket.status !== 'pending' && ticket.status !== 'open') return;
      await push.onCustomerMessage(ref.companyId, ticket.id, message.body);
    },
    'push',
  );
  bus.on(
    'chat.message',
    async (e) => {
      await push.notifyUsers(e.companyId, e.recipientIds, {
        title: e.title,
        body: e.body,
        url: `/chats/${e.chatId}`,
        tag: `chat-${e.chatId}`,
      });
    },
    'push',
  );
}
