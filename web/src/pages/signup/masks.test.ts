import { describe, expect, test } from 'vitest';
import { maskDocument, maskPhone } from './masks.js';

describe('signup masks', () => {
  test('phone follows (99) 99999-9999 and keeps at most 11 digits', () => {
    expect(maskPhone('')).toBe('');
    expect(maskPhone('1')).toBe('(1');
    expect(maskPhone('119')).toBe('(11) 9');
    expect(maskPhone('1187654321')).toBe('(11) 8765-4321');
    expect(maskPhone('11987654321')).toBe('(11) 98765-4321');
    expect(maskPhone('(11) 98765-43219999')).toBe('(11) 98765-4321');
  });
  test('document is a CPF up to 11 digits and a CNPJ beyond, 18 characters at most', () => {
    expect(maskDocument('529')).toBe('529');
    expect(maskDocument('5299')).toBe('529.9');
    expect(maskDocument('52998224725')).toBe('529.982.247-25');
    expect(maskDocument('11222333000181')).toBe('11.222.333/0001-81');
    expect(maskDocument('112223330001819999')).toHaveLength(18);
  });
});
