import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  BufferJSON,
  initAuthCreds,
  proto,
  type AuthenticationCreds,
  type AuthenticationState,
  type SignalDataSet,
  type SignalDataTypeMap,
} from 'baileys';
import type { Db } from '../../../db/client.js';
import { channelAuth } from '../../../db/schema/index.js';
import type { SecretBox } from '../../../lib/crypto.js';

const CREDS_KEY = 'creds';
/** Rows per statement: pre-key uploads write hundreds of keys at once. */
const CHUNK = 400;

const chunks = <T>(items: T[]): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
};

export interface DbAuthState {
  state: AuthenticationState;
  saveCreds(): Promise<void>;
  /** Deletes every row of the connection; later writes through this state are dropped (a dying socket must not resurrect the session). */
  clear(): Promise<void>;
}

/**
 * Baileys session state in `channel_auth`: one row per creds / signal key, every value sealed with
 * APP_SECRET (Buffers survive through BufferJSON). Writes are serialised so a late creds save never
 * overwrites a newer one, nor lands after clear().
 */
export async function dbAuthState(db: Db, whatsappId: number, box: SecretBox): Promise<DbAuthState> {
  const encode = (value: unknown) => box.seal(JSON.stringify(value, BufferJSON.replacer));
  const decode = (sealed: string): unknown => JSON.parse(box.open(sealed), BufferJSON.reviver);

  let cleared = false;
  let writes: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = writes.then(fn, fn);
    writes = run.catch(() => undefined);
    return run;
  };

  async function read(keys: string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    for (const part of chunks(keys)) {
      const rows = await db
        .select({ key: channelAuth.key, value: channelAuth.value })
        .from(channelAuth)
        .where(and(eq(channelAuth.whatsappId, whatsappId), inArray(channelAuth.key, part)));
      for (const r of rows) found.set(r.key, decode(r.value));
    }
    return found;
  }

  async function write(upserts: { key: string; value: unknown }[], deletes: string[]) {
    if (cleared || (!upserts.length && !deletes.length)) return;
    const rows = upserts.map((u) => ({ whatsappId, key: u.key, value: encode(u.value) }));
    await db.transaction(async (tx) => {
      for (const part of chunks(rows))
        await tx
          .insert(channelAuth)
          .values(part)
          .onConflictDoUpdate({
            target: [channelAuth.whatsappId, channelAuth.key],
            set: { value: sql`excluded.value`, updatedAt: sql`now()` },
          });
      for (const part of chunks(deletes))
        await tx
          .delete(channelAuth)
          .where(and(eq(channelAuth.whatsappId, whatsappId), inArray(channelAuth.key, part)));
    });
  }

  const stored = (await read([CREDS_KEY])).get(CREDS_KEY) as AuthenticationCreds | undefined;
  const creds: AuthenticationCreds = stored ?? initAuthCreds();

  const state: AuthenticationState = {
    creds,
    keys: {
      async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
        const found = await read(ids.map((id) => `${type}-${id}`));
        const out: { [id: string]: SignalDataTypeMap[T] } = {};
        for (const id of ids) {
          let value = found.get(`${type}-${id}`);
          if (value === undefined) continue;
          if (type === 'app-state-sync-key' && value)
            value = proto.Message.AppStateSyncKeyData.fromObject(value as object);
          out[id] = value as SignalDataTypeMap[T];
        }
        return out;
      },
      async set(data: SignalDataSet) {
        const upserts: { key: string; value: unknown }[] = [];
        const deletes: string[] = [];
        for (const type of Object.keys(data) as (keyof SignalDataTypeMap)[]) {
          const entries = data[type] ?? {};
          for (const [id, value] of Object.entries(entries)) {
            const key = `${type}-${id}`;
            if (value === null || value === undefined) deletes.push(key);
            else upserts.push({ key, value });
          }
        }
        await serial(() => write(upserts, deletes));
      },
    },
  };

  return {
    state,
    saveCreds: () => serial(() => write([{ key: CREDS_KEY, value: creds }], [])),
    clear: () =>
      serial(async () => {
        cleared = true;
        await db.delete(channelAuth).where(eq(channelAuth.whatsappId, whatsappId));
      }),
  };
}
