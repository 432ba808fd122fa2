import { useEffect, useRef } from 'react';
import { companyEvent, type CompanyEntity } from '@recado/contracts';
import { useAuth } from '../app/auth.js';
import { getSocket } from './socket.js';

/**
 * Listens to `company-{companyId}-{entity}` of the signed-in user's company while mounted. The handler
 * may change between renders without resubscribing.
 */
export function useCompanyEvent<P>(entity: CompanyEntity, handler: (payload: P) => void, enabled = true) {
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
    const listener = (payload: P) => latest.current(payload);
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [companyId, entity, enabled]);
}
