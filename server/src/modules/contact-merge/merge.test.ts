import { describe, expect, test, vi } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { auditLog, contacts, messages, ticketEvents, tickets } from '../../db/schema/index.js';
import { collectEvents, expectError, nextEvent, testApp, waitFor } from '../../../test/helpers.js';

// #32.8 Contact merge and duplicate suggestions on a real server and database (PGlite or DATABASE_URL).
// A loaded machine: these tests walk several companies through the real pipeline.
vi.setConfig({ testTimeout: 120_000 });
const t = await testApp();
const db = t.database.db;

let seq = 0;
const phone = () => `55119${String(70000000 + seq++ * 37).padStart(8, '0')}`;

async function company(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  /** A customer who writes `n` messages; answers the contact and its open ticket. */
  const customer = async (n: number, extra: { email?: string } = {}) => {
    const number = phone();
    for (let i = 0; i < n; i++)
      await t
        .as(c.admin)
        .post(`/simulator/${w.id}/inbound`, { from: number, name: `C${number}`, body: `m${i}` });
    const contact = await waitFor(async () => {
      const [r] = await db
        .select()
        .from(contacts)
        .where(and(eq(contacts.companyId, c.id), eq(contacts.number, number)));
      if (!r) return undefined;
      const count = await db.select().from(messages).where(eq(messages.contactId, r.id));
      return count.length === n ? r : undefined;
    });
    if (extra.email) await db.update(contacts).set({ email: extra.email }).where(eq(contacts.id, contact.id));
    const [ticket] = await db.select().from(tickets).where(eq(tickets.contactId, contact.id));
    return { contact, ticket: ticket!, number };
  };
  return { ...c, whatsappId: w.id as number, customer };
}

const companyMessages = async (companyId: number) =>
  (await db.select().from(messages).where(eq(messages.companyId, companyId))).map((m) => m.id).sort();

describe('contact merge', () => {
  test('merge keeps every message: tickets, messages and notes move, open tickets on one connection become one', async () => {
    const a = await company('Merge');
    const x = await a.customer(3, { email: 'Maria@Example.com' });
    const y = await a.customer(2, { email: 'maria@example.com' });
    // y also has an older closed ticket with a message of its own.
    const [older] = await db
      .insert(tickets)
      .values({ companyId: a.id, contactId: y.contact.id, whatsappId: a.whatsappId, status: 'closed' })
      .returning();
    await db.insert(messages).values({
      companyId: a.id,
      ticketId: older!.id,
      contactId: y.contact.id,
      whatsappId: a.whatsappId,
      providerId: `old-${y.number}`,
      body: 'an old one',
    });
    await t
      .as(a.admin)
      .post('/ticket-notes', { note: 'VIP', ticketId: y.ticket.id, contactId: y.contact.id });
    await db.update(contacts).set({ ownerId: a.admin.user.id }).where(eq(contacts.id, y.contact.id));
    const before = await companyMessages(a.id);
    expect(before).toHaveLength(6);

    const preview = await (
      await t.as(a.admin).get(`/contacts/${x.contact.id}/merge-preview?otherId=${y.contact.id}`)
    ).json();
    expect(preview).toMatchObject({ tickets: 2, openTickets: 1, messages: 3, notes: 1, ownerMoves: true });

    const socket = await t.socket(a.admin.token);
    const gone = nextEvent<{ action: string; contactId?: number }>(socket, `company-${a.id}-contact`, 15_000);
    const res = await t.as(a.admin).post(`/contacts/${x.contact.id}/merge`, { otherId: y.contact.id });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ mergedId: y.contact.id, movedTickets: 2, movedMessages: 3 });
    expect(body.mergedTickets).toEqual([{ from: y.ticket.id, into: x.ticket.id }]);
    expect(body.contact.ownerId).toBe(a.admin.user.id);
    expect(await gone).toEqual({ action: 'delete', contactId: y.contact.id });

    // Every message is still there, each on one of the survivor's tickets, with the survivor as contact.
    expect(await companyMessages(a.id)).toEqual(before);
    const rows = await db.select().from(messages).where(eq(messages.companyId, a.id));
    expect(rows.every((m) => m.contactId === x.contact.id)).toBe(true);
    const onOpen = rows.filter((m) => m.ticketId === x.ticket.id).map((m) => m.body);
    expect(onOpen.sort()).toEqual(['m0', 'm0', 'm1', 'm1', 'm2']);
    expect(rows.find((m) => m.body === 'an old one')!.ticketId).toBe(older!.id);
    // The other's open ticket is closed and empty; one active ticket per contact and connection remains.
    const all = await db.select().from(tickets).where(eq(tickets.companyId, a.id));
    expect(all.every((tk) => tk.contactId === x.contact.id)).toBe(true);
    expect(all.filter((tk) => tk.status !== 'closed').map((tk) => tk.id)).toEqual([x.ticket.id]);
    expect(all.find((tk) => tk.id === y.ticket.id)!.status).toBe('closed');
    const notes = await (await t.as(a.admin).get(`/ticket-notes/list?ticketId=${x.ticket.id}`)).json();
    expect(notes.map((n: { note: string }) => n.note)).toEqual(['VIP']);
    // The other contact is gone.
    expect(await db.select().from(contacts).where(eq(contacts.id, y.contact.id))).toHaveLength(0);

    // On the timeline of the surviving tickets, and in the audit log.
    const merged = await db
      .select()
      .from(ticketEvents)
      .where(and(eq(ticketEvents.companyId, a.id), eq(ticketEvents.type, 'merged')));
    expect(merged.map((e) => e.ticketId).sort()).toEqual([x.ticket.id, y.ticket.id, older!.id].sort());
    expect(merged.every((e) => e.actorId === a.admin.user.id)).toBe(true);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, a.id), eq(auditLog.action, 'contact.merged')));
    expect(audit).toMatchObject({
      targetType: 'contact',
      targetId: String(x.contact.id),
      actorId: a.admin.user.id,
    });
    expect(JSON.stringify(audit!.before)).toContain(String(y.contact.id));
  });

  test('with itself, with a missing or another company’s contact: 400 or 404 naming otherId, nothing changed', async () => {
    const a = await company('MergeBad');
    const b = await company('MergeOther');
    const x = await a.customer(1);
    const y = await a.customer(1);
    const z = await b.customer(1);
    const self = await t.as(a.admin).post(`/contacts/${x.contact.id}/merge`, { otherId: x.contact.id });
    expect(JSON.stringify(await expectError(self, 400, 'ERR_VALIDATION'))).toContain('otherId');
    await expectError(
      await t.as(a.admin).post(`/contacts/${x.contact.id}/merge`, { otherId: z.contact.id }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await t.as(a.admin).post(`/contacts/${z.contact.id}/merge`, { otherId: x.contact.id }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await t.as(a.admin).post(`/contacts/${x.contact.id}/merge`, { otherId: 'x' }),
      400,
      'ERR_VALIDATION',
    );
    // The second company cannot merge, preview or list the first one's contacts.
    await expectError(
      await t.as(b.admin).post(`/contacts/${x.contact.id}/merge`, { otherId: y.contact.id }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await t.as(b.admin).get(`/contacts/${x.contact.id}/merge-preview?otherId=${y.contact.id}`),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    const ids = [x.contact.id, y.contact.id, z.contact.id];
    expect(await db.select().from(contacts).where(inArray(contacts.id, ids))).toHaveLength(3);
    const [tx] = await db.select().from(tickets).where(eq(tickets.contactId, x.contact.id));
    expect(tx!.status).not.toBe('closed');
    // Nor does it hear the first company's contact events.
    const bSocket = await t.socket(b.admin.token);
    const heard = collectEvents(bSocket, `company-${a.id}-contact`, 500);
    expect(
      (await t.as(a.admin).post(`/contacts/${x.contact.id}/merge`, { otherId: y.contact.id })).status,
    ).toBe(200);
    expect(await heard).toEqual([]);
  });

  test('duplicates: ninth digit, a LID mapped to a phone, the same e-mail; paged and company-scoped', async () => {
    const a = await company('Dups');
    const b = await company('DupsOther');
    const x = await a.customer(1, { email: 'Ana@Mail.com' });
    // The same mobile stored without the ninth digit (an older import): 55 11 9xxxxxxxx vs 55 11 xxxxxxxx.
    const legacy = x.number.slice(0, 4) + x.number.slice(5);
    const [old] = await db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Ana antiga', number: legacy })
      .returning();
    // A contact whose number is a WhatsApp LID, which x's known LID maps to x's phone.
    const lid = `20${String(seq++).padStart(13, '7')}`;
    await db
      .update(contacts)
      .set({ lid: `${lid}@lid` })
      .where(eq(contacts.id, x.contact.id));
    const [byLid] = await db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Ana LID', number: lid })
      .returning();
    const [byMail] = await db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Ana e-mail', number: phone(), email: 'ana@mail.COM' })
      .returning();
    // The second company has the same numbers and e-mail: never a pair across companies.
    await db.insert(contacts).values({ companyId: b.id, name: 'B', number: legacy, email: 'ana@mail.com' });

    const page = await (await t.as(a.admin).get('/contacts/duplicates')).json();
    const found = page.duplicates.map((d: { reason: string; contacts: { id: number }[] }) => [
      d.reason,
      d.contacts.map((c) => c.id).sort((p, q) => p - q),
    ]);
    const pair = (p: number, q: number) => [p, q].sort((m, n) => m - n);
    expect(found).toEqual(
      expect.arrayContaining([
        ['ninth_digit', pair(x.contact.id, old!.id)],
        ['lid', pair(x.contact.id, byLid!.id)],
        ['email', pair(x.contact.id, byMail!.id)],
      ]),
    );
    expect(found).toHaveLength(3);
    expect(page.hasMore).toBe(false);
    const other = await (await t.as(b.admin).get('/contacts/duplicates')).json();
    expect(other.duplicates).toEqual([]);
    await expectError(await t.as(a.admin).get('/contacts/duplicates?pageNumber=0'), 400, 'ERR_VALIDATION');

    // Paged: 25 e-mail pairs → 20, then 5.
    const c = await company('DupsPaged');
    await db.insert(contacts).values(
      Array.from({ length: 50 }, (_, i) => ({
        companyId: c.id,
        name: `P${i}`,
        number: phone(),
        email: i % 2 ? `p${i >> 1}@x.com` : `P${i >> 1}@X.com`,
      })),
    );
    const first = await (await t.as(c.admin).get('/contacts/duplicates')).json();
    expect(first.duplicates).toHaveLength(20);
    expect(first.hasMore).toBe(true);
    const second = await (await t.as(c.admin).get('/contacts/duplicates?pageNumber=2')).json();
    expect(second.duplicates).toHaveLength(5);
    expect(second.hasMore).toBe(false);
  });
});
