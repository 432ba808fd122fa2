import type { DomainBus } from '../../events/domain-events.js';
import type { BotService } from './bot-service.js';

/** The automatic attendant answers stored customer messages, one message of a ticket at a time. */
export function botListeners(bus: DomainBus, bot: Pick<BotService, 'onStored'>) {
  bus.on('message.stored', ({ ref, ticket, message }) => bot.onStored(ref, { ticket, message }), 'bot');
}
