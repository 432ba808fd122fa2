import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { proto } from 'baileys';
import { openDatabase, type Database } from '../../../db/client.js';
import { channelAuth, companies, plans, whatsapps } from '../../../db/schema/index.js';
import { SEED_PLANS } from '../../../db/seed.js';
import { secretBox } from '../../../lib/crypto.js';
import { dbAuthState } from './baileys-auth-store.js';

let database: Database;
let waA: number;
let waB: number;
const box = secretBox('test-app-secret-0123456789abcdef');

beforeAll(async () => {
  database = await openDatabase({});
  await database.migrate();
  const { db } = database;
  await db.insert(plans).values(SEED_PLANS[0]!);
  const [c] = await db
    .insert(companies)
    .values({ name: 'Auth Co', planId: SEED_PLANS[0]!.id })
    .returning({ id: companies.id });
  const rows = await db
    .insert(whatsapps)
    .values([
      { companyId: c!.id, name: 'A' },
      { companyId: c!.id, name: 'B' },
    ])
    .returning({ id: whatsapps.id });
  waA = rows[0]!.id;
  waB = rows[1]!.id;
});

afterAll(() => database.close());

const rowsOf = (id: number) => database.db.select().from(channelAuth).where(eq(channelAuth.whatsappId, id));

describe('dbAuthState', () => {
  test('creds and signal keys round-trip, sealed at rest', async () => {
    const a = await dbAuthState(database.db, waA, box);
    expect(a.state.creds.registered).toBe(false);
    a.state.creds.me = { id: '5511987654321:3@s.whatsapp.net', name: 'Loja' };
    const privateKey = a.state.creds.noiseKey.private;
    await a.saveCreds();
    await a.state.keys.set({
      session: { '5511987654321.0': Buffer.from('session-bytes') },
      'pre-key': { '7': { public: Buffer.from([1, 2, 3]), private: Buffer.from([4, 5, 6]) } },
      'lid-mapping': { '5511987654321': '123456789012345' },
      'app-state-sync-key': { AAAA: { keyData: Buffer.from([9, 9]), timestamp: 1700000000 } },
    });

    const rows = await rowsOf(waA);
    expect(rows.map((r) => r.key).sort()).toEqual([
      'app-state-sync-key-AAAA',
      'creds',
      'lid-mapping-5511987654321',
      'pre-key-7',
      'session-5511987654321.0',
    ]);
    for (const r of rows) {
      // Nothing readable: not JSON, no phone number, no buffer marker.
      expect(() => JSON.parse(r.value)).toThrow();
      expect(r.value).not.toContain('5511987654321');
      expect(r.value).not.toContain('123456789012345');
      expect(Buffer.from(r.value, 'base64').toString('latin1')).not.toContain('Buffer');
    }

    // A fresh load (another process) sees the same state.
    const again = await dbAuthState(database.db, waA, box);
    expect(again.state.creds.me?.id).toBe('5511987654321:3@s.whatsapp.net');
    expect(Buffer.isBuffer(again.state.creds.noiseKey.private)).toBe(true);
    expect(Buffer.from(again.state.creds.noiseKey.private).equals(Buffer.from(privateKey))).toBe(true);
    const sessions = await again.state.keys.get('session', ['5511987654321.0', 'missing.0']);
    expect(Buffer.from(sessions['5511987654321.0']!).toString()).toBe('session-bytes');
    expect('missing.0' in sessions).toBe(false);
    const pre = await again.state.keys.get('pre-key', ['7']);
    expect([...pre['7']!.private]).toEqual([4, 5, 6]);
    const lid = await again.state.keys.get('lid-mapping', ['5511987654321']);
    expect(lid['5511987654321']).toBe('123456789012345');
    const sync = await again.state.keys.get('app-state-sync-key', ['AAAA']);
    expect(sync.AAAA).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect([...(sync.AAAA!.keyData as Uint8Array)]).toEqual([9, 9]);
  });

  test('a null value deletes the key; another APP_SECRET cannot open the rows', async () => {
    const a = await dbAuthState(database.db, waA, box);
    await a.state.keys.set({ 'pre-key': { '7': null } });
    expect((await a.state.keys.get('pre-key', ['7']))['7']).toBeUndefined();
    await expect(dbAuthState(database.db, waA, secretBox('another-secret'))).rejects.toThrow();
  });

  test('clear() deletes only this connection, and later writes from the old state are dropped', async () => {
    const b = await dbAuthState(database.db, waB, box);
    await b.saveCreds();
    expect(await rowsOf(waB)).toHaveLength(1);

    const a = await dbAuthState(database.db, waA, box);
    const pendingSave = a.saveCreds();
    await a.clear();
    await pendingSave;
    await a.saveCreds(); // a dying socket's creds.update after logout
    await a.state.keys.set({ session: { x: Buffer.from('late') } });
    expect(await rowsOf(waA)).toHaveLength(0);
    expect(await rowsOf(waB)).toHaveLength(1);

    const fresh = await dbAuthState(database.db, waA, box);
    expect(fresh.state.creds.me).toBeUndefined();
  });

  test('large batches (pre-key upload) are written and read back', async () => {
    const b = await dbAuthState(database.db, waB, box);
    const many: Record<string, { public: Buffer; private: Buffer }> = {};
    for (let i = 1; i <= 900; i++)
      many[String(i)] = { public: Buffer.from([i % 256]), private: Buffer.from([1]) };
    await b.state.keys.set({ 'pre-key': many });
    const got = await b.state.keys.get(
      'pre-key',
      Object.keys(many).map((k) => k),
    );
    expect(Object.keys(got)).toHaveLength(900);
    expect([...got['900']!.public]).toEqual([900 % 256]);
  });
});
