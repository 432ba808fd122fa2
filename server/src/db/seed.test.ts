import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { loadConfig } from '../config.js';
import { verifyPassword } from '../lib/passwords.js';
import { freshDatabase } from '../../test/helpers.js';
import { users } from './schema/index.js';
import { DEMO, seed } from './seed.js';

const STRONG = {
  APP_SECRET: 'Vq3xY8rT2mKp9LwZ4nB7cD1fG6hJ0sAe',
  JWT_SECRET: 'k2P9sR4tW7yB1nM5qX8vC3zL6dF0gHjU',
};
const dir = () => mkdtempSync(join(tmpdir(), 'recado-seed-'));

const database = await freshDatabase();
afterAll(() => database.drop());

const hashOf = async (email: string) =>
  (await database.db.select({ h: users.passwordHash }).from(users).where(eq(users.email, email)))[0]!.h;

describe('seeding a production install', () => {
  test('config + seed: no demo company, and the generated super password never reaches the log', async () => {
    const DATA_DIR = dir();
    const config = loadConfig({ NODE_ENV: 'production', DATA_DIR, ...STRONG });
    expect(config.seedDemo).toBe(false);
    const lines: string[] = [];
    const out = await seed(database.db, {
      demo: config.seedDemo,
      dataDir: config.dataDir,
      production: true,
      print: (l) => lines.push(l),
    });
    const password = out.superuserPassword!;
    expect(password.length).toBeGreaterThanOrEqual(12);
    const log = lines.join('\n');
    expect(log).not.toContain(password);
    const file = join(DATA_DIR, 'superuser.txt');
    expect(log).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(password);
    expect(await verifyPassword(await hashOf('super@recado.local'), password)).toBe(true);
    const demo = await database.db
      .select()
      .from(users)
      .where(inArray(users.email, [DEMO.admin.email, DEMO.attendant.email]));
    expect(demo).toHaveLength(0);
  });

  test('seed refuses the demo company in production', async () => {
    await expect(seed(database.db, { demo: true, dataDir: dir(), production: true })).rejects.toThrow(/demo/);
  });

  test('demo users left from a trial lose the published password when the install goes to production', async () => {
    // First start as a trial (outside production): the demo company with the README's passwords.
    await seed(database.db, { demo: true, print: () => undefined });
    expect(await verifyPassword(await hashOf(DEMO.admin.email), DEMO.admin.password)).toBe(true);
    const lines: string[] = [];
    await seed(database.db, { demo: false, dataDir: dir(), production: true, print: (l) => lines.push(l) });
    for (const email of [DEMO.admin.email, DEMO.attendant.email])
      expect(await verifyPassword(await hashOf(email), DEMO.admin.password), email).toBe(false);
    expect(lines.join('\n')).toContain(DEMO.admin.email);
  });
});
