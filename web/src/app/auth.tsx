import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { SUBSCRIPTION_WARNING_DAYS, type AuthAnswer, type AuthUser } from '@recado/contracts';
import {
  COMPANY_KEY,
  USER_ID_KEY,
  api,
  clearSession,
  currentToken,
  onForcedLogout,
  request,
  setToken,
} from '../api/client.js';
import { useToast } from './useToast.js';

interface AuthState {
  user: AuthUser | null;
  loading: boolean;
  /** Signed out by choice (the profile menu): the login page then forgets the page they were on. */
  loggedOut: boolean;
  login(email: string, password: string): Promise<AuthUser>;
  /** Takes a session the server opened another way (signup signs the new admin in). */
  signedIn(answer: AuthAnswer): AuthUser;
  logout(): Promise<void>;
  reload(): Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

/** The socket client is loaded only inside the app, never on the public pages (login bundle size). */
const closeSocket = () => {
  void import('../realtime/socket.js').then((m) => m.closeSocket());
};

/** The session id inside the access token, to tell "my" session from another login of the same user. */
export function tokenSessionId(token: string | null): string | null {
  if (!token) return null;
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
      sid?: string;
    };
    return payload.sid ?? null;
  } catch {
    return null;
  }
}

/** Whole days from today to dueDate (negative when past). */
export function daysUntil(dueDate: string | null | undefined, now = new Date()): number | null {
  if (!dueDate) return null;
  const due = new Date(`${dueDate.slice(0, 10)}T00:00:00`);
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return Math.round((due.getTime() - today.getTime()) / 86400000);
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<AuthUser | null>(null);
  const [loading, setLoading] = useState(Boolean(currentToken()));
  const [loggedOut, setLoggedOut] = useState(false);
  const queryClient = useQueryClient();
  const toast = useToast();

  const reset = useCallback(() => {
    closeSocket();
    clearSession();
    queryClient.clear();
    setUser(null);
  }, [queryClient]);

  const reload = useCallback(async () => {
    if (!currentToken()) {
      setLoading(false);
      return;
    }
    try {
      setUser(await api.get<AuthUser>('/auth/me'));
    } catch {
      reset();
    } finally {
      setLoading(false);
    }
  }, [reset]);

  useEffect(() => {
    void reload();
    return onForcedLogout(() => {
      closeSocket();
      queryClient.clear();
      setUser(null);
    });
  }, [reload, queryClient]);

  const signedIn = useCallback(
    (answer: AuthAnswer) => {
      setToken(answer.token);
      localStorage.setItem(COMPANY_KEY, String(answer.user.companyId));
      localStorage.setItem(USER_ID_KEY, String(answer.user.id));
      // The server counts on the company's calendar (its time zone), not the browser's.
      const days = answer.user.company.subscription?.daysLeft ?? daysUntil(answer.user.company.dueDate);
      if (days !== null && days < 0) toast.warning('auth.subscriptionExpired', { count: -days });
      else if (days !== null && days < SUBSCRIPTION_WARNING_DAYS)
        toast.warning('auth.subscriptionExpiring', { count: days });
      closeSocket();
      setLoggedOut(false);
      setUser(answer.user);
      return answer.user;
    },
    [toast],
  );

  const login = useCallback(
    async (email: string, password: string) =>
      signedIn(
        await request<AuthAnswer>('POST', '/auth/login', { body: { email, password }, anonymous: true }),
      ),
    [signedIn],
  );

  const logout = useCallback(async () => {
    try {
      await api.delete('/auth/logout');
    } catch {
      /* the session may already be gone */
    }
    setLoggedOut(true);
    reset();
  }, [reset]);

  const value = useMemo(
    () => ({ user, loading, loggedOut, login, signedIn, logout, reload }),
    [user, loading, loggedOut, login, signedIn, logout, reload],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside AuthProvider');
  return ctx;
}
