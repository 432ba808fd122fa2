import type { TicketView, WebhookEvent } from '@recado/contracts';
import type { EmitMeta, Emitted } from '../../events/bus.js';
import type { DomainBus, DomainEvents, ContactRow, TicketState } from '../../events/domain-events.js';
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
  /** A company's events recorded since its drain took the last batch, and that batch's outcome. */
  type Batch = { list: Occurred[]; done: (ok: boolean) => void; outcome: Promise<boolean> };
  const pending = new Map<number, Batch>();
  const draining = new Set<number>();
  let meta: EmitMeta = {};

  /** Records one event; resolves with whether its batch was queued (the outbox keeps it until then). */
  function record(companyId: number, event: WebhookEvent, data: unknown, lane: string | null) {
    let batch = pending.get(companyId);
    if (!batch) {
      let done!: (ok: boolean) => void;
      const outcome = new Promise<boolean>((resolve) => (done = resolve));
      pending.set(companyId, (batch = { list: [], done, outcome }));
    }
    // A recovered event keeps the time it happened; its outbox id keys its deliveries (no second one).
    batch.list.push({ event, data, lane, occurredAt: meta.at ?? webhooks.now(), outboxId: meta.outboxId });
    if (draining.has(companyId)) return batch.outcome; // that drain takes it with its next batch
    draining.add(companyId);
    void (async () => {
      try {
        for (let b = pending.get(companyId); b; b = pending.get(companyId)) {
          pending.delete(companyId);
          try {
            await webhooks.enqueueMany(companyId, b.list);
            b.done(true);
          } catch (err) {
            webhooks.warn({ err, companyId, events: b.list.length }, 'webhook events not queued');
            b.done(false);
          }
        }
      } finally {
        draining.delete(companyId);
      }
    })();
    return batch.outcome;
  }

  bus.tap(
    (e) => {
      meta = e.meta;
      try {
        return occurred(e);
      } finally {
        meta = {};
      }
    },
    'webhooks',
    {
      // Written to the outbox and replayed after a crash (docs/events.md "The outbox").
      durable: [
        'message.stored',
        'message.sent',
        'message.acked',
        'ticket.announced',
        'contact.created',
        'campaign.finished',
        'flow.outcome',
        'sla.breached',
        'ticket.assigned',
        'call.received',
      ],
    },
  );

  function occurred({ event, payload: p }: Emitted<DomainEvents>) {
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
  }
}
