import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { testApp, type Session, type TestApp } from '../../../test/helpers.js';
import { contactIdentities, contacts, outboundQueue, tickets, whatsapps } from '../../db/schema/index.js';
import type { InboundMessage } from '../../messaging/channel.js';
import type { ConnectionRef } from '../../messaging/session-manager.js';
import { addIdentity, contactForIdentity } from './contact-identities.js';

/**
 * #34 Identities (docs/channels.md "Identities"): a customer of a channel without phone numbers is found or
 * created by (company, kind, value), atomically; replies go to that identity; merges carry it along.
 */
let t: TestApp;
let a: { id: number; admin: Session };
let b: { id: number; admin: Session };
let ref: ConnectionRef;

let n = 0;
const inbound = (value: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
  providerId: `tg-${Date.now()}-${n++}`,
  kind: 'message',
  from: '',
  replyTo: value,
  identity: { kind: 'telegram', value },
  name: `Cliente ${value}`,
  fromMe: false,
  isGroup: false,
  body: `olá ${n}`,
  timestamp: new Date(),
  ...extra,
});

beforeAll(async () => {
  // No session manager: nobody starts the bare Telegram row below (it would go DISCONNECTED, no token).
  t = await testApp({ deps: { sessions: { autoStart: false } } });
  a = await t.company('IdentA');
  b = await t.company('IdentB');
  // A connection row of an identity channel (no channel runs it here: only the database's rules are tested).
  const [w] = await t.database.db
    .insert(whatsapps)
    .values({ companyId: a.id, name: 'Telegram A', channel: 'telegram', status: 'CONNECTED' })
    .returning();
  ref = { id: w!.id, companyId: a.id, channel: 'telegram', channelConfig: {} };
});
afterAll(() => t?.close());

describe('contact identities', () => {
  test('two first messages at once make one contact with one identity and one ticket', async () => {
    const value = '90001';
    const results = await Promise.all([
      t.app.services.pipeline.message(ref, inbound(value)),
      t.app.services.pipeline.message(ref, inbound(value)),
      t.app.services.pipeline.message(ref, inbound(value)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['stored', 'stored', 'stored']);
    expect(new Set(results.map((r) => r.contactId)).size).toBe(1);
    expect(new Set(results.map((r) => r.ticketId)).size).toBe(1);
    const ids = await t.database.db
      .select()
      .from(contactIdentities)
      .where(and(eq(contactIdentities.companyId, a.id), eq(contactIdentities.value, value)));
    expect(ids).toHaveLength(1);
    const made = await t.database.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, a.id), eq(contacts.name, `Cliente ${value}`)));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ number: '', lid: null });
  });

  test('the same identity value of another company is another contact', async () => {
    const mine = await contactForIdentity(t.database.db, a.id, { kind: 'telegram', value: '90002' }, 'x');
    const theirs = await contactForIdentity(t.database.db, b.id, { kind: 'telegram', value: '90002' }, 'y');
    expect(mine).not.toBe(theirs);
    expect(await contactForIdentity(t.database.db, a.id, { kind: 'telegram', value: '90002' }, 'z')).toBe(
      mine,
    );
    // Another kind with the same value is another identity.
    expect(
      await contactForIdentity(t.database.db, a.id, { kind: 'instagram', value: '90002' }, 'w'),
    ).not.toBe(mine);
  });

  test('a reply goes out to the identity; the contact answer lists its identities, not to another company', async () => {
    const r = await t.app.services.pipeline.message(ref, inbound('90003'));
    expect(r.status).toBe('stored');
    await t.database.db
      .update(tickets)
      .set({ status: 'open', userId: a.admin.user.id })
      .where(eq(tickets.id, r.ticketId!));
    const res = await t.as(a.admin).post(`/messages/${r.ticketId}`, { body: 'Oi, aqui é a loja' });
    expect(res.status).toBe(200);
    const [job] = await t.database.db
      .select()
      .from(outboundQueue)
      .where(eq(outboundQueue.whatsappId, ref.id));
    expect(job?.job.to).toBe('90003');

    const contact = await (await t.as(a.admin).get(`/contacts/${r.contactId}`)).json();
    expect(contact.identities).toEqual([{ kind: 'telegram', value: '90003' }]);
    expect((await t.as(b.admin).get(`/contacts/${r.contactId}`)).status).toBe(404);
    expect(
      (await t.as(b.admin).post(`/messages/${r.ticketId}`, { body: 'x' })).status,
    ).toBeGreaterThanOrEqual(400);
  });

  test('a contact without the channel’s identity: ERR_WAPP_INVALID_CONTACT 400', async () => {
    const [c] = await t.database.db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Sem telegram', number: '5511911112222' })
      .returning();
    const [ticket] = await t.database.db
      .insert(tickets)
      .values({
        companyId: a.id,
        contactId: c!.id,
        whatsappId: ref.id,
        status: 'open',
        userId: a.admin.user.id,
      })
      .returning();
    const res = await t.as(a.admin).post(`/messages/${ticket!.id}`, { body: 'Oi' });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('ERR_WAPP_INVALID_CONTACT');
  });

  test('a merge moves the identities to the survivor', async () => {
    const one = await contactForIdentity(t.database.db, a.id, { kind: 'telegram', value: '90010' }, 'Maria');
    const [two] = await t.database.db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Maria', number: '5511933334444' })
      .returning();
    await addIdentity(t.database.db, a.id, two!.id, { kind: 'email', value: 'maria@example.com' });
    const res = await t.as(a.admin).post(`/contacts/${two!.id}/merge`, { otherId: one });
    expect(res.status).toBe(200);
    const contact = await (await t.as(a.admin).get(`/contacts/${two!.id}`)).json();
    expect(contact.identities).toEqual(
      expect.arrayContaining([
        { kind: 'telegram', value: '90010' },
        { kind: 'email', value: 'maria@example.com' },
      ]),
    );
    // The next Telegram message of that customer lands on the survivor.
    const r = await t.app.services.pipeline.message(ref, inbound('90010'));
    expect(r.contactId).toBe(two!.id);
  });
});
