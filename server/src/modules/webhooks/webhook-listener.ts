import type { DomainBus, ContactRow, TicketRow } from '../../events/domain-events.js';
import type { MessageRow } from '../messages/message-queries.js';
import type { WebhookService } from './webhook-service.js';

/** The message as a webhook sends it (docs/webhooks.md). */
const messageData = (m: MessageRow, direction: 'inbound' | 'outbound') => ({
  direction,
  message: {
    id: m.id,
    ticketId: m.ticketId,
    contactId: m.contactId,
    whatsappId: m.whatsappId,
    body: m.isDeleted ? '' : m.body,
    mediaType: m.mediaType,
    mediaName: m.mediaName,
    fromMe: m.fromMe,
    ack: m.ack,
    userId: m.userId,
    createdAt: m.createdAt.toISOString(),
  },
});

const ticketData = (
  t: Pick<TicketRow, 'id' | 'status' | 'queueId' | 'userId' | 'contactId' | 'whatsappId'>,
) => ({
  id: t.id,
  status: t.status,
  queueId: t.queueId,
  userId: t.userId,
  contactId: t.contactId,
  whatsappId: t.whatsappId,
});

const contactData = (c: ContactRow) => ({
  id: c.id,
  name: c.name,
  number: c.number,
  email: c.email,
  isGroup: c.isGroup,
  createdAt: c.createdAt.toISOString(),
});

/**
 * Domain events → webhook deliveries. Each listener only writes delivery rows and their jobs (one
 * transaction, none when no webhook listens); the HTTP calls happen in the jobs, never here, so the inbound
 * pipeline (which never awaits the bus) and the ticket answers are not slowed by a receiver.
 */
export function webhookListeners(bus: DomainBus, webhooks: Pick<WebhookService, 'enqueue'>) {
  const name = 'webhooks';
  bus.on(
    'message.stored',
    async ({ ref, ticket, message, ticketCreated }) => {
      if (ticketCreated)
        await webhooks.enqueue(ref.companyId, 'ticket.created', {
          ticket: {
            id: ticket.id,
            status: ticket.status,
            queueId: ticket.queueId,
            userId: ticket.userId,
            contactId: ticket.contactId,
            whatsappId: ticket.whatsappId,
          },
          contact: ticket.contact,
        });
      await webhooks.enqueue(
        ref.companyId,
        'message.created',
        messageData(message, message.fromMe ? 'outbound' : 'inbound'),
      );
    },
    name,
  );
  bus.on(
    'message.sent',
    ({ companyId, message }) =>
      webhooks.enqueue(companyId, 'message.created', messageData(message, 'outbound')),
    name,
  );
  bus.on(
    'message.acked',
    ({ companyId, message: m }) =>
      webhooks.enqueue(companyId, 'message.ack', { messageId: m.id, ticketId: m.ticketId, ack: m.ack }),
    name,
  );
  bus.on(
    'ticket.created',
    ({ companyId, ticketId }) => webhooks.enqueue(companyId, 'ticket.created', { ticket: { id: ticketId } }),
    name,
  );
  bus.on(
    'ticket.changed',
    async ({ companyId, before, after, action, by }) => {
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const key of ['status', 'queueId', 'userId'] as const)
        if (before[key] !== after[key]) changes[key] = { from: before[key], to: after[key] };
      // Only what integrators follow: status, queue and attendant.
      if (!Object.keys(changes).length) return;
      await webhooks.enqueue(companyId, 'ticket.updated', { ticket: ticketData(after), action, by, changes });
    },
    name,
  );
  bus.on(
    'contact.created',
    ({ companyId, contact }) =>
      webhooks.enqueue(companyId, 'contact.created', { contact: contactData(contact) }),
    name,
  );
  bus.on(
    'campaign.finished',
    ({ companyId, campaignId }) => webhooks.enqueue(companyId, 'campaign.finished', { campaignId }),
    name,
  );
}
