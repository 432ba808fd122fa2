import type { DomainBus } from '../../events/domain-events.js';
import type { BotService } from './bot-service.js';

/** The automatic attendant answers stored customer messages, one message of a ticket at a time. */
export function botListeners(bus: DomainBus, bot: Pick<BotService, 'onStored' | 'placeQuietly'>) {
  bus.on(
    'message.stored',
    // #33.3 A recovered message gets no greeting or menu; its ticket still lands where a live one would.
    ({ ref, ticket, message, quiet }) =>
      quiet ? bot.placeQuietly(ref, ticket) : bot.onStored(ref, { ticket, message }),
    'bot',
  );
}
