import { expect, test } from 'vitest';
import { formatNumber, legacyBrazilianNumber, normalizeNumber, numberForEdit } from './phone.js';

test('Brazilian mobiles with and without the ninth digit become one number', () => {
  expect(normalizeNumber('(11) 98888-7777')).toBe('5511988887777');
  expect(normalizeNumber('5511988887777')).toBe('5511988887777');
  expect(normalizeNumber('551188887777')).toBe('5511988887777');
  expect(normalizeNumber('+55 11 8888-7777')).toBe('5511988887777');
});

test('landlines and foreign numbers are kept', () => {
  expect(normalizeNumber('(11) 3333-4444')).toBe('551133334444');
  expect(normalizeNumber('+1 415 555 2671')).toBe('14155552671');
  expect(normalizeNumber('351912345678')).toBe('351912345678');
});

test('legacy form and display', () => {
  expect(legacyBrazilianNumber('5511988887777')).toBe('551188887777');
  expect(legacyBrazilianNumber('551133334444')).toBeNull();
  expect(formatNumber('5511988887777')).toBe('(11) 98888-7777');
  expect(formatNumber('551133334444')).toBe('(11) 3333-4444');
  expect(formatNumber('14155552671')).toBe('+14155552671');
  expect(numberForEdit('5511988887777')).toBe('11988887777');
});
