import type { DomainBus } from '../../events/domain-events.js';
import type { AutomationService } from './automation-service.js';

/**
 * The hand-off engine's listeners (docs/automation.md). Subscribed before the bot's, so that a ticket an
 * automation takes is never answered by the queue bot; a ticket's messages come one at a time, in order.
 */
export function automationListeners(bus: DomainBus, automation: AutomationService) {
  bus.on(
    'message.stored',
    // #33.3 Recovered (or group) messages are answered by no AI prompt or integration.
    ({ ref, ticket, message, quiet }) => (quiet ? undefined : automation.onStored(ref, ticket, message)),
    'automation',
  );
  bus.on('ticket.changed', (e) => automation.onTicketChanged(e), 'automation');
}

/**
 * Voice notes transcribed for attendants (the company's `transcribeAudio` setting). Subscribed after the
 * engine's and the bot's listeners: a prompt ticket's note is already transcribed, and the menu is not delayed.
 */
export function transcriptionListeners(bus: DomainBus, automation: AutomationService) {
  bus.on('message.stored', ({ ref, message }) => automation.onVoiceNote(ref, message), 'transcription');
}
