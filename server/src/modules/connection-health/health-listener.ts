import type { DomainBus } from '../../events/domain-events.js';
import type { StateUpdate } from '../../messaging/channel.js';
import type { ConnectionRef } from '../../messaging/session-manager.js';
import type { ConnectionHealthService } from './health-service.js';

declare module '../../events/domain-events.js' {
  interface DomainEvents {
    /**
     * #33 A channel reported a state (app.ts `onState`, after whatsapps stored it): `at` is when, on the business
     * clock. The health module keeps the history and the outages from it (docs/connection-health.md).
     */
    'connection.state': { ref: ConnectionRef; state: StateUpdate; at: Date };
  }
}

/**
 * Records each connection's reported states in the order they came (one chain per connection in this process;
 * only the process that runs a connection reports its states), so a quick DISCONNECTED → CONNECTED is never
 * recorded backwards.
 */
export function connectionHealthListeners(
  bus: DomainBus,
  health: Pick<ConnectionHealthService, 'recordState'>,
) {
  const chains = new Map<number, Promise<void>>();
  bus.on(
    'connection.state',
    (e) => {
      const previous = chains.get(e.ref.id) ?? Promise.resolve();
      const next = previous.then(() => health.recordState(e.ref, e.state, e.at));
      const settled = next.catch(() => undefined);
      chains.set(e.ref.id, settled);
      void settled.then(() => {
        if (chains.get(e.ref.id) === settled) chains.delete(e.ref.id);
      });
      return next;
    },
    'connection-health',
  );
}
