import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * package.json says `engines.node >=20` (GUIDE §7); Vite 8 already needs 20.19, so that is the floor every
 * locked package must accept — npm warns (EBADENGINE) about any that does not, as cookie@2 (>=22) did.
 */
const FLOOR = [20, 19, 0];

const root = new URL('../../', import.meta.url);
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

const parse = (v: string) =>
  v
    .replace(/^v/, '')
    .split('.')
    .map((n) => (/^\d+$/.test(n) ? Number(n) : 0));
const cmp = (a: number[], b: number[]) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/** A small semver range check (>=, >, <=, <, =, ^, ~, x and *), enough for engines fields. */
function satisfies(version: number[], range: string): boolean {
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c && c !== '*' && c !== 'x')
      .every((c) => {
        const m = /^(>=|<=|>|<|=|\^|~)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(c);
        if (!m) return true;
        const [, op = '=', major, minor, patch] = m;
        const wild = (s?: string) => s === undefined || s === 'x' || s === '*';
        const base = parse(`${major}.${wild(minor) ? 0 : minor}.${wild(patch) ? 0 : patch}`);
        const d = cmp(version, base);
        const upper = (next: number[]) => cmp(version, next) < 0;
        switch (op) {
          case '>=':
            return d >= 0;
          case '>':
            return d > 0;
          case '<=':
            return d <= 0;
          case '<':
            return d < 0;
          case '^':
            return d >= 0 && upper(base[0] ? [base[0] + 1, 0, 0] : [0, (base[1] ?? 0) + 1, 0]);
          case '~':
            return d >= 0 && upper(wild(minor) ? [base[0]! + 1, 0, 0] : [base[0]!, base[1]! + 1, 0]);
          default:
            if (wild(minor)) return version[0] === base[0];
            if (wild(patch)) return version[0] === base[0] && version[1] === base[1];
            return d === 0;
        }
      }),
  );
}

describe('engines', () => {
  it('reads ranges like npm', () => {
    expect(satisfies([20, 19, 0], '>=18')).toBe(true);
    expect(satisfies([20, 19, 0], '>=22')).toBe(false);
    expect(satisfies([20, 19, 0], '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies([20, 18, 3], '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies([20, 19, 0], '^18.18.0 || ^20.9.0 || >=21.1.0')).toBe(true);
    expect(satisfies([20, 19, 0], '>= 14.17')).toBe(true);
    expect(satisfies([20, 19, 0], '10 || 12 || >=14')).toBe(true);
    expect(satisfies([20, 19, 0], '20.x')).toBe(true);
    expect(satisfies([20, 19, 0], '~20.18.0')).toBe(false);
  });

  it('every locked package accepts the Node 20 line the project supports', () => {
    const refused = Object.entries(lock.packages)
      .filter(([path, p]) => path && !Array.isArray(p.engines) && p.engines?.node)
      .filter(([, p]) => !satisfies(FLOOR, (p.engines as { node: string }).node))
      .map(([path, p]) => `${path} (${(p.engines as { node: string }).node})`);
    expect(refused).toEqual([]);
  });
});
