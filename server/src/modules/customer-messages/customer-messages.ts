import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contacts, queues, users, whatsapps } from '../../db/schema/index.js';
import type { TicketRow } from '../../events/domain-events.js';
import type { MessageService } from '../messages/message-service.js';
import { readSetting } from '../settings/setting-service.js';
import { customerTexts } from './customer-texts.js';

/**
 * Automatic messages to the customer about what an attendant did to the ticket: the greeting on accept,
 * the transfer notice and the completion message. Each checks its own setting; a failed send is logged.
 */
export function customerMessages(deps: {
  db: Db;
  messages: MessageService;
  log: { warn(o: object, m: string): void };
}) {
  const { db } = deps;

  async function send(companyId: number, ticket: TicketRow, body: string) {
    if (!body.trim() || ticket.isGroup) return;
    try {
      await deps.messages.deliver(companyId, ticket, { body, userId: null });
    } catch (err) {
      deps.log.warn({ err, ticketId: ticket.id }, 'automatic message not sent');
    }
  }

  return {
    /** `sendGreetingAccepted`: "my name is … and I will serve you", from the user who accepted. */
    async greeting(companyId: number, ticket: TicketRow, userId: number) {
      if ((await readSetting(db, companyId, 'sendGreetingAccepted')) !== 'enabled') return;
      const [me] = await db.select({ name: users.name }).from(users).where(eq(users.id, userId));
      const [c] = await db
        .select({ name: contacts.name })
        .from(contacts)
        .where(eq(contacts.id, ticket.contactId));
      await send(companyId, ticket, customerTexts.greeting(c?.name ?? '', me?.name ?? ''));
    },

    /** `sendMsgTransfTicket`: the queue and attendant the ticket went to. */
    async transferNotice(companyId: number, ticket: TicketRow) {
      if ((await readSetting(db, companyId, 'sendMsgTransfTicket')) !== 'enabled') return;
      const [q] = ticket.queueId
        ? await db.select({ name: queues.name }).from(queues).where(eq(queues.id, ticket.queueId))
        : [];
      const [u] = ticket.userId
        ? await db.select({ name: users.name }).from(users).where(eq(users.id, ticket.userId))
        : [];
      await send(companyId, { ...ticket, status: 'open' }, customerTexts.transferNotice(q?.name, u?.name));
    },

    /** The connection's completion message, when it has one. */
    async completion(companyId: number, ticket: TicketRow) {
      if (!ticket.whatsappId) return;
      const [w] = await db
        .select({ complationMessage: whatsapps.complationMessage })
        .from(whatsapps)
        .where(eq(whatsapps.id, ticket.whatsappId));
      if (w?.complationMessage) await send(companyId, { ...ticket, status: 'open' }, w.complationMessage);
    },
  };
}
export type CustomerMessages = ReturnType<typeof customerMessages>;
