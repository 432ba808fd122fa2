/**
 * #33.3 The real server (config → database → migrations → seed → app → listen, as server/src/main.ts) with its
 * Baileys sockets scripted, for the kill -9 recovery test (connection-recovery-crash.test.ts): every socket
 * opens at once; with BURST set, the first one then delivers WhatsApp's pending notifications (type 'append')
 * of BURST messages — BURST_CUSTOMERS customers in turn, from BURST_TS seconds on — as a reconnect does.
 */
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { seed } from '../src/db/seed.js';
import { buildApp } from '../src/app.js';
import { executeRows } from '../src/db/rows.js';
import { sql } from 'drizzle-orm';
import { proto, type UserFacingSocketConfig, type WAMessage } from 'baileys';
import type { BaileysSocket, MakeSocket } from '../src/messaging/channels/baileys/baileys-channel.js';
import { ScriptedSocket } from './fake-baileys.js';

const burst = Number(process.env.BURST ?? 0);
const customers = Number(process.env.BURST_CUSTOMERS ?? 1);
const ts = Number(process.env.BURST_TS ?? Math.floor(Date.now() / 1000));
const burstMessage = (k: number, base: number, n: number): WAMessage => ({
  key: {
    remoteJid: `55119888${String(k % n).padStart(5, '0')}@s.whatsapp.net`,
    fromMe: false,
    id: `KILL-${k}`,
  },
  messageTimestamp: base + k,
  pushName: `Cliente ${k % n}`,
  message: proto.Message.fromObject({ conversation: `mensagem ${k}` }),
});

let made = 0;
const makeSocket = ((config: UserFacingSocketConfig) => {
  const s = new ScriptedSocket(config);
  const first = ++made === 1;
  // As Baileys does: 'connecting' as soon as the socket exists, then open.
  setTimeout(() => s.emit('connection.update', { connection: 'connecting' }), 10);
  setTimeout(() => {
    s.open();
    // A moment after the connection is back (the test is watching by then), the gap arrives at once.
    if (burst && first)
      setTimeout(
        () =>
          s.upsert(
            Array.from({ length: burst }, (_, k) => burstMessage(k, ts, customers)),
            'append',
          ),
        Number(process.env.BURST_DELAY_MS ?? 0),
      );
  }, 50);
  return s as unknown as BaileysSocket;
}) as MakeSocket;

const config = loadConfig();
const database = await openDatabase({
  url: config.databaseUrl,
  dataDir: config.databaseUrl ? undefined : config.dataDir,
});
await database.migrate();
await seed(database.db, {
  superuserEmail: config.superuserEmail,
  superuserPassword: config.superuserPassword,
  demo: false,
  dataDir: config.dataDir,
  production: false,
});
const built = await buildApp({
  config,
  database,
  webDist: config.webDist,
  logStyle: 'json',
  baileysSocket: makeSocket,
});
// Progress for the test: how many messages this process stored (it kills the process in the middle).
let stored = 0;
built.services.bus.on(
  'message.stored',
  () => {
    stored++;
    if (stored % 10 === 0) process.stdout.write(`GAP-STORED ${stored}\n`);
  },
  'gap-progress',
);
// And how many of the gap's messages the database holds, whoever stored them.
setInterval(() => {
  void executeRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from messages where provider_id like 'KILL-%'`,
  )
    .then(([r]) => process.stdout.write(`GAP-TOTAL ${r?.n ?? 0}\n`))
    .catch(() => undefined);
}, 500).unref();
await built.app.listen({ port: config.port, host: config.host });
const stop = async () => {
  await built.close().catch(() => undefined);
  await database.close().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
