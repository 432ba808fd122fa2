import { describe, expect, test } from 'vitest';
import { slaStatusOf, type TicketView } from '@recado/contracts';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';
import { ticketFits, type TicketFilter, type Viewer } from '../../api/tickets.js';
import { formatSlaDuration } from './sla-format.js';

const keysOf = (o: object, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keysOf(v as object, `${prefix}${k}.`) : [`${prefix}${k}`],
  );

describe('SLA texts', () => {
  test('pt, en and es have the same keys, none empty', () => {
    expect(keysOf(en).sort()).toEqual(keysOf(pt).sort());
    expect(keysOf(es).sort()).toEqual(keysOf(pt).sort());
    for (const dict of [pt, en, es])
      for (const k of keysOf(dict))
        expect(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], dict)).not.toBe('');
  });

  test('durations', () => {
    const t = (key: string, o?: Record<string, unknown>) => `${String(o?.n ?? '')}${key.split('.').pop()}`;
    expect(formatSlaDuration(30_000, t)).toBe('lessThanMinute');
    expect(formatSlaDuration(12 * 60_000, t)).toBe('12min');
    expect(formatSlaDuration(65 * 60_000, t)).toBe('1h 5min');
    expect(formatSlaDuration((26 * 60 + 5) * 60_000, t)).toBe('1d 2h');
  });
});

const now = Date.parse('2026-11-25T13:16:00Z');
const sla = (over: Partial<TicketView['sla']> = {}): TicketView['sla'] => ({
  firstResponseDueAt: '2026-11-25T13:20:00.000Z',
  nextResponseDueAt: null,
  resolutionDueAt: null,
  breached: [],
  atRiskAt: '2026-11-25T13:15:00.000Z',
  ...over,
});

describe('SLA colour and the list filter', () => {
  test('green, amber, red as the server filters', () => {
    expect(slaStatusOf(sla({ atRiskAt: '2026-11-25T13:17:00.000Z' }), now)).toBe('ok');
    expect(slaStatusOf(sla(), now)).toBe('at_risk');
    expect(slaStatusOf(sla({ firstResponseDueAt: '2026-11-25T13:16:00.000Z' }), now)).toBe('breached');
    expect(slaStatusOf(sla({ firstResponseDueAt: null, breached: ['first_response'] }), now)).toBe(
      'breached',
    );
    expect(slaStatusOf(sla({ firstResponseDueAt: null, atRiskAt: null }), now)).toBeNull();
  });

  test('a live ticket joins the "breached" list only when breached', () => {
    const viewer: Viewer = { id: 1, profile: 'admin', queueIds: [], showQueuelessTickets: true };
    const filter: TicketFilter = {
      searchParam: '',
      showAll: true,
      queueIds: [],
      users: [],
      tags: [],
      sla: 'breached',
    };
    const ticket = {
      id: 1,
      status: 'pending',
      userId: null,
      queueId: 1,
      tags: [],
      contact: { name: 'x', number: '1' },
    };
    const fits = (s: TicketView['sla']) =>
      ticketFits(filter, { ...ticket, sla: s } as unknown as TicketView, viewer);
    expect(fits(sla({ firstResponseDueAt: '2099-01-01T00:00:00.000Z', atRiskAt: null }))).toBe(false);
    expect(fits(sla({ breached: ['first_response'] }))).toBe(true);
  });
});
