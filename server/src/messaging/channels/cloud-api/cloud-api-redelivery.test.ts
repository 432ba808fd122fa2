import { describe, expect, test } from 'vitest';
import { asc, eq, inArray } from 'drizzle-orm';
import { messages, tickets } from '../../../db/schema/index.js';
import { cloudInbound, cloudTestApp } from '../../../../test/cloud-api-fixtures.js';
import { waitFor } from '../../../../test/helpers.js';

const APP_SECRET = 'redelivery-app-secret';
const { t, db, graph, signedPost, cloudConnection } = await cloudTestApp(APP_SECRET);

/**
 * #33.3 Cloud API: recovering the gap is Meta's — after an outage it delivers again every webhook it got no 2xx
 * for, and may deliver again some it did. The redelivered batch is stored once, in order, with its own times.
 */
describe('#33.3 Cloud API redelivery after an outage', () => {
  test('a batch delivered again (whole, and part of it beside new messages) is stored once, in order; another company sees none of it', async () => {
    const a = await cloudConnection('RedeliveryA');
    const at = Math.floor(Date.now() / 1000) - 3 * 3600; // sent three hours ago, while the connection was away
    const batch = (ids: string[]) =>
      cloudInbound(
        graph,
        ids.map((id, i) => ({
          from: i % 2 ? '5511977770002' : '5511977770001',
          id,
          name: 'Cliente',
          message: { type: 'text', text: { body: `mensagem ${id}` } },
        })),
        String(at),
      );
    const first = ['wamid.R1', 'wamid.R2', 'wamid.R3', 'wamid.R4'];
    expect((await signedPost(a.whatsappId, batch(first))).status).toBe(200);
    const stored = () =>
      db.select().from(messages).where(eq(messages.whatsappId, a.whatsappId)).orderBy(asc(messages.id));
    await waitFor(async () => (await stored()).length === 4);
    // Meta's redelivery: the same batch, then the batch again with a new message at its end.
    expect((await signedPost(a.whatsappId, batch(first))).status).toBe(200);
    expect((await signedPost(a.whatsappId, batch([...first, 'wamid.R5']))).status).toBe(200);
    await waitFor(async () => (await stored()).length === 5);
    await t.app.services.bus.idle();
    const rows = await stored();
    expect(rows.map((m) => m.providerId)).toEqual([...first, 'wamid.R5']);
    expect(new Set(rows.map((m) => m.createdAt.getTime() / 1000))).toEqual(new Set([at]));
    const ticketIds = [...new Set(rows.map((m) => m.ticketId))];
    const ts = await db.select().from(tickets).where(inArray(tickets.id, ticketIds));
    // Each customer's ticket counted each message once.
    expect(ts.map((x) => x.unreadMessages).sort()).toEqual([2, 3]);
    const b = await t.company('RedeliveryB');
    for (const id of ticketIds) expect((await t.as(b.admin).get(`/messages/${id}`)).status).toBe(404);
  });
});
