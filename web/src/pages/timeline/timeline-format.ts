import type { TicketTimelineEvent } from '@recado/contracts';
import type { MessageView } from '../../api/messages.js';
import type { ChatRow } from '../tickets/ticket-format.js';

export type EventRow = { kind: 'event'; key: string; event: TicketTimelineEvent };
export type TimelineRow = ChatRow | EventRow;

/**
 * Messages and timeline events in one sequence by time (a message first when both have the same moment),
 * with a day separator before each new day, as the chat shows them (ticket-format.ts `chatRows`). While
 * older messages are still to load (`complete` false), the events before the oldest loaded message wait
 * for them.
 */
export function timelineRows(
  messages: MessageView[],
  events: TicketTimelineEvent[],
  complete: boolean,
  label: (iso: string) => string,
): TimelineRow[] {
  const oldest = messages.length ? Date.parse(messages[0]!.createdAt) : -Infinity;
  const shown = events
    .filter((e) => complete || Date.parse(e.createdAt) >= oldest)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
  const rows: TimelineRow[] = [];
  let lastDay = '';
  const day = (iso: string) => {
    const d = new Date(iso).toDateString();
    if (d !== lastDay) {
      rows.push({ kind: 'day', key: `day-${d}`, label: label(iso) });
      lastDay = d;
    }
  };
  let i = 0;
  const flush = (before: number) => {
    while (i < shown.length && Date.parse(shown[i]!.createdAt) < before) {
      const e = shown[i++]!;
      day(e.createdAt);
      rows.push({ kind: 'event', key: `e-${e.id}`, event: e });
    }
  };
  for (const m of messages) {
    flush(Date.parse(m.createdAt));
    day(m.createdAt);
    rows.push({ kind: 'message', key: `m-${m.id}`, message: m });
  }
  flush(Infinity);
  return rows;
}

type T = (key: string, opts?: Record<string, unknown>) => string;

interface Side {
  queueName?: string | null;
  userName?: string | null;
  queueId?: number | null;
  userId?: number | null;
}

const sideLabel = (t: T, s: Side | undefined) => {
  const queue = s?.queueName ?? null;
  const user = s?.userName ?? null;
  if (queue && user) return t('side.queueUser', { queue, user });
  return queue ?? user ?? t('side.none');
};

/** The sentence of one timeline entry ("Ana transferiu de Vendas para Suporte"), in the user's language. */
export function describeEvent(e: TicketTimelineEvent, t: T, locale: string): string {
  const d = e.data as Record<string, unknown>;
  const actor =
    e.actorKind === 'user'
      ? (e.actorName ?? t('actor.someone'))
      : t(`actor.${e.actorKind}`, { defaultValue: t('actor.someone') });
  const from = d.from as Side | undefined;
  const to = d.to as Side | undefined;
  switch (e.type) {
    case 'created':
      return t('line.created', { actor });
    case 'bot': {
      if (d.back) return t('line.botBack');
      const option = d.option as { title?: string } | undefined;
      const queue = d.queue as { name?: string } | undefined;
      return t('line.bot', { choice: option?.title ?? queue?.name ?? '' });
    }
    case 'flow': {
      const flow = (d.flow as { name?: string | null } | undefined)?.name ?? '';
      const nodes = ((d.nodes as { label?: string | null; type?: string | null }[] | undefined) ?? [])
        .map((n) => n.label || n.type || '')
        .filter(Boolean)
        .join(' → ');
      return nodes ? t('line.flow', { flow, nodes }) : t('line.flowStarted', { flow });
    }
    case 'accepted':
      return e.actorKind === 'user' && (!to?.userId || to.userId === e.actorId)
        ? t('line.accepted', { actor })
        : t('line.assigned', { actor, user: to?.userName ?? t('actor.someone') });
    case 'transferred':
      return t('line.transferred', { actor, from: sideLabel(t, from), to: sideLabel(t, to) });
    case 'returned':
      return to?.queueName
        ? t('line.returned', { actor, queue: to.queueName })
        : t('line.returnedNoQueue', { actor });
    case 'tag_added':
    case 'tag_removed':
      return t(`line.${e.type}`, {
        actor,
        tag: (d.tag as { name?: string | null } | undefined)?.name ?? '?',
      });
    case 'priority':
      return t('line.priority', {
        actor,
        from: t(`priority.${String(d.from)}`, { defaultValue: String(d.from) }),
        to: t(`priority.${String(d.to)}`, { defaultValue: String(d.to) }),
      });
    case 'note':
      return t('line.note', { actor });
    case 'snoozed':
      return d.untilReply || !d.until
        ? t('line.snoozedReply', { actor })
        : t('line.snoozed', {
            actor,
            until: new Date(String(d.until)).toLocaleString(locale, {
              dateStyle: 'short',
              timeStyle: 'short',
            }),
          });
    case 'woken':
      return d.reason === 'time'
        ? t('line.wokenTime')
        : d.reason === 'reply'
          ? t('line.wokenReply')
          : t('line.wokenManual', { actor });
    case 'sla_breached':
      return t('line.sla_breached', { kind: t(`sla.${String(d.kind)}`, { defaultValue: String(d.kind) }) });
    case 'resolved': {
      const parts = [t('line.resolved', { actor })];
      if (d.reason) parts.push(t('line.reason', { reason: d.reason }));
      if (typeof d.saleValue === 'number')
        parts.push(
          t('line.sale', {
            value: d.saleValue.toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
          }),
        );
      return parts.join(' · ');
    }
    case 'reopened':
      return t('line.reopened', { actor });
    case 'rated':
      return t('line.rated', { rate: d.rate });
    case 'macro':
      return t('line.macro', { actor, name: d.name ?? '' });
    case 'merged':
      return t('line.merged', {
        actor,
        from: (d.from as { name?: string } | undefined)?.name ?? '?',
        into: (d.into as { name?: string } | undefined)?.name ?? '?',
      });
    case 'owner':
      return t('line.owner', { actor });
    default:
      return t('line.other', { actor, type: e.type });
  }
}

/** "14:02" (the day is on the separator above). */
export const eventTime = (iso: string, locale: string) =>
  new Date(iso).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
