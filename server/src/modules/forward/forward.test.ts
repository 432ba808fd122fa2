import { describe, expect, test, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { contacts, messages, ticketPins, tickets } from '../../db/schema/index.js';
import { collectEvents, expectError, nextEvent, testApp, waitFor } from '../../../test/helpers.js';

// #32.9 Forwarding messages and pinning tickets, on a real server and database (PGlite or DATABASE_URL).
// A loaded machine: these tests walk several companies through the real pipeline.
vi.setConfig({ testTimeout: 120_000 });
const t = await testApp();
const db = t.database.db;

let seq = 0;
const phone = () => `55119${String(60000000 + seq++ * 41).padStart(8, '0')}`;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
).toString('base64');

async function company(name: string) {
  const c = await t.company(name);
  const w = await (
    await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator', isDefault: true })
  ).json();
  /** A customer who wrote (text, and a picture with `media`); the ticket accepted by the admin. */
  const customer = async (opts: { media?: boolean; accept?: boolean } = {}) => {
    const number = phone();
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: `C${number}`, body: 'olá' });
    if (opts.media)
      await t.as(c.admin).post(`/simulator/${w.id}/inbound`, {
        from: number,
        body: 'a foto',
        media: { mimetype: 'image/png', filename: 'foto.png', data: PNG },
      });
    const want = opts.media ? 2 : 1;
    const ticket = await waitFor(async () => {
      const [r] = await db
        .select({ ticket: tickets })
        .from(tickets)
        .innerJoin(contacts, eq(contacts.id, tickets.contactId))
        .where(and(eq(contacts.companyId, c.id), eq(contacts.number, number)));
      if (!r) return undefined;
      const ms = await db.select().from(messages).where(eq(messages.ticketId, r.ticket.id));
      return ms.length === want ? r.ticket : undefined;
    });
    if (opts.accept !== false)
      expect((await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    const ms = await db.select().from(messages).where(eq(messages.ticketId, ticket.id)).orderBy(messages.id);
    return { ticket, number, messages: ms };
  };
  return { ...c, whatsappId: w.id as number, customer };
}

const ticketMessages = (ticketId: number) =>
  db.select().from(messages).where(eq(messages.ticketId, ticketId)).orderBy(messages.id);

describe('forward', () => {
  test('text and media to an open ticket, in order, marked forwarded, the stored file reused', async () => {
    const a = await company('Fwd');
    const from = await a.customer({ media: true });
    const to = await a.customer();
    const res = await t.as(a.admin).post('/messages/forward', {
      // Given newest first: sent in the order they were written.
      messageIds: [from.messages[1]!.id, from.messages[0]!.id],
      ticketId: to.ticket.id,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.ticket.id).toBe(to.ticket.id);
    expect(body.messages).toHaveLength(2);
    const rows = (await ticketMessages(to.ticket.id)).filter((m) => m.fromMe);
    expect(rows.map((m) => m.body)).toEqual(['olá', 'a foto']);
    expect(rows.every((m) => (m.data as { forwarded?: boolean }).forwarded === true)).toBe(true);
    expect(rows[1]!.mediaUrl).toBe(from.messages[1]!.mediaUrl);
    expect(rows[1]!.mediaType).toBe('image');
    // The simulated customer's phone received both.
    await waitFor(async () => {
      const sent = await db.select().from(messages).where(eq(messages.ticketId, to.ticket.id));
      return sent.filter((m) => m.fromMe && m.ack >= 1).length === 2 ? true : undefined;
    });
  });

  test('to a contact: its open ticket, or a new one opened like a new outbound conversation', async () => {
    const a = await company('FwdContact');
    const from = await a.customer();
    const created = await (await t.as(a.admin).post('/contacts', { name: 'Novo', number: phone() })).json();
    const res = await t.as(a.admin).post('/messages/forward', {
      messageIds: [from.messages[0]!.id],
      contactId: created.id,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.ticket).toMatchObject({ contactId: created.id, status: 'open', userId: a.admin.user.id });
    // Again: the same ticket, no second one.
    const again = await (
      await t.as(a.admin).post('/messages/forward', {
        messageIds: [from.messages[0]!.id],
        contactId: created.id,
        whatsappId: a.whatsappId,
      })
    ).json();
    expect(again.ticket.id).toBe(body.ticket.id);
    expect((await ticketMessages(body.ticket.id)).map((m) => m.body)).toEqual(['olá', 'olá']);
  });

  test('bad input and another company: 400, 403 or 404, nothing sent', async () => {
    const a = await company('FwdBad');
    const b = await company('FwdOther');
    const mine = await a.customer();
    const pending = await a.customer({ accept: false });
    const theirs = await b.customer();
    const sentBefore = (await db.select().from(messages).where(eq(messages.fromMe, true))).length;
    const post = (who: typeof a, body: unknown) => t.as(who.admin).post('/messages/forward', body);
    const id = mine.messages[0]!.id;
    await expectError(await post(a, { messageIds: [id] }), 400, 'ERR_VALIDATION');
    await expectError(
      await post(a, { messageIds: [id], ticketId: mine.ticket.id, contactId: 1 }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await post(a, { messageIds: [], ticketId: mine.ticket.id }), 400, 'ERR_VALIDATION');
    // A pending ticket is accepted first, like answering.
    await expectError(
      await post(a, { messageIds: [id], ticketId: pending.ticket.id }),
      403,
      'ERR_NO_PERMISSION',
    );
    // The second company: the first one's messages, tickets and contacts do not exist for it.
    await expectError(await post(b, { messageIds: [id], ticketId: theirs.ticket.id }), 404, 'ERR_NOT_FOUND');
    await expectError(
      await post(b, { messageIds: [theirs.messages[0]!.id], ticketId: mine.ticket.id }),
      404,
      'ERR_NO_TICKET_FOUND',
    );
    await expectError(
      await post(b, { messageIds: [theirs.messages[0]!.id], contactId: mine.ticket.contactId }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await post(b, {
        messageIds: [theirs.messages[0]!.id],
        contactId: theirs.ticket.contactId,
        whatsappId: a.whatsappId,
      }),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    expect((await db.select().from(messages).where(eq(messages.fromMe, true))).length).toBe(sentBefore);
  });
});

describe('pin', () => {
  test('a user pins a ticket to the top of their own list; others see no change', async () => {
    const a = await company('Pin');
    const older = await a.customer();
    const newer = await a.customer();
    const list = async (who = a.admin) =>
      (await (await t.as(who).get('/tickets?status=open&showAll=true')).json()).tickets as {
        id: number;
        pinned?: boolean;
      }[];
    expect((await list()).map((x) => x.id)).toEqual([newer.ticket.id, older.ticket.id]);

    const socket = await t.socket(a.admin.token);
    const heard = nextEvent(socket, `company-${a.id}-ticketPin`, 15_000);
    const pin = await t.as(a.admin).post(`/tickets/${older.ticket.id}/pin`);
    expect(pin.status).toBe(200);
    expect(await pin.json()).toEqual({ ticketId: older.ticket.id, pinned: true });
    expect(await heard).toEqual({ ticketId: older.ticket.id, pinned: true });
    // Twice is once.
    expect((await t.as(a.admin).post(`/tickets/${older.ticket.id}/pin`)).status).toBe(200);
    const pinned = await list();
    expect(pinned.map((x) => [x.id, x.pinned])).toEqual([
      [older.ticket.id, true],
      [newer.ticket.id, false],
    ]);
    expect((await (await t.as(a.admin).get(`/tickets/${older.ticket.id}`)).json()).pinned).toBe(true);
    // Another user of the company: their own list, unpinned.
    const sup = await t.user(a.admin, 'admin');
    expect((await list(sup)).map((x) => x.id)).toEqual([newer.ticket.id, older.ticket.id]);
    expect((await (await t.as(sup).get(`/tickets/${older.ticket.id}`)).json()).pinned).toBe(false);
    // Page 2 never repeats a pinned ticket.
    const page2 = await (await t.as(a.admin).get('/tickets?status=open&showAll=true&pageNumber=2')).json();
    expect(page2.tickets).toEqual([]);

    const off = await t.as(a.admin).put(`/tickets/${older.ticket.id}/pin`, { pinned: false });
    expect(await off.json()).toEqual({ ticketId: older.ticket.id, pinned: false });
    expect((await list()).map((x) => x.id)).toEqual([newer.ticket.id, older.ticket.id]);
    await expectError(
      await t.as(a.admin).put(`/tickets/${older.ticket.id}/pin`, { pinned: 'yes' }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('another company cannot pin, unpin or hear the first one’s pins', async () => {
    const a = await company('PinA');
    const b = await company('PinB');
    const mine = await a.customer();
    expect((await t.as(a.admin).post(`/tickets/${mine.ticket.id}/pin`)).status).toBe(200);
    const bSocket = await t.socket(b.admin.token);
    const heard = collectEvents(bSocket, `company-${a.id}-ticketPin`, 500);
    await expectError(await t.as(b.admin).post(`/tickets/${mine.ticket.id}/pin`), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(await t.as(b.admin).del(`/tickets/${mine.ticket.id}/pin`), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(
      await t.as(b.admin).put(`/tickets/${mine.ticket.id}/pin`, { pinned: true }),
      404,
      'ERR_NO_TICKET_FOUND',
    );
    expect((await t.as(a.admin).del(`/tickets/${mine.ticket.id}/pin`)).status).toBe(200);
    expect(await heard).toEqual([]);
    expect(await db.select().from(ticketPins).where(eq(ticketPins.companyId, b.id))).toEqual([]);
  });
});
