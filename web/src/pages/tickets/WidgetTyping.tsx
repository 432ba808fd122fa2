import { useCallback, useEffect, useRef, useState } from 'react';
import { Typography } from '@mui/material';
import type { TicketView } from '@recado/contracts';
import { request } from '../../api/client.js';
import { useAuth } from '../../app/auth.js';
import { getSocket } from '../../realtime/socket.js';
import { addNamespace } from '../../i18n/namespace.js';
import { useTranslation } from 'react-i18next';

/** #34.1 Typing between a website chat visitor and the attendant (docs/channels.md "Website chat"). */
addNamespace('widgetTyping', {
  pt: { typing: 'Visitante digitando…' },
  en: { typing: 'Visitor typing…' },
  es: { typing: 'Visitante escribiendo…' },
});

const isWebchat = (ticket: TicketView) => ticket.whatsapp?.channel === 'webchat';

/** The visitor typing on this ticket (the ticket room's `company-{id}-widgetTyping`), shown above the input. */
export function VisitorTyping({ ticket }: { ticket: TicketView }) {
  const { t } = useTranslation('widgetTyping');
  const { user } = useAuth();
  const [typing, setTyping] = useState(false);
  const companyId = user?.companyId;
  const webchat = isWebchat(ticket);
  useEffect(() => {
    if (!companyId || !webchat) return;
    const socket = getSocket();
    let clear: number | undefined;
    const event = `company-${companyId}-widgetTyping`;
    const on = (p: { ticketId: number; typing: boolean }) => {
      if (p.ticketId !== ticket.id) return;
      setTyping(p.typing);
      window.clearTimeout(clear);
      // A visitor who left without saying "stopped" stops showing after a while.
      if (p.typing) clear = window.setTimeout(() => setTyping(false), 6000);
    };
    socket.on(event, on);
    return () => {
      socket.off(event, on);
      window.clearTimeout(clear);
    };
  }, [companyId, webchat, ticket.id]);
  // A message from the visitor ends its typing.
  useEffect(() => setTyping(false), [ticket.lastMessage]);
  if (!typing) return null;
  return (
    <Typography
      data-testid="visitor-typing"
      variant="caption"
      color="text.secondary"
      sx={{ px: 2, py: 0.25 }}
    >
      {t('typing')}
    </Typography>
  );
}

/** Tells the visitor the attendant is typing (at most every 2 s; "stopped" after 3 s without keys). */
export function useAgentTyping(ticket: TicketView) {
  const sent = useRef(0);
  const stop = useRef<number | undefined>(undefined);
  const webchat = isWebchat(ticket) && ticket.status === 'open';
  const post = useCallback(
    (typing: boolean) =>
      void request('POST', `/tickets/${ticket.id}/widget-typing`, { body: { typing } }).catch(
        () => undefined,
      ),
    [ticket.id],
  );
  useEffect(() => () => window.clearTimeout(stop.current), []);
  return useCallback(() => {
    if (!webchat) return;
    const now = Date.now();
    if (now - sent.current > 2000) {
      sent.current = now;
      post(true);
    }
    window.clearTimeout(stop.current);
    stop.current = window.setTimeout(() => {
      sent.current = 0;
      post(false);
    }, 3000);
  }, [webchat, post]);
}
