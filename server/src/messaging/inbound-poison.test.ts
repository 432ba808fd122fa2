import { describe, expect, test } from 'vitest';
import { and, asc, eq, sql } from 'drizzle-orm';
import { messages, tickets } from '../db/schema/index.js';
import { expectError, type Session, waitFor } from '../../test/helpers.js';

import { cloudTestApp } from '../../test/cloud-api-fixtures.js';

/**
 * Text that PostgreSQL refuses (NUL, half an emoji — what `.slice(0, 255)` used to make of an emoji at the
 * preview's edge), very long bodies, and a message that fails every time: none of them may hold a customer's
 * later messages back. Driven through the simulator's HTTP entry and Meta's signed webhook.
 */
const POISON_APP_SECRET = 'poison-app-secret';
const { t, db, signedPost, webhookMessage, cloudConnection } = await cloudTestApp(POISON_APP_SECRET);

// A real failure of the real database for one body: a trigger refuses it, every time.
const POISON = 'poison-pill-body';
await db.execute(
  sql.raw(`create or replace function refuse_poison() returns trigger language plpgsql as $$
    begin if new.body = '${POISON}' then raise exception 'refused by test trigger'; end if; return new; end $$`),
);
await db.execute(
  sql.raw(
    `create trigger refuse_poison before insert on messages for each row execute function refuse_poison()`,
  ),
);

const EDGE = 'a'.repeat(254) + '😀 and more'; // the emoji straddles unit 255
const wellFormed = (s: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

const bodiesOf = async (whatsappId: number, number: string) => {
  const rows = await db
    .select({ body: messages.body, lastMessage: tickets.lastMessage })
    .from(messages)
    .innerJoin(tickets, eq(tickets.id, messages.ticketId))
    .where(and(eq(messages.whatsappId, whatsappId), sql`${messages.providerId} like ${number + '%'}`))
    .orderBy(asc(messages.id));
  return rows;
};

describe('simulator entry', () => {
  async function simulator(name: string) {
    const c = await t.company(name);
    const res = await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' });
    expect(res.status).toBe(201);
    return { ...c, whatsappId: (await res.json()).id as number };
  }
  const send = (admin: Session, w: number, id: string, body: string) =>
    t.as(admin).post(`/simulator/${w}/inbound`, { id, from: '5511977770001', body });

  test('an emoji at the preview’s edge, a lone surrogate and a NUL byte reach the ticket, in order', async () => {
    const c = await simulator('PoisonSimA');
    const bodies = [EDGE, 'half \ud83d emoji', 'nul\u0000byte', 'after'];
    for (const [i, body] of bodies.entries())
      expect((await send(c.admin, c.whatsappId, `sa-${i}`, body)).status).toBe(202);
    const rows = await waitFor(async () => {
      const r = await bodiesOf(c.whatsappId, 'sa-');
      return r.length === 4 && r;
    });
    expect(rows.map((r) => r.body)).toEqual([EDGE, 'half \ufffd emoji', 'nulbyte', 'after']);
    expect(rows[0]!.lastMessage).toBe('after');
    const [first] = await db.select().from(tickets).where(eq(tickets.companyId, c.id));
    expect(wellFormed(first!.lastMessage)).toBe(true);
  });

  test('the edge preview itself is cut whole: the ticket shows 254 characters, no half emoji', async () => {
    const c = await simulator('PoisonSimB');
    expect((await send(c.admin, c.whatsappId, 'sb-0', EDGE)).status).toBe(202);
    const [row] = await waitFor(async () => {
      const r = await bodiesOf(c.whatsappId, 'sb-');
      return r.length === 1 && r;
    });
    expect(row!.lastMessage).toBe('a'.repeat(254));
  });

  test('a 1 MB body is refused with a code; the customer’s next message flows', async () => {
    const c = await simulator('PoisonSimC');
    await expectError(
      await send(c.admin, c.whatsappId, 'sc-0', 'x'.repeat(1024 * 1024)),
      400,
      'ERR_VALIDATION',
    );
    expect((await send(c.admin, c.whatsappId, 'sc-1', 'still here')).status).toBe(202);
    await waitFor(async () => (await bodiesOf(c.whatsappId, 'sc-')).length === 1);
  });

  test('a message that always fails is given up after 3 attempts, shown to admins, and later ones flow', async () => {
    const c = await simulator('PoisonSimD');
    expect((await send(c.admin, c.whatsappId, 'sd-0', POISON)).status).toBe(202);
    expect((await send(c.admin, c.whatsappId, 'sd-1', 'next one')).status).toBe(202);
    const rows = await waitFor(async () => {
      const r = await bodiesOf(c.whatsappId, 'sd-');
      return r.length === 1 && r;
    }, 30_000);
    expect(rows[0]!.body).toBe('next one');

    const res = await t.as(c.admin).get(`/whatsapp/${c.whatsappId}/inbound-failures`);
    expect(res.status).toBe(200);
    const { failures } = await res.json();
    expect(failures).toEqual([
      expect.objectContaining({
        providerId: 'sd-0',
        sender: '5511977770001',
        preview: POISON,
        attempts: 3,
        error: expect.stringContaining('refused by test trigger'),
      }),
    ]);
    // Admins of this company only.
    const other = await t.company('PoisonSimOther');
    await expectError(
      await t.as(other.admin).get(`/whatsapp/${c.whatsappId}/inbound-failures`),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    const user = await t.user(c.admin, 'user');
    await expectError(
      await t.as(user).get(`/whatsapp/${c.whatsappId}/inbound-failures`),
      403,
      'ERR_NO_PERMISSION',
    );
  });
});

describe('Cloud API webhook', () => {
  const inbound = (from: string, id: string, body: string) =>
    webhookMessage(from, id, 'Nul\u0000 \udc00Name', { type: 'text', text: { body } });

  test('an edge emoji, a lone surrogate, a NUL byte and a ~1 MB body are stored; previews stay whole', async () => {
    const c = await cloudConnection('PoisonCloudA');
    const big = '😀'.repeat(250_000); // 1,000,000 UTF-16 units; under the webhook's 1 MB body limit in JSON
    const bodies = [EDGE, 'half \ud83d emoji', 'nul\u0000byte', big];
    for (const [i, body] of bodies.entries())
      expect((await signedPost(c.whatsappId, inbound('5511966660001', `wamid.ca-${i}`, body))).status).toBe(
        200,
      );
    const rows = await bodiesOf(c.whatsappId, 'wamid.ca-');
    expect(rows.map((r) => r.body.length)).toEqual([EDGE.length, 12, 7, big.length]);
    expect(rows[1]!.body).toBe('half \ufffd emoji');
    expect(rows[2]!.body).toBe('nulbyte');
    expect(rows[3]!.lastMessage).toBe('😀'.repeat(127));
  });

  test('a payload that always fails answers 500 until it is given up; then the customer’s messages flow', async () => {
    const c = await cloudConnection('PoisonCloudB');
    const poison = inbound('5511966660002', 'wamid.cb-0', POISON);
    // Meta delivers again after each non-200: the third failure gives the message up.
    expect((await signedPost(c.whatsappId, poison)).status).toBe(500);
    expect((await signedPost(c.whatsappId, poison)).status).toBe(500);
    expect((await signedPost(c.whatsappId, poison)).status).toBe(200);
    expect((await signedPost(c.whatsappId, inbound('5511966660002', 'wamid.cb-1', 'next'))).status).toBe(200);
    expect((await bodiesOf(c.whatsappId, 'wamid.cb-')).map((r) => r.body)).toEqual(['next']);
    const { failures } = await (await t.as(c.admin).get(`/whatsapp/${c.whatsappId}/inbound-failures`)).json();
    expect(failures).toEqual([expect.objectContaining({ providerId: 'wamid.cb-0', attempts: 3 })]);
  });
});
