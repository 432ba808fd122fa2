import type { Server, Socket } from 'socket.io';
import { WIDGET_EVENTS } from '@recado/contracts';
import { AppError } from '../../../http/errors.js';
import { originAllowed } from './webchat-config.js';
import { widgetRoom, type VisitorRow, type Widget, type WidgetService } from './webchat-service.js';

export const WIDGET_NAMESPACE = '/widget';

const refusal = (code: string) => Object.assign(new Error(code), { data: { code } });

/**
 * A handshake from a page the app's own origin policy refuses may still be a widget's: it names its widget
 * (`?widget=<publicId>`) and its Origin is on that widget's list. Its socket can only enter /widget (the
 * main namespace refuses foreign origins again, socket-server.ts).
 */
export const widgetHandshake =
  (widgets: WidgetService) =>
  async (url: string | undefined, origin: string | undefined): Promise<boolean> => {
    const publicId = new URL(url ?? '/', 'http://x').searchParams.get('widget');
    if (!publicId || !origin) return false;
    const w = await widgets.widget(publicId).catch(() => undefined);
    return Boolean(w && originAllowed(w.config, origin));
  };

/**
 * #34.1 The widget's socket namespace: auth `{ publicId, visitorToken }`, the page's Origin on the widget's
 * list, and the socket in its own visitor's room only (nothing a visitor sends can make it join another).
 */
export function attachWidgetNamespace(
  io: Server,
  widgets: WidgetService,
  log?: { warn(o: object, m: string): void },
) {
  const nsp = io.of(WIDGET_NAMESPACE);
  nsp.use(async (socket, next) => {
    const auth = (socket.handshake.auth ?? {}) as { publicId?: unknown; visitorToken?: unknown };
    const origin = socket.handshake.headers.origin;
    try {
      const w = await widgets.widgetFor(String(auth.publicId ?? ''), origin);
      const v = await widgets.visitorOf(
        w,
        typeof auth.visitorToken === 'string' ? auth.visitorToken : undefined,
      );
      socket.data.widget = w;
      socket.data.visitor = v;
      next();
    } catch (err) {
      next(refusal(err instanceof AppError ? err.code : 'ERR_INTERNAL_SERVER_ERROR'));
    }
  });
  nsp.on('connection', (socket: Socket) => {
    const w = socket.data.widget as Widget;
    const v = socket.data.visitor as VisitorRow;
    void socket.join(widgetRoom(w.whatsappId, v.id));
    const answer = (ack: unknown, p: Promise<unknown>) =>
      p.then(
        (r) => typeof ack === 'function' && ack({ ok: true, message: r }),
        (err: unknown) => {
          if (!(err instanceof AppError)) log?.warn({ err: String(err) }, 'widget socket call failed');
          if (typeof ack === 'function')
            ack({ ok: false, error: err instanceof AppError ? err.code : 'ERR_INTERNAL_SERVER_ERROR' });
        },
      );
    socket.on(WIDGET_EVENTS.send, (p: unknown, ack?: unknown) =>
      answer(ack, widgets.sendText(w, v, String((p as { body?: unknown } | null)?.body ?? ''))),
    );
    socket.on(WIDGET_EVENTS.seen, (ack?: unknown) => answer(ack, widgets.seen(w, v)));
    socket.on(WIDGET_EVENTS.typing, (p: unknown) =>
      answer(undefined, widgets.typing(w, v, Boolean((p as { typing?: unknown } | null)?.typing))),
    );
  });
  return nsp;
}
