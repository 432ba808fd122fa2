import { describe, expect, test } from 'vitest';
import { campaignEditable } from '@recado/contracts';
import {
  fillMessage,
  greetingAt,
  nextDelayMs,
  pickVariant,
  shippingProviderId,
  variantsOf,
} from './campaign-message.js';

const r = { name: 'Maria da Silva', number: '5511988880001', email: 'maria@x.test' };
const now = new Date('2026-03-02T15:00:00Z'); // 12:00 in São Paulo

describe('campaign messages', () => {
  test('fills every placeholder, case-insensitive, and the campaign variables; unknown ones stay', () => {
    const text = fillMessage(
      '{saudacao}, {Nome}! {primeiro-nome} ({numero}, {email}) cupom {CUPOM} prot {protocolo} {desconhecido}',
      r,
      { now, protocol: '77', variables: [{ key: 'cupom', value: 'X10' }] },
    );
    expect(text).toBe(
      'Boa tarde, Maria da Silva! Maria (5511988880001, maria@x.test) cupom X10 prot 77 {desconhecido}',
    );
    expect(
      fillMessage('{name} {firstName} {number} {greeting}', r, { now, protocol: '', variables: [] }),
    ).toBe('Maria da Silva Maria 5511988880001 Boa tarde');
  });

  test('greeting follows the hour in Brazil', () => {
    expect(greetingAt(new Date('2026-03-02T11:00:00Z'))).toBe('Bom dia'); // 08:00
    expect(greetingAt(new Date('2026-03-02T23:30:00Z'))).toBe('Boa noite'); // 20:30
  });

  test('variants: the non-empty ones, one chosen by the random number', () => {
    const c = { message1: 'a', message2: '  ', message3: 'c', message4: '', message5: 'e' };
    const v = variantsOf(c, 'message');
    expect(v).toEqual(['a', 'c', 'e']);
    expect(pickVariant(v, () => 0)).toBe('a');
    expect(pickVariant(v, () => 0.5)).toBe('c');
    expect(pickVariant(v, () => 0.9999)).toBe('e');
    expect(pickVariant([], () => 0.3)).toBe('');
  });

  test('the interval: greater after every N sends, otherwise between half and all of the interval', () => {
    const s = { messageInterval: 20, longerIntervalAfter: 3, greaterInterval: 60 };
    expect(nextDelayMs(3, s, () => 0.5)).toBe(60_000);
    expect(nextDelayMs(6, s, () => 0.5)).toBe(60_000);
    expect(nextDelayMs(1, s, () => 0)).toBe(10_000);
    expect(nextDelayMs(2, s, () => 0.999999)).toBe(20_000);
    expect(nextDelayMs(4, { ...s, messageInterval: 0 }, () => 0.7)).toBe(0);
    // 0 = "not defined": never the greater interval.
    expect(nextDelayMs(20, { ...s, longerIntervalAfter: 0 }, () => 0)).toBe(10_000);
  });

  test('provider ids are fixed per shipping and part, and look like WhatsApp ids', () => {
    const a = shippingProviderId(1, 2, 'm');
    expect(a).toBe(shippingProviderId(1, 2, 'm'));
    expect(a).not.toBe(shippingProviderId(1, 2, 'c'));
    expect(a).not.toBe(shippingProviderId(1, 3, 'm'));
    expect(a).toMatch(/^3EB0[0-9A-F]{18}$/);
  });

  test('edit lock: INATIVA, or PROGRAMADA more than an hour ahead', () => {
    const at = (ms: number) => new Date(now.getTime() + ms);
    expect(campaignEditable({ status: 'INATIVA', scheduledAt: null }, now)).toBe(true);
    expect(campaignEditable({ status: 'PROGRAMADA', scheduledAt: at(3600_001) }, now)).toBe(true);
    expect(campaignEditable({ status: 'PROGRAMADA', scheduledAt: at(3600_000) }, now)).toBe(false);
    expect(campaignEditable({ status: 'EM_ANDAMENTO', scheduledAt: at(-1) }, now)).toBe(false);
    expect(campaignEditable({ status: 'FINALIZADA', scheduledAt: null }, now)).toBe(false);
  });
});
