import { afterAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { messages } from '../../db/schema/index.js';
import { expectError, secondProcess, waitFor } from '../../../test/helpers.js';
import { cloudTestApp } from '../../../test/cloud-api-fixtures.js';

/**
 * #33.7 Reactions on the WhatsApp Cloud API against the local Graph double: the customer's reaction webhook
 * shows on the message; the attendant's goes to Graph as a `type: "reaction"` message (Meta's shape).
 */
const { t, db, graph, signedPost, webhookMessage, cloudConnection } =
  await cloudTestApp('reaction-app-secret');
// A second process that does not run the connections (its own pool on PostgreSQL: LISTEN/NOTIFY across).
const second = await secondProcess(t, { sessions: { processId: 'proc-R' } }, { ownPool: true });
afterAll(() => second.close());

async function conversation(name: string, from: string) {
  const c = await cloudConnection(name);
  const wamid = `wamid.IN-${name}`;
  const res = await signedPost(
    c.whatsappId,
    webhookMessage(from, wamid, 'Cliente', { type: 'text', text: { body: 'Olá' } }),
  );
  expect(res.status).toBe(200);
  const inbound = await waitFor(async () => {
    const [m] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, c.whatsappId), eq(messages.providerId, wamid)));
    return m;
  });
  expect((await t.as(c.admin).put(`/tickets/${inbound.ticketId}`, { status: 'open' })).status).toBe(200);
  return { ...c, inbound, from };
}

describe('#33.7 reactions on the Cloud API', () => {
  test('an inbound reaction webhook shows on the message; the attendant’s reaction reaches Graph as type "reaction"', async () => {
    const a = await conversation('CloudReactA', '5511944440001');
    // The attendant answers; the customer reacts to the answer.
    const reply = await (await t.as(a.admin).post(`/messages/${a.inbound.ticketId}`, { body: 'Oi!' })).json();
    const [sent] = await db.select().from(messages).where(eq(messages.id, reply.id));
    expect(sent!.providerId).toMatch(/^wamid\./);
    const res = await signedPost(
      a.whatsappId,
      webhookMessage(a.from, 'wamid.REACT-1', 'Cliente', {
        type: 'reaction',
        reaction: { message_id: sent!.providerId, emoji: '😂' },
      }),
    );
    expect(res.status).toBe(200);
    await waitFor(async () => {
      const page = await (await t.as(a.admin).get(`/messages/${a.inbound.ticketId}`)).json();
      return page.messages.find((m: { id: number }) => m.id === reply.id)?.data?.reaction === '😂';
    });

    // The attendant reacts to the customer's message.
    const before = graph.accepted.length;
    const r = await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '🙏' });
    expect(r.status, await r.clone().text()).toBe(200);
    expect((await r.json()).data).toMatchObject({ myReaction: '🙏' });
    const got = graph.accepted.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      to: expect.stringContaining('11944440001'),
      type: 'reaction',
      body: {
        messaging_product: 'whatsapp',
        type: 'reaction',
        reaction: { message_id: a.inbound.providerId, emoji: '🙏' },
      },
    });
    // Again: nothing new at Meta. Removal: an empty emoji, as Meta documents it.
    await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '🙏' });
    expect(graph.accepted.length).toBe(before + 1);
    await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '' });
    expect(graph.accepted.at(-1)).toMatchObject({ type: 'reaction', body: { reaction: { emoji: '' } } });
  });

  test('Graph refusing a reaction is shown on the message, never as the message’s own failure', async () => {
    const a = await conversation('CloudReactB', '5511944440002');
    graph.sendErrors.push({ code: 131009, message: '(#131009) Parameter value is not valid' });
    const r = await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '👍' });
    await expectError(r, 400, 'ERR_SENDING_WAPP_MSG');
    const [m] = await db.select().from(messages).where(eq(messages.id, a.inbound.id));
    expect(m!.data).toMatchObject({ myReaction: '👍', myReactionError: expect.stringContaining('131009') });
    expect(m!.data?.error).toBeUndefined();
    // Trying again sends it (the stored one had failed).
    const again = await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '👍' });
    expect(again.status).toBe(200);
    expect((await again.json()).data.myReactionError).toBeUndefined();
  });

  test('another company cannot react to the first one’s message', async () => {
    const a = await conversation('CloudReactC', '5511944440003');
    const b = await cloudConnection('CloudReactD');
    const before = graph.accepted.length;
    await expectError(
      await t.as(b.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '👍' }),
      404,
      'ERR_NOT_FOUND',
    );
    expect(graph.accepted.length).toBe(before);
  });

  test('a reaction asked of a process without the session goes through the outbox to the owner, once', async () => {
    const a = await conversation('CloudReactE', '5511944440005');
    expect(second.app.sessions.isRunningHere(a.whatsappId)).toBe(false);
    const before = graph.accepted.length;
    const res = await fetch(`${second.url}/api/messages/${a.inbound.id}/reactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.admin.token}` },
      body: JSON.stringify({ emoji: '😮' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).data).toMatchObject({ myReaction: '😮' });
    const sent = await waitFor(() => {
      const list = graph.accepted.slice(before).filter((x) => x.type === 'reaction');
      return list.length ? list : undefined;
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ reaction: { message_id: a.inbound.providerId, emoji: '😮' } });
    await waitFor(async () => {
      const rows = await t.database.db.execute(
        `select count(*)::int as n from outbound_queue where message_id = ${a.inbound.id}`,
      );
      const list = (rows as { rows?: { n: number }[] }).rows ?? (rows as unknown as { n: number }[]);
      return list[0]!.n === 0;
    });
    expect(graph.accepted.slice(before).filter((x) => x.type === 'reaction')).toHaveLength(1);
  });
});
