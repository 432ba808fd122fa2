import { and, desc, eq, inArray } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rooms, WIDGET_EVENTS } from '@recado/contracts';
import type { Db } from '../../../db/client.js';
import { contactIdentities, tickets, whatsapps } from '../../../db/schema/index.js';
import { access } from '../../../http/access.js';
import { AppError } from '../../../http/errors.js';
import type { AppModule } from '../../../modules/app-module.js';
import type { Events } from '../../../realtime/events.js';
import { webchatRoutes } from './webchat-routes.js';
import { widgetRoom, type Widget, type WidgetService } from './webchat-service.js';

/** The ticket rooms' event for a visitor typing: `company-{id}-widgetTyping`, `{ ticketId, typing }`. */
export const widgetTypingEvent = (companyId: number) => `company-${companyId}-widgetTyping`;

/** The visitor's open ticket on this widget (its 'webchat' identity's contact). */
async function visitorTicket(db: Db, w: Widget, visitorId: string) {
  const [t] = await db
    .select({ id: tickets.id })
    .from(tickets)
    .innerJoin(contactIdentities, eq(contactIdentities.contactId, tickets.contactId))
    .where(
      and(
        eq(contactIdentities.companyId, w.companyId),
        eq(contactIdentities.kind, 'webchat'),
        eq(contactIdentities.value, visitorId),
        eq(tickets.companyId, w.companyId),
        eq(tickets.whatsappId, w.whatsappId),
        inArray(tickets.status, ['open', 'pending']),
      ),
    )
    .orderBy(desc(tickets.id))
    .limit(1);
  return t?.id;
}

/** Typing from the visitor to the attendants on its ticket (the ticket's room). */
export const visitorTyping =
  (db: Db, events: Events) =>
  async (w: Widget, visitorId: string, typing: boolean): Promise<void> => {
    const ticketId = await visitorTicket(db, w, visitorId);
    if (ticketId)
      events.toRoomNamed(rooms.ticket(w.companyId, ticketId), widgetTypingEvent(w.companyId), {
        ticketId,
        typing,
      });
  };

/** POST /api/tickets/:id/widget-typing: an attendant typing on a website chat ticket, shown in the widget. */
const agentTypingRoutes =
  (db: Db, emit: (room: string, event: string, payload: unknown) => void): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/tickets/:id/widget-typing',
      {
        config: access.user,
        schema: {
          params: z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) }),
          body: z.object({ typing: z.boolean() }),
          response: { 200: z.object({ ok: z.boolean() }) },
        },
      },
      async (req) => {
        const [t] = await db
          .select({ whatsappId: tickets.whatsappId, visitorId: contactIdentities.value })
          .from(tickets)
          .innerJoin(whatsapps, eq(whatsapps.id, tickets.whatsappId))
          .innerJoin(
            contactIdentities,
            and(eq(contactIdentities.contactId, tickets.contactId), eq(contactIdentities.kind, 'webchat')),
          )
          .where(
            and(
              eq(tickets.id, req.params.id),
              eq(tickets.companyId, req.tenant.companyId),
              eq(whatsapps.channel, 'webchat'),
            ),
          )
          .limit(1);
        if (!t?.whatsappId) throw new AppError('ERR_NO_TICKET_FOUND', 404);
        emit(widgetRoom(t.whatsappId, t.visitorId), WIDGET_EVENTS.typing, { typing: req.body.typing });
        return { ok: true };
      },
    );
  };

/** #34.1 The website chat widget's HTTP API (public) and the attendants' typing route (docs/channels.md). */
export const webchatModule = (deps: {
  db: Db;
  widgets: WidgetService;
  emit: (room: string, event: string, payload: unknown) => void;
}): AppModule => ({
  name: 'webchat',
  openRoutes: [webchatRoutes(deps.widgets)],
  routes: [agentTypingRoutes(deps.db, deps.emit)],
});
