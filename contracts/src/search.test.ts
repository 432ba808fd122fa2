import { expect, test } from 'vitest';
import { containsSearch, searchKey } from './search.js';

test('searches are blind to accents and case', () => {
  expect(searchKey('João LÚCIA Dúvida ÇÃO')).toBe('joao lucia duvida cao');
  const pairs: [string, string][] = [
    ['João Silva', 'joao'],
    ['João Silva', 'JOAO'],
    ['Lúcia', 'lucia'],
    ['Tenho uma dúvida', 'duvida'],
    ['Tenho uma duvida', 'DÚVIDA'],
    ['Straße', 'strasse'],
  ];
  for (const [text, search] of pairs) expect(containsSearch(text, search), `${text} / ${search}`).toBe(true);
  expect(containsSearch('João', 'maria')).toBe(false);
  expect(containsSearch(null, 'x')).toBe(false);
  expect(containsSearch('anything', '')).toBe(true);
});
