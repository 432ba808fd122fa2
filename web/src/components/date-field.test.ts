import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

const SRC = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** A native date or time input: `type="date"`, `type: 'datetime-local'`, `type={'time'}`, ... */
const NATIVE = /\btype\s*(?:=|:)\s*\{?\s*["'`](date|datetime-local|time|month|week)["'`]/;
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('date fields (#29.16)', () => {
  test('no screen uses a native date or time input: they follow the browser, not the app language', () => {
    // DateField shows and takes dates in the interface language's order and clock; a native input would
    // show "11/27/2026, 01:54 AM" to a Portuguese user whose browser is in American English.
    const native = sources(SRC)
      .filter((file) => NATIVE.test(withoutComments(readFileSync(file, 'utf8'))))
      .map((file) => relative(SRC, file));
    expect(native, 'use components/DateField instead').toEqual([]);
  });
});
