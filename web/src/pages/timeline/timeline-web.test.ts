import { describe, expect, test } from 'vitest';
import i18next from 'i18next';
import type { TicketTimelineEvent } from '@recado/contracts';
import type { MessageView } from '../../api/messages.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';
import { describeEvent, timelineRows } from './timeline-format.js';

const keysOf = (o: object, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keysOf(v as object, `${prefix}${k}.`) : [`${prefix}${k}`],
  );

const event = (id: number, at: string, type: string, extra: Partial<TicketTimelineEvent> = {}) =>
  ({
    id,
    ticketId: 1,
    type,
    actorKind: 'user',
    actorId: 7,
    actorName: 'Ana',
    data: {},
    createdAt: at,
    ...extra,
  }) as TicketTimelineEvent;
const message = (id: number, at: string) => ({ id, createdAt: at }) as MessageView;

describe('ticket timeline (web)', () => {
  test('pt, en and es have the same keys, none empty', () => {
    expect(keysOf(en).sort()).toEqual(keysOf(pt).sort());
    expect(keysOf(es).sort()).toEqual(keysOf(pt).sort());
    for (const dict of [pt, en, es])
      for (const k of keysOf(dict))
        expect(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], dict)).not.toBe('');
  });

  test('events go between the messages by time, with day separators; older ones wait for older pages', () => {
    const messages = [message(10, '2026-11-23T12:00:00Z'), message(11, '2026-11-24T12:00:00Z')];
    const events = [
      event(3, '2026-11-24T13:00:00Z', 'resolved'),
      event(1, '2026-11-22T09:00:00Z', 'created'),
      event(2, '2026-11-23T12:00:00Z', 'accepted'),
    ];
    const label = (iso: string) => iso.slice(0, 10);
    const keys = (complete: boolean) => timelineRows(messages, events, complete, label).map((r) => r.key);
    const day = (iso: string) => `day-${new Date(iso).toDateString()}`;
    expect(keys(true)).toEqual([
      day('2026-11-22T09:00:00Z'),
      'e-1',
      day('2026-11-23T12:00:00Z'),
      'm-10',
      'e-2',
      day('2026-11-24T12:00:00Z'),
      'm-11',
      'e-3',
    ]);
    expect(keys(false)).toEqual([
      day('2026-11-23T12:00:00Z'),
      'm-10',
      'e-2',
      day('2026-11-24T12:00:00Z'),
      'm-11',
      'e-3',
    ]);
  });

  test('the lines read as sentences in each language', async () => {
    const i18n = i18next.createInstance();
    await i18n.init({
      showSupportNotice: false,
      lng: 'pt',
      resources: { pt: { translation: pt }, en: { translation: en } },
    });
    const transfer = event(5, '2026-11-23T14:02:00Z', 'transferred', {
      data: {
        from: { queueId: 1, queueName: 'Vendas', userId: null, userName: null },
        to: { queueId: 2, queueName: 'Suporte', userId: null, userName: null },
      },
    });
    const t = i18n.t.bind(i18n) as never;
    expect(describeEvent(transfer, t, 'pt-BR')).toBe('Ana transferiu de Vendas para Suporte');
    const resolved = event(6, '2026-11-23T15:00:00Z', 'resolved', {
      data: { reason: 'Venda feita', saleValue: 150.5 },
    });
    expect(describeEvent(resolved, t, 'pt-BR')).toBe(
      'Ana resolveu o ticket · motivo: Venda feita · venda: 150,50',
    );
    const bot = event(7, '2026-11-23T15:00:00Z', 'bot', {
      actorKind: 'bot',
      actorId: null,
      actorName: null,
      data: { option: { id: 1, title: 'Planos' } },
    });
    expect(describeEvent(bot, t, 'pt-BR')).toBe('Bot: o cliente escolheu Planos');
    await i18n.changeLanguage('en');
    const breach = event(8, '2026-11-23T15:00:00Z', 'sla_breached', {
      actorKind: 'system',
      actorId: null,
      actorName: null,
      data: { kind: 'first_response' },
    });
    expect(describeEvent(breach, t, 'en')).toBe('SLA breached: first response');
    expect(
      describeEvent(
        event(9, '2026-11-23T15:00:00Z', 'priority', { data: { from: 'normal', to: 'urgent' } }),
        t,
        'en',
      ),
    ).toBe('Ana changed the priority from normal to urgent');
  });
});
