import { useEffect } from 'react';
import { companyEvent, type AuthEventPayload } from '@recado/contracts';
import { clearSession, currentToken } from '../api/client.js';
import { getSocket } from '../realtime/socket.js';
import { tokenSessionId, useAuth } from './auth.js';
import { useToast } from './useToast.js';

/**
 * Another login of this user ends this session (docs/product.md#states Session): the notice, storage cleared, and a reload
 * after 1 s. Lives inside the signed-in layout so the public pages never load the socket client.
 */
export function SessionWatcher() {
  const { user } = useAuth();
  const toast = useToast();
  useEffect(() => {
    if (!user) return;
    const socket = getSocket();
    const event = companyEvent(user.companyId, 'auth');
    const handler = (data: AuthEventPayload) => {
      if (data.user?.id !== user.id || data.sessionId === tokenSessionId(currentToken())) return;
      toast.warning('auth.otherComputer');
      clearSession();
      window.setTimeout(() => window.location.reload(), 1000);
    };
    socket.on(event, handler);
    return () => {
      socket.off(event, handler);
    };
  }, [user, toast]);
  return null;
}
