import { describe, expect, test } from 'vitest';
import { DEFAULT_QUEUE_SCHEDULES, WEEKDAYS, type DaySchedule } from '@recado/contracts';
import { answerKey, readAnswer, renderMenu, sortByKey } from './bot-menu.js';
import { closedPeriodKey, isOpen, localMoment, openInterval } from './business-hours.js';

const SP = 'America/Sao_Paulo'; // UTC-3, no daylight saving since 2019

describe('answers', () => {
  test.each([
    ['2', '2'],
    [' 2 ', '2'],
    ['2.', '2'],
    ['2)', '2'],
    ['*2*', '2'],
    ['[2]', '2'],
    ['02', '2'],
    ['2 - Enviado do meu iPhone', '2'],
    ['2\nEnviado do meu iPhone', '2'],
    ['2️⃣', '2'],
    ['2⃣', '2'],
    ['🔟', '10'],
    ['２', '2'],
    ['12', '12'],
    ['#', '#'],
    ['a) boletos', 'a'],
    ['Ação', 'acao'],
  ])('%j reads as %j', (body, key) => {
    expect(answerKey(body)).toBe(key);
  });

  test.each([[''], ['   '], ['?'], ['👍']])('%j reads as nothing', (body) => {
    expect(answerKey(body)).toBeNull();
  });

  const menu = [
    { key: '1', label: 'Vendas' },
    { key: '2', label: 'Suporte Técnico' },
  ];

  test('a key, or a whole label typed out, picks a choice; anything else is invalid', () => {
    expect(readAnswer('2 - Enviado do meu iPhone', menu, false)).toEqual({ kind: 'choice', index: 1 });
    expect(readAnswer('1️⃣', menu, false)).toEqual({ kind: 'choice', index: 0 });
    expect(readAnswer('  suporte tecnico ', menu, false)).toEqual({ kind: 'choice', index: 1 });
    expect(readAnswer('3', menu, false)).toEqual({ kind: 'invalid' });
    expect(readAnswer('quero falar com alguém', menu, false)).toEqual({ kind: 'invalid' });
    expect(readAnswer('', menu, false)).toEqual({ kind: 'invalid' });
  });

  test('0, # and "voltar" go back only where there is a way back; an option keyed 0 wins', () => {
    expect(readAnswer('0', menu, true)).toEqual({ kind: 'back' });
    expect(readAnswer('#', menu, true)).toEqual({ kind: 'back' });
    expect(readAnswer('Voltar', menu, true)).toEqual({ kind: 'back' });
    expect(readAnswer('0', menu, false)).toEqual({ kind: 'invalid' });
    const withZero = [{ key: '0', label: 'Outros' }, ...menu];
    expect(readAnswer('0', withZero, true)).toEqual({ kind: 'choice', index: 0 });
    expect(readAnswer('#', withZero, true)).toEqual({ kind: 'back' });
    expect(renderMenu('', withZero, true)).toContain('*#* - Voltar');
  });

  test('menus: header, a blank line, one numbered line per choice, the way back last', () => {
    expect(renderMenu('Olá! Escolha:', menu, false)).toBe(
      'Olá! Escolha:\n\n*1* - Vendas\n*2* - Suporte Técnico',
    );
    expect(renderMenu('', menu, true)).toBe('*1* - Vendas\n*2* - Suporte Técnico\n*0* - Voltar');
  });

  test('options are listed by number, then by text', () => {
    const sorted = sortByKey([{ option: '10' }, { option: 'b' }, { option: '2' }, { option: 'a' }]);
    expect(sorted.map((o) => o.option)).toEqual(['2', '10', 'a', 'b']);
  });
});

describe('business hours', () => {
  const week = (over: Partial<Record<(typeof WEEKDAYS)[number], [string, string]>> = {}): DaySchedule[] =>
    DEFAULT_QUEUE_SCHEDULES.map((d) => {
      const o = over[d.weekdayEn];
      return o ? { ...d, startTime: o[0], endTime: o[1] } : d;
    });

  test('the local wall clock of the company zone', () => {
    // 2026-11-23 is a Monday; 02:30 UTC is still Sunday 23:30 in São Paulo.
    expect(localMoment(new Date('2026-11-23T02:30:00Z'), SP)).toEqual({
      weekday: 'sunday',
      date: '2026-11-22',
      minutes: 23 * 60 + 30,
    });
  });

  test('a day: start inclusive, end exclusive, 00:00 as an end means midnight, equal times closed', () => {
    expect(openInterval({ weekday: 'x', weekdayEn: 'monday', startTime: '08:00', endTime: '18:00' })).toEqual(
      [480, 1080],
    );
    expect(openInterval({ weekday: 'x', weekdayEn: 'monday', startTime: '08:00', endTime: '00:00' })).toEqual(
      [480, 1440],
    );
    expect(
      openInterval({ weekday: 'x', weekdayEn: 'sunday', startTime: '00:00', endTime: '00:00' }),
    ).toBeNull();
    expect(openInterval({ weekday: 'x', weekdayEn: 'sunday', startTime: '', endTime: '' })).toBeNull();
    expect(
      openInterval({ weekday: 'x', weekdayEn: 'sunday', startTime: '18:00', endTime: '08:00' }),
    ).toBeNull();
  });

  test('open and closed moments of the default week (São Paulo)', () => {
    const w = week();
    expect(isOpen(w, new Date('2026-11-23T11:00:00Z'), SP)).toBe(true); // Mon 08:00
    expect(isOpen(w, new Date('2026-11-23T10:59:00Z'), SP)).toBe(false); // Mon 07:59
    expect(isOpen(w, new Date('2026-11-23T21:00:00Z'), SP)).toBe(false); // Mon 18:00
    expect(isOpen(w, new Date('2026-11-28T14:00:00Z'), SP)).toBe(true); // Sat 11:00
    expect(isOpen(w, new Date('2026-11-29T14:00:00Z'), SP)).toBe(false); // Sun
    expect(isOpen([], new Date('2026-11-23T14:00:00Z'), SP)).toBe(true); // nothing saved: the default week
  });

  test('one key per closed period: the moment it ends', () => {
    const w = week();
    const monNight = closedPeriodKey(w, new Date('2026-11-23T22:00:00Z'), SP); // Mon 19:00
    const tueDawn = closedPeriodKey(w, new Date('2026-11-24T09:00:00Z'), SP); // Tue 06:00
    expect(monNight).toBe('2026-11-24T08:00');
    expect(tueDawn).toBe(monNight);
    expect(closedPeriodKey(w, new Date('2026-11-24T14:00:00Z'), SP)).toBeNull(); // Tue 11:00: open
    expect(closedPeriodKey(w, new Date('2026-11-24T22:00:00Z'), SP)).toBe('2026-11-25T08:00'); // next night
    // Saturday afternoon to Monday morning is one period.
    const sat = closedPeriodKey(w, new Date('2026-11-28T18:00:00Z'), SP);
    const sun = closedPeriodKey(w, new Date('2026-11-29T18:00:00Z'), SP);
    expect(sat).toBe('2026-11-30T08:00');
    expect(sun).toBe(sat);
    // Open only on Mondays, asked on a Monday evening: next Monday.
    const mondays = WEEKDAYS.map((d) => ({
      weekday: d,
      weekdayEn: d,
      startTime: d === 'monday' ? '09:00' : '',
      endTime: d === 'monday' ? '10:00' : '',
    }));
    expect(closedPeriodKey(mondays, new Date('2026-11-23T22:00:00Z'), SP)).toBe('2026-11-30T09:00');
    const never = WEEKDAYS.map((d) => ({ weekday: d, weekdayEn: d, startTime: '00:00', endTime: '00:00' }));
    expect(closedPeriodKey(never, new Date('2026-11-23T22:00:00Z'), SP)).toBe('never');
  });
});
