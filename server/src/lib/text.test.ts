import { expect, test } from 'vitest';
import { cleanDeep, cleanText, truncate } from './text.js';

const wellFormed = (s: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

test('truncate never splits a surrogate pair or a grapheme cluster', () => {
  const text = 'a'.repeat(254) + '😀' + 'tail';
  expect(text.slice(0, 255)).not.toSatisfy(wellFormed);
  expect(truncate(text, 255)).toBe('a'.repeat(254));
  const family = '👨‍👩‍👧‍👦';
  expect(truncate('x' + family + 'y', 5)).toBe('x');
  expect(truncate('x' + family + 'y', 1 + family.length)).toBe('x' + family);
  expect(truncate('🇧🇷🇧🇷', 6)).toBe('🇧🇷');
  expect(truncate('short', 255)).toBe('short');
});

test('cleanText removes NUL bytes and replaces lone surrogates; whole emoji stay', () => {
  expect(cleanText('a\0b')).toBe('ab');
  expect(cleanText('x\ud83dy')).toBe('x\ufffdy');
  expect(cleanText('x\ude00')).toBe('x\ufffd');
  expect(cleanText('ok 😀')).toBe('ok 😀');
  expect(cleanDeep({ a: ['\0', { 'k\ud800': 'v\udc00' }], n: 1, b: null })).toEqual({
    a: ['', { 'k\ufffd': 'v\ufffd' }],
    n: 1,
    b: null,
  });
});
