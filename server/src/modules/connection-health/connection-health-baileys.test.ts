import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { UserFacingSocketConfig } from 'baileys';
import { afterAll, describe, expect, test } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import type { BaileysSocket, MakeSocket } from '../../messaging/channels/baileys/baileys-channel.js';
import { testApp, waitFor, type Session } from '../../../test/helpers.js';
import { ScriptedSocket } from '../../../test/fake-baileys.js';
import { browserKeys, pushEndpoint } from '../../../test/push-endpoint.js';

/** The scripted Baileys socket (test/fake-baileys.ts), plus a lost connection as WhatsApp reports one. */
class DroppingSocket extends ScriptedSocket {
  drop() {
    const error = Object.assign(new Error('connection lost'), { output: { statusCode: 408 } });
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  }
}
const sockets: DroppingSocket[] = [];
const makeSocket = ((config: UserFacingSocketConfig) => {
  const s = new DroppingSocket(config);
  sockets.push(s);
  return s as unknown as BaileysSocket;
}) as MakeSocket;
const last = () => sockets[sockets.length - 1]!;

const clock = manualClock(new Date('2026-11-21T09:00:00Z'));
const t = await testApp({
  env: { ALLOW_PRIVATE_URLS: 'true' },
  deps: { clock, jobs: { autoStart: false }, baileysSocket: makeSocket },
});
const jobs = t.app.services.jobs;
const bus = t.app.services.bus;
const push = await pushEndpoint();
afterAll(() => push.close());

async function settle() {
  await bus.idle();
  for (let i = 0; i < 10; i++) {
    const ran = await jobs.runDue();
    await bus.idle();
    if (!ran) return;
  }
}

const health = async (admin: Session, id: number) => (await t.as(admin).get(`/whatsapp/${id}/health`)).json();
const outbox = (to: string) => {
  try {
    return readdirSync(join(t.dataDir, 'outbox')).filter((f) => f.includes(to));
  } catch {
    return [];
  }
};

describe('#33.1 a Baileys connection that drops (scripted socket)', () => {
  test('5 minutes down: one alert (push and outbox e-mail), one "back" with the length', async () => {
    const c = await t.company('HealthWA');
    const keys = browserKeys();
    const endpoint = `${push.base}/wa-${c.id}`;
    expect((await t.as(c.admin).post('/push/subscriptions', { endpoint, keys: keys.keys })).status).toBe(201);
    const pushes = () =>
      push.received
        .filter((r) => r.path === `/wa-${c.id}`)
        .map((r) => JSON.parse(keys.decrypt(r.body)) as { title: string; body: string });

    const before = sockets.length;
    const res = await t.as(c.admin).post('/whatsapp', { name: 'Atendimento', channel: 'baileys' });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = (await res.json()).id as number;
    await waitFor(() => sockets.length > before);
    last().open();
    await waitFor(async () => {
      await bus.idle();
      return (await health(c.admin, id)).timeline[0]?.status === 'CONNECTED';
    });

    // WhatsApp drops the socket; the channel reconnects on a new one, which does not open for 5 minutes.
    const dropped = sockets.length;
    last().drop();
    await waitFor(() => sockets.length > dropped, 20_000);
    await bus.idle();
    const down = await health(c.admin, id);
    // The channel reports OPENING (reconnecting, with back-off) while it tries again.
    expect(down.timeline[0].status).toBe('OPENING');
    expect(down.incidents).toHaveLength(1);

    clock.advance(5 * 60_000);
    await settle();
    await waitFor(() => pushes().length === 1);
    expect(pushes()[0]!.title).toBe('Conexão Atendimento fora do ar');
    expect(outbox(c.adminEmail)).toHaveLength(1);

    last().open();
    await waitFor(async () => {
      await bus.idle();
      return (await health(c.admin, id)).timeline[0]?.status === 'CONNECTED';
    });
    await settle();
    await waitFor(() => pushes().length === 2);
    expect(pushes()[1]).toEqual(
      expect.objectContaining({ title: 'Conexão Atendimento voltou', body: 'Ficou fora do ar por 5 min.' }),
    );
    expect(outbox(c.adminEmail)).toHaveLength(2);

    // Nothing more, however often the jobs run.
    clock.advance(60 * 60_000);
    await settle();
    expect(pushes()).toHaveLength(2);
    const after = await health(c.admin, id);
    expect(after.incidents[0]).toMatchObject({ seconds: 300 });
    expect(after.incidents[0].alertedAt).not.toBeNull();
  });
});
