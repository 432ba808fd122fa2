import { describe, expect, test } from 'vitest';
import i18next from 'i18next';
import { ERROR_CODES, SETTING_KEYS, SETTING_VALUES } from '@recado/contracts';
import pt from './pt.json';
import en from './en.json';
import es from './es.json';

const flat = (o: object, p = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? flat(v, `${p}${k}.`) : [`${p}${k}`]));

describe('translations', () => {
  test('en and es have exactly the keys of pt', () => {
    const keys = flat(pt).sort();
    expect(flat(en).sort()).toEqual(keys);
    expect(flat(es).sort()).toEqual(keys);
  });
  test('every server error code has a message in every language', () => {
    for (const lang of [pt, en, es])
      for (const code of ERROR_CODES) expect((lang.errors as Record<string, string>)[code]).toBeTruthy();
  });
  test('every company setting the options screen lists has a label, a help text and its values named', () => {
    for (const lang of [pt, en, es]) {
      const s = lang.settings as unknown as {
        keys: Record<string, string>;
        help: Record<string, string>;
        values: Record<string, Record<string, string>>;
      };
      expect(SETTING_KEYS.filter((k) => !s.keys[k] || !s.help[k])).toEqual([]);
      const unnamed = Object.entries(SETTING_VALUES as Record<string, readonly string[]>).flatMap(([k, vs]) =>
        vs.filter((v) => !s.values[k]?.[v]).map((v) => `${k}.${v}`),
      );
      expect(unnamed).toEqual([]);
    }
  });
  test('no value is empty', () => {
    for (const lang of [pt, en, es]) {
      const values = flat(lang).map((k) =>
        k.split('.').reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], lang),
      );
      expect(values.filter((v) => typeof v !== 'string' || v.trim() === '')).toEqual([]);
    }
  });
});

describe('plurals', () => {
  test('the dashboard counts its ratings in the singular for one, in every language (#29.12)', async () => {
    const i18n = i18next.createInstance();
    await i18n.init({
      resources: { pt: { translation: pt }, en: { translation: en }, es: { translation: es } },
      lng: 'pt',
      interpolation: { escapeValue: false },
    });
    const ratings = (lng: string) => [0, 1, 2].map((count) => i18n.t('dashboard.ratings', { lng, count }));
    expect(ratings('pt')).toEqual(['Nenhuma avaliação', '1 avaliação', '2 avaliações']);
    expect(ratings('en')).toEqual(['No ratings', '1 rating', '2 ratings']);
    expect(ratings('es')).toEqual(['Ninguna valoración', '1 valoración', '2 valoraciones']);
  });
});
