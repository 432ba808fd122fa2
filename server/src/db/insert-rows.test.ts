import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, expect, test } from 'vitest';
import { freshDatabase } from '../../test/helpers.js';
import { insertRows, rowOf } from './rows.js';
import { companies, eventOutbox, plans } from './schema/index.js';

// db/rows.ts insertRows: the hot inserts' one prepared statement (rows as one JSON parameter) must store what
// drizzle's own insert stores - every type cast back, defaults where a key is absent, NULL where it is null.
const database = await freshDatabase();
afterAll(() => database.drop());
const { db } = database;

test('values of every kind arrive as drizzle would store them; absent keys take their defaults', async () => {
  const raw = await insertRows(db, plans, [{ name: 'ins-a', value: 12.5, useKanban: false }], {
    returning: true,
  });
  expect(raw).toHaveLength(1);
  const row = rowOf(plans, raw[0]!);
  const [stored] = await db.select().from(plans).where(eq(plans.name, 'ins-a'));
  expect(row).toEqual(stored);
  expect(stored).toMatchObject({ value: 12.5, useKanban: false, useCampaigns: true });

  const [plan] = await db.select().from(plans).where(eq(plans.name, 'ins-a'));
  const schedules = [{ weekday: 'monday', startTime: '08:00', endTime: '18:00', text: 'ç "aspas" \\ 🙂' }];
  const [c] = await insertRows(
    db,
    companies,
    [{ name: 'Ins Co', planId: plan!.id, schedules: schedules as never, dueDate: null }],
    { returning: true },
  );
  const [company] = await db
    .select()
    .from(companies)
    .where(eq(companies.id, Number(c!.id)));
  expect(company!.schedules).toEqual(schedules);
  expect(company!.dueDate).toBeNull();
});

test('many rows in one call, rows with other keys in statements of their own, conflicts skipped', async () => {
  const at = new Date('2026-01-02T03:04:05.678Z');
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  await insertRows(
    db,
    eventOutbox,
    [
      { id: ids[0]!, event: 'a', payload: '{"x":1}', createdAt: at },
      { id: ids[1]!, event: 'b', payload: '{}' }, // created_at: the default
      { id: ids[2]!, companyId: null, event: 'c', payload: '[]', createdAt: at },
    ],
    { onConflictDoNothing: true },
  );
  const rows = await db.select().from(eventOutbox).where(inArray(eventOutbox.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(ids[0]!)).toMatchObject({ event: 'a', payload: '{"x":1}', createdAt: at, attempts: 0 });
  expect(byId.get(ids[1]!)!.createdAt.getTime()).toBeGreaterThan(at.getTime());
  expect(byId.get(ids[2]!)).toMatchObject({ event: 'c', companyId: null, createdAt: at });

  // The same ids again: nothing changes, nothing fails.
  const again = await insertRows(db, eventOutbox, [{ id: ids[0]!, event: 'z', payload: '' }], {
    onConflictDoNothing: true,
    returning: true,
  });
  expect(again).toEqual([]);
  expect((await db.select().from(eventOutbox).where(eq(eventOutbox.id, ids[0]!)))[0]!.event).toBe('a');
  // Without onConflictDoNothing a duplicate fails like any insert.
  await expect(insertRows(db, eventOutbox, [{ id: ids[0]!, event: 'z', payload: '' }])).rejects.toThrow();
});

test('inside a transaction the rows roll back with it', async () => {
  const id = randomUUID();
  await db
    .transaction(async (tx) => {
      await insertRows(tx, eventOutbox, [{ id, event: 'tx', payload: '' }]);
      expect(await tx.select().from(eventOutbox).where(eq(eventOutbox.id, id))).toHaveLength(1);
      throw new Error('roll back');
    })
    .catch(() => undefined);
  expect(await db.select().from(eventOutbox).where(eq(eventOutbox.id, id))).toEqual([]);
});
