import { useEffect } from 'react';
import { companyEvent, type AuthEventPayload } from '@recado/contracts';
import { clearSession, currentToken, noteSignedOut } from '../api/client.js';
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
    let reload: number | undefined;
    const handler = (data: AuthEventPayload) => {
      if (data.user?.id !== user.id || data.sessionId === tokenSessionId(currentToken())) return;
      toast.warning('auth.otherComputer');
      // The login page after the reload says why too (the toast goes with the page).
      noteSignedOut('ERR_SESSION_REPLACED');
      clearSession();
      reload = window.setTimeout(() => window.location.reload(), 1000);
    };
    socket.on(event, handler);
    return () => {
      socket.off(event, handler);
      // Signed out meanwhile (a request already answered ERR_SESSION_REPLACED and the login page is shown,
      // saying why): nothing left to reload, and a reload would only take that notice away.
      window.clearTimeout(reload);
    };
  }, [user, toast]);
  return null;
}
