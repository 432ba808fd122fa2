import type { TicketView, WebhookEvent } from '@recado/contracts';
import type { DomainBus, ContactRow, TicketState } from '../../events/domain-events.js';
import type { MessageRow } from '../messages/message-queries.js';
import type { Occurred, WebhookService } from './webhook-service.js';

type Links = Pick<WebhookService, 'mediaLink'>;

/** The message as a webhook sends it (contracts' WebhookMessage; a file with its signed link). */
const messageData = (m: MessageRow, direction: 'inbound' | 'outbound', links: Links) => {
  const file = m.mediaUrl && !m.isDeleted ? links.mediaLink(m.id) : null;
  return {
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
      mediaUrl: file?.url ?? null,
      mediaUrlExpiresAt: file?.expiresAt ?? null,
    },
  };
};

/** The one ticket view of every ticket event (contracts' WebhookTicket), whoever made the change. */
export const ticketData = (v: TicketView) => ({
  id: v.id,
  uuid: v.uuid,
  protocol: v.protocol,
  status: v.status,
  queueId: v.queueId,
  queue: v.queue ? { id: v.queue.id, name: v.queue.name } : null,
  userId: v.userId,
  user: v.user ? { id: v.user.id, name: v.user.name } : null,
  contactId: v.contactId,
  contact: {
    id: v.contact.id,
    name: v.contact.name,
    number: v.contact.number,
    isGroup: v.contact.isGroup,
    customFields: v.contact.customFields ?? {},
  },
  whatsappId: v.whatsappId,
  channel: v.whatsapp ? { id: v.whatsapp.id, name: v.whatsapp.name, channel: v.whatsapp.channel } : null,
  tags: v.tags.map((g) => ({ id: g.id, name: g.name })),
  isGroup: v.isGroup,
  customFields: v.customFields ?? {},
});

const contactData = (c: ContactRow) => ({
  id: c.id,
  name: c.name,
  number: c.number,
  email: c.email,
  isGroup: c.isGroup,
  createdAt: c.createdAt.toISOString(),
  customFields: c.customFields ?? {},
});

/** A contact's events go in order (its tickets' included): the delivery lane. */
const contactLane = (contactId: number | null | undefined, ticketId?: number) =>
  contactId ? `contact:${contactId}` : ticketId ? `ticket:${ticketId}` : null;

const sameIds = (a: number[], b: number[]) =>
  a.length === b.length && [...a].sort().every((id, i) => id === [...b].sort()[i]);

/** What changed of what integrators follow (status, queue, attendant, tags); empty when nothing did. */
function changesOf(before: Partial<TicketState>, after: TicketView) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of ['status', 'queueId', 'userId'] as const)
    if (before[key] !== undefined && before[key] !== after[key])
      changes[key] = { from: before[key], to: after[key] };
  const tagIds = after.tags.map((g) => g.id);
  if (before.tagIds && !sameIds(before.tagIds, tagIds)) changes.tags = { from: before.tagIds, to: tagIds };
  return changes;
}

/**
 * Domain events → webhook deliveries (docs/webhooks.md#order). The bus's tap hands every event over inside
 * `emit`, in the order they happened, whatever the ticket; they are recorded with their time and lane, and
 * one drain per company queues them in that order (one transaction per batch: sequence numbers, delivery rows,
 * lane jobs). The HTTP calls happen in the jobs, never here, so the inbound pipeline (which never awaits the
 * bus) and the ticket answers are not slowed by a receiver. Ticket events come from `ticket.announced` (the
 * one announcer of every ticket change, whoever made it) and the pipeline's `message.stored`.
 */
export function webhookListeners(
  bus: DomainBus,
  webhooks: Pick<WebhookService, 'enqueueMany' | 'mediaLink' | 'now' | 'warn'>,
) {
  const pending = new Map<number, Occurred[]>();
  const draining = new Map<number, Promise<void>>();

  function record(companyId: number, event: WebhookEvent, data: unknown, lane: string | null) {
    let list = pending.get(companyId);
    if (!list) pending.set(companyId, (list = []));
    list.push({ event, data, lane, occurredAt: webhooks.now() });
    const running = draining.get(companyId);
    if (running) return running; // that drain takes it with its next batch
    const run = (async () => {
      try {
        for (let batch = pending.get(companyId); batch?.length; batch = pending.get(companyId)) {
          pending.delete(companyId);
          try {
            await webhooks.enqueueMany(companyId, batch);
          } catch (err) {
            webhooks.warn({ err, companyId, events: batch.length }, 'webhook events not queued');
          }
        }
      } finally {
        draining.delete(companyId);
      }
    })();
    draining.set(companyId, run);
    return run;
  }

  bus.tap(({ event, payload: p }) => {
    switch (event) {
      case 'message.stored': {
        const lane = contactLane(p.ticket.contactId, p.ticket.id);
        if (p.ticketCreated)
          record(
            p.ref.companyId,
            'ticket.created',
            { ticket: ticketData(p.ticket), actor: p.message.fromMe ? 'user' : 'customer' },
            lane,
          );
        const direction = p.message.fromMe ? 'outbound' : 'inbound';
        return record(p.ref.companyId, 'message.created', messageData(p.message, direction, webhooks), lane);
      }
      case 'message.sent':
        return record(
          p.companyId,
          'message.created',
          messageData(p.message, 'outbound', webhooks),
          contactLane(p.message.contactId, p.ticketId),
        );
      case 'message.acked':
        return record(
          p.companyId,
          'message.ack',
          { messageId: p.message.id, ticketId: p.message.ticketId, ack: p.message.ack },
          contactLane(p.message.contactId, p.message.ticketId),
        );
      case 'ticket.announced': {
        const { ticket, change } = p;
        const lane = contactLane(ticket.contactId, ticket.id);
        if (change.before === null)
          return record(
            p.companyId,
            'ticket.created',
            { ticket: ticketData(ticket), actor: change.actor },
            lane,
          );
        const changes = changesOf(change.before, ticket);
        // Only what integrators follow: status, queue, attendant, tags.
        if (!Object.keys(changes).length) return;
        return record(
          p.companyId,
          'ticket.updated',
          {
            ticket: ticketData(ticket),
            action: change.action ?? 'update',
            actor: change.actor,
            by: change.by ?? null,
            changes,
          },
          lane,
        );
      }
      case 'contact.created':
        return record(
          p.companyId,
          'contact.created',
          { contact: contactData(p.contact) },
          contactLane(p.contact.id),
        );
      case 'campaign.finished':
        return record(p.companyId, 'campaign.finished', { campaignId: p.campaignId }, null);
      case 'flow.outcome':
        return record(
          p.companyId,
          p.status === 'failed' ? 'flow.failed' : 'flow.completed',
          {
            flow: p.flow,
            runId: p.runId,
            ticket: ticketData(p.ticket),
            nodeId: p.nodeId,
            variables: p.variables,
            error: p.error,
          },
          contactLane(p.ticket.contactId, p.ticket.id),
        );
      case 'sla.breached':
        return record(
          p.companyId,
          'sla.breached',
          {
            ticket: ticketData(p.ticket),
            kind: p.kind,
            policyId: p.policyId,
            dueAt: p.dueAt.toISOString(),
            breachedAt: p.breachedAt.toISOString(),
          },
          contactLane(p.ticket.contactId, p.ticket.id),
        );
      case 'ticket.assigned':
        return record(
          p.companyId,
          'ticket.assigned',
          {
            ticket: ticketData(p.ticket),
            user: p.ticket.user
              ? { id: p.ticket.user.id, name: p.ticket.user.name }
              : { id: p.userId, name: '' },
            policy: p.policy,
            reason: p.reason,
          },
          contactLane(p.ticket.contactId, p.ticket.id),
        );
      case 'call.received':
        return record(
          p.companyId,
          'call.received',
          {
            call: {
              id: p.providerId,
              whatsappId: p.whatsappId,
              from: p.from,
              isVideo: p.isVideo,
              isGroup: p.isGroup,
              at: p.at.toISOString(),
              rejected: p.rejected,
            },
            ticketId: p.ticketId,
            contactId: p.contactId,
          },
          contactLane(p.contactId, p.ticketId ?? undefined),
        );
      default:
        return;
    }
  }, 'webhooks');
}
