import { useEffect, useRef } from 'react';
import { companyEvent, type CompanyEntity, type ServerEvents } from '@recado/contracts';
import { useAuth } from '../app/auth.js';
import { getSocket } from './socket.js';

/**
 * Listens to `company-{companyId}-{entity}` of the signed-in user's company while mounted. The handler
 * may change between renders without resubscribing. The payload is the entity's in contracts' ServerEvents.
 */
export function useCompanyEvent<E extends CompanyEntity>(
  entity: E,
  handler: (payload: ServerEvents[E]) => void,
  enabled = true,
) {
  const { user } = useAuth();
  const companyId = user?.companyId;
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    if (!companyId || !enabled) return;
    const socket = getSocket();
    const event = companyEvent(companyId, entity);
    const listener = (payload: ServerEvents[E]) => latest.current(payload);
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [companyId, entity, enabled]);
}
