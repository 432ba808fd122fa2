import { describe, expect, test } from 'vitest';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';
import { formatOutage, formatRatio } from './health-i18n.js';

const keysOf = (o: object, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keysOf(v as object, `${prefix}${k}.`) : [`${prefix}${k}`],
  );

describe('connection health texts', () => {
  test('pt, en and es have the same keys, none empty', () => {
    expect(keysOf(en).sort()).toEqual(keysOf(pt).sort());
    expect(keysOf(es).sort()).toEqual(keysOf(pt).sort());
    for (const dict of [pt, en, es])
      for (const k of keysOf(dict))
        expect(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], dict)).not.toBe('');
  });

  test('outage lengths read like the server says them; ratios in the interface language', () => {
    expect([45, 300, 4800, 7200, 93_600].map(formatOutage)).toEqual([
      '45 s',
      '5 min',
      '1 h 20 min',
      '2 h',
      '1 d 2 h',
    ]);
    expect(formatRatio(0.99312, 'pt')).toBe('99,3%');
    expect(formatRatio(0.99312, 'en')).toBe('99.3%');
    expect(formatRatio(1, 'es').replace(/\s/g, ' ')).toBe('100 %');
  });
});
