import { canSeeTicket } from '@recado/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../app/auth.js';
import type { AuthUser } from '@recado/contracts';
import { joinNotification } from '../../realtime/socket.js';
import { useCompanyEvent } from '../../realtime/useCompanyEvent.js';

export const VOLUME_KEY = 'volume';

/** The notification volume the top bar keeps, 0 to 1 (1 when unset). */
export function notificationVolume(): number {
  const raw = Number(localStorage.getItem(VOLUME_KEY) ?? '1');
  return Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 1;
}

let audio: AudioContext | null = null;

/** A short two-tone beep through Web Audio, at the stored volume. */
export function playBeep(volume = notificationVolume()) {
  if (volume <= 0) return;
  const Ctor =
    window.AudioContext ??
    (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Ctor) return;
  try {
    audio ??= new Ctor();
    const ctx = audio;
    if (ctx.state === 'suspended') void ctx.resume().catch(() => undefined);
    const gain = ctx.createGain();
    gain.connect(ctx.destination);
    const start = ctx.currentTime;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(Math.max(0.0002, 0.25 * volume), start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.32);
    for (const [freq, at] of [
      [880, 0],
      [1320, 0.12],
    ] as const) {
      const osc = ctx.createOscillator();
      osc.type = 'sine';
      osc.frequency.setValueAtTime(freq, start + at);
      osc.connect(gain);
      osc.start(start + at);
      osc.stop(start + at + 0.16);
    }
  } catch {
    /* no sound device: nothing to do */
  }
}

// One message arrives once per room the socket is in (ticket, status list, notification), and more than
// one screen may use this hook: a message id is announced once.
const announced = new Set<number>();
const remember = (id: number) => {
  if (announced.has(id)) return false;
  announced.add(id);
  if (announced.size > 500) announced.delete(announced.values().next().value as number);
  return true;
};

/** Who may hear about a ticket: as the server's visibility (docs/visibility.md), judged from the event's ticket. */
export function mayNotify(
  ticket:
    | {
        userId?: number | null;
        queueId?: number | null;
        status?: string;
        automation?: { status: string } | null;
      }
    | undefined,
  user: Pick<AuthUser, 'id' | 'profile' | 'super' | 'queues' | 'showQueuelessTickets' | 'allTicket'>,
): boolean {
  if (!ticket) return true;
  // A customer an automation is answering waits for nobody yet: no beep (docs/automation.md).
  if (ticket.automation?.status === 'active') return false;
  // An assigned ticket notifies its attendant only; otherwise whoever may see it (contracts/visibility.ts).
  if (ticket.userId) return ticket.userId === user.id;
  return canSeeTicket(
    {
      userId: user.id,
      profile: user.profile,
      super: user.super,
      queueIds: user.queues.map((q) => q.id),
      showQueuelessTickets: user.showQueuelessTickets,
      allTicket: user.allTicket,
    },
    { userId: null, queueId: ticket.queueId ?? null, status: ticket.status ?? '' },
  );
}

export type PermissionState = NotificationPermission | 'unsupported';

const readPermission = (): PermissionState =>
  typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;

/**
 * The browser-notification permission, and a request for it to call from a click (browsers ignore, or
 * hold against the site, requests made without a user gesture: never on load).
 */
export function useNotificationPermission(): [PermissionState, () => void] {
  const [state, setState] = useState<PermissionState>(readPermission);
  // Changed in the browser's site settings while the page is open.
  useEffect(() => {
    const sync = () => setState(readPermission());
    window.addEventListener('focus', sync);
    return () => window.removeEventListener('focus', sync);
  }, []);
  const ask = useCallback(() => {
    if (typeof Notification === 'undefined') return;
    void Notification.requestPermission()
      .then(setState)
      .catch(() => setState(readPermission()));
  }, []);
  return [state, ask];
}

/**
 * New customer messages: a short sound at the top bar's volume, and a browser notification when
 * permitted and the page is hidden. Run once for the whole signed-in app (from the top bar). Messages
 * of tickets assigned to someone else, or of queues the user does not see, are not announced. Clicking
 * the notification opens the ticket.
 */
export function useTicketNotifications() {
  const { user } = useAuth();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);
  useEffect(() => {
    navigateRef.current = navigate;
  });

  const signedIn = Boolean(user);
  useEffect(() => {
    if (!signedIn) return;
    return joinNotification();
  }, [signedIn]);

  useCompanyEvent(
    'appMessage',
    (e) => {
      if (!user || e.action !== 'create' || !e.message || e.message.fromMe) return;
      const ticket = e.ticket;
      if (!mayNotify(ticket, user)) return;
      if (!remember(e.message.id)) return;
      playBeep();
      if (readPermission() !== 'granted') return;
      if (document.visibilityState !== 'hidden') return;
      const name = e.contact?.name ?? ticket?.contact?.name ?? '';
      // #34.4 The notification names the channel the customer wrote on (WhatsApp, Telegram, Instagram…).
      const channel = ticket?.whatsapp?.channel;
      const title = channel
        ? t('tickets.notification.titleOn', {
            name,
            channel: t(`connections.channels.${channel}`, { defaultValue: channel }),
          })
        : t('tickets.notification.title', { name });
      try {
        const n = new Notification(title, {
          body: e.message.body || t('tickets.notification.media'),
          tag: `ticket-${e.message.ticketId}`,
        });
        n.onclick = () => {
          window.focus();
          if (ticket?.uuid) void navigateRef.current(`/tickets/${ticket.uuid}`);
          n.close();
        };
      } catch (err) {
        console.info('notification not shown', err);
      }
    },
    signedIn,
  );
}
