import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from './client.js';

/**
 * Web Push in this browser (docs/push.md): the service worker (/sw.js), the browser's subscription with
 * the server's VAPID key, and the server's record of it. Opt-in only, from the profile menu.
 */
export type PushState = 'unsupported' | 'denied' | 'off' | 'on' | 'busy';

const supported = () =>
  typeof window !== 'undefined' &&
  'serviceWorker' in navigator &&
  'PushManager' in window &&
  'Notification' in window &&
  window.isSecureContext;

const registration = () => navigator.serviceWorker.register('/sw.js', { scope: '/' });

const keyBytes = (base64url: string) => {
  const raw = atob(
    base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4),
  );
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};

export function usePushSubscription(enabled: boolean) {
  const [state, setState] = useState<PushState>('busy');

  const check = useCallback(async () => {
    if (!supported()) return setState('unsupported');
    if (Notification.permission === 'denied') return setState('denied');
    const { publicKey } = await api.get<{ publicKey: string | null }>('/push/public-key');
    if (!publicKey) return setState('unsupported');
    const reg = await navigator.serviceWorker.getRegistration('/');
    const sub = await reg?.pushManager.getSubscription();
    if (!sub) return setState('off');
    const { subscribed } = await api.post<{ subscribed: boolean }>('/push/subscriptions/status', {
      endpoint: sub.endpoint,
    });
    setState(subscribed ? 'on' : 'off');
  }, []);

  useEffect(() => {
    if (enabled) check().catch(() => setState('off'));
  }, [enabled, check]);

  const turnOn = useCallback(async () => {
    setState('busy');
    try {
      if (!supported()) return setState('unsupported');
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') return setState(permission === 'denied' ? 'denied' : 'off');
      const { publicKey } = await api.get<{ publicKey: string | null }>('/push/public-key');
      if (!publicKey) return setState('unsupported');
      const reg = await registration();
      await navigator.serviceWorker.ready;
      const sub =
        (await reg.pushManager.getSubscription()) ??
        (await reg.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(publicKey),
        }));
      await api.post('/push/subscriptions', sub.toJSON());
      setState('on');
      return 'on';
    } catch (err) {
      setState('off');
      throw err;
    }
  }, []);

  const turnOff = useCallback(async () => {
    setState('busy');
    try {
      const reg = await navigator.serviceWorker.getRegistration('/');
      const sub = await reg?.pushManager.getSubscription();
      if (sub) {
        await api.post('/push/unsubscribe', { endpoint: sub.endpoint });
        await sub.unsubscribe();
      }
    } finally {
      setState('off');
    }
  }, []);

  return { state, turnOn, turnOff };
}

/** A click on a push while a tab is open: the service worker asks the app to go there. */
export function usePushNavigation() {
  const navigate = useNavigate();
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    const onMessage = (e: MessageEvent) => {
      const data = e.data as { type?: string; url?: string } | null;
      if (
        data?.type === 'recado:navigate' &&
        typeof data.url === 'string' &&
        data.url.startsWith('/') &&
        !data.url.startsWith('//')
      )
        void navigate(data.url);
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    return () => navigator.serviceWorker.removeEventListener('message', onMessage);
  }, [navigate]);
}

/** At logout: this browser stops receiving the user's pushes (best effort). */
export async function forgetPushSubscription() {
  if (!supported()) return;
  try {
    const reg = await navigator.serviceWorker.getRegistration('/');
    const sub = await reg?.pushManager.getSubscription();
    if (!sub) return;
    await api.post('/push/unsubscribe', { endpoint: sub.endpoint }).catch(() => undefined);
    await sub.unsubscribe();
  } catch {
    // Nothing to forget.
  }
}
