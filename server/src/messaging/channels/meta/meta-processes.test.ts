import { afterAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { messages, whatsapps } from '../../../db/schema/index.js';
import { metaTestApp } from '../../../../test/meta-fixtures.js';
import { secondProcess, waitFor } from '../../../../test/helpers.js';

/**
 * #34 Instagram/Messenger across processes: Meta's webhook reaches whichever process the load balancer picks
 * and is stored by the connection's owner before the 200 (once, even when delivered again); when the owner dies,
 * the second process takes the lease over, runs the channel, and both the webhook and the replies work there.
 */
const { t, db, graph, signedPost, delivery, fromCustomer, metaConnection } = await metaTestApp(
  'meta-procs-secret',
  {
    sessions: { processId: 'proc-A', leaseMs: 3000 },
  },
);
const second = await secondProcess(
  t,
  { sessions: { processId: 'proc-B', leaseMs: 3000 } },
  { ownPool: true },
);
const B = second.app;
afterAll(() => second.close());

const stored = (connectionId: number, providerId: string) =>
  db
    .select()
    .from(messages)
    .where(and(eq(messages.whatsappId, connectionId), eq(messages.providerId, providerId)));

describe('an Instagram connection on two processes', () => {
  test('a webhook at the process without the session is stored by the owner before the 200, once', async () => {
    const c = await metaConnection('MetaProcs', 'instagram');
    expect(t.app.sessions.isRunningHere(c.connectionId)).toBe(true);
    expect(B.sessions.isRunningHere(c.connectionId)).toBe(false);
    const payload = delivery('instagram', [
      fromCustomer('instagram', '17800000000000101', { mid: 'ig_PROC1', text: 'pelo outro processo' }),
    ]);
    const res = await signedPost(c.connectionId, payload, undefined, second.url);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stored(c.connectionId, 'ig_PROC1')).toHaveLength(1);
    expect((await signedPost(c.connectionId, payload, undefined, second.url)).status).toBe(200);
    expect(await stored(c.connectionId, 'ig_PROC1')).toHaveLength(1);
    expect((await signedPost(c.connectionId, payload, 'wrong-secret', second.url)).status).toBe(401);
  });

  test('the owner dies: the second process takes over, stores what Meta sends and sends the replies', async () => {
    const c = await metaConnection('MetaTakeover', 'messenger');
    const first = delivery('messenger', [
      fromCustomer('messenger', '24000000000000102', { mid: 'm_TAKE1', text: 'antes da queda' }),
    ]);
    expect((await signedPost(c.connectionId, first)).status).toBe(200);
    const [m] = await stored(c.connectionId, 'm_TAKE1');
    expect((await t.as(c.admin).put(`/tickets/${m!.ticketId}`, { status: 'open' })).status).toBe(200);
    await t.app.sessions.crash();
    // Taken over once the lease lapsed, and connected (until then Meta's delivery answers 500 and comes again).
    await waitFor(async () => {
      const [w] = await db.select().from(whatsapps).where(eq(whatsapps.id, c.connectionId));
      return (
        B.sessions.isRunningHere(c.connectionId) && w?.leaseOwner === 'proc-B' && w.status === 'CONNECTED'
      );
    }, 15_000);
    const after = delivery('messenger', [
      fromCustomer('messenger', '24000000000000102', { mid: 'm_TAKE2', text: 'depois da queda' }),
    ]);
    const res = await signedPost(c.connectionId, after, undefined, second.url);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stored(c.connectionId, 'm_TAKE2')).toHaveLength(1);
    // A reply stored through the first process's API is sent by the new owner.
    const sent = graph.messengerSent.length;
    const reply = await fetch(`${second.url}/api/messages/${m!.ticketId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Estou aqui' }),
    });
    expect(reply.status, await reply.clone().text()).toBe(200);
    await waitFor(async () => graph.messengerSent.length > sent);
    expect(graph.messengerSent.at(-1)).toMatchObject({
      recipient: '24000000000000102',
      messagingType: 'RESPONSE',
      message: { text: 'Estou aqui' },
    });
    await waitFor(async () => (await stored(c.connectionId, graph.messengerSent.at(-1)!.mid)).length === 1);
  });
});
