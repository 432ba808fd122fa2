import { describe, expect, test } from 'vitest';
import {
  CHANNEL_KINDS,
  CONDITION_OPERATORS,
  FLOW_EXITS,
  FLOW_ISSUE_CODES,
  FLOW_NODE_TYPES,
  FLOW_OPTION_DISPLAYS,
  FLOW_REFERENCE_KINDS,
  FLOW_RUN_STATUSES,
  QUESTION_VALIDATIONS,
  WEEKDAYS,
} from '@recado/contracts';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';
import appPt from '../../i18n/pt.json';
import appEn from '../../i18n/en.json';
import appEs from '../../i18n/es.json';
import { PALETTE_TYPES } from './node-meta.js';

const flat = (o: object, p = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? flat(v, `${p}${k}.`) : [`${p}${k}`]));
const read = (dict: object, path: string) =>
  path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], dict);

describe('flow screens texts (the `flows` namespace)', () => {
  test('en and es have exactly the keys of pt, and no value is empty', () => {
    const keys = flat(pt).sort();
    expect(flat(en).sort()).toEqual(keys);
    expect(flat(es).sort()).toEqual(keys);
    for (const lang of [pt, en, es])
      expect(
        flat(lang).filter((k) => typeof read(lang, k) !== 'string' || !String(read(lang, k)).trim()),
      ).toEqual([]);
  });

  test('every name the contract gives has words: node types, exits, issues, validations, operators, statuses', () => {
    const wanted = [
      ...FLOW_NODE_TYPES.map((t) => `types.${t}`),
      ...PALETTE_TYPES.map((t) => `palette.help.${t}`),
      ...Object.values(FLOW_EXITS)
        .flat()
        .map((e) => `exits.${e}`),
      'exits.else',
      'exits.rule',
      ...FLOW_ISSUE_CODES.map((c) => `issues.${c}`),
      ...QUESTION_VALIDATIONS.map((v) => `validations.${v}`),
      ...CONDITION_OPERATORS.map((o) => `operators.${o}`),
      ...FLOW_OPTION_DISPLAYS.map((d) => `optionDisplays.${d}`),
      ...FLOW_REFERENCE_KINDS.map((k) => `refKinds.${k}`),
      ...FLOW_RUN_STATUSES.map((s) => `try.status.${s}`),
      ...CHANNEL_KINDS.map((c) => `channels.${c}`),
      ...WEEKDAYS.map((w) => `weekdays.${w}`),
    ];
    for (const lang of [pt, en, es])
      expect(wanted.filter((k) => typeof read(lang, k) !== 'string')).toEqual([]);
  });

  test("the list's title is the side menu's name of the screen, in each language", () => {
    expect(pt.list.title).toBe(read(appPt, 'menu.flows'));
    expect(en.list.title).toBe(read(appEn, 'menu.flows'));
    expect(es.list.title).toBe(read(appEs, 'menu.flows'));
  });
});
