import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { WAMessage } from 'baileys';
import { proto } from 'baileys';
import { auditLog, contacts, lidMappings, messages, tickets } from '../db/schema/index.js';
import { testApp, waitFor, type Session } from '../../test/helpers.js';
import { baileysFixture, scriptedBaileys, type ScriptedSocket } from '../../test/fake-baileys.js';
import { canonicalLid } from './lid-map.js';

const baileys = scriptedBaileys();
const t = await testApp({ deps: { baileysSocket: baileys.makeSocket } });
const db = t.database.db;

/** A new company with a CONNECTED Baileys connection on a scripted socket. */
async function baileysConnection(name: string) {
  const c = await t.company(name);
  const before = baileys.sockets.length;
  const res = await t.as(c.admin).post('/whatsapp', { name: `${name} WA`, channel: 'baileys' });
  expect(res.status, await res.clone().text()).toBe(201);
  const w = await res.json();
  await waitFor(() => baileys.sockets.length > before);
  const socket = baileys.last();
  socket.open();
  await waitFor(async () => {
    const r = await (await t.as(c.admin).get(`/whatsapp/${w.id}`)).json();
    return r.status === 'CONNECTED';
  });
  return { ...c, whatsappId: w.id as number, socket };
}

/** A customer's text, from the JIDs given (remoteJid first, then its alternate if any). */
function text(
  id: string,
  body: string,
  remoteJid: string,
  remoteJidAlt?: string,
  pushName = 'Cliente',
): WAMessage {
  const base = baileysFixture('text-conversation');
  return {
    ...base,
    key: { remoteJid, ...(remoteJidAlt ? { remoteJidAlt } : {}), fromMe: false, id },
    pushName,
    message: proto.Message.fromObject({ conversation: body }),
  };
}

const stored = (whatsappId: number, providerId: string) =>
  waitFor(async () => {
    const [m] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, whatsappId), eq(messages.providerId, providerId)));
    return m;
  });

const contactOf = async (id: number) => (await db.select().from(contacts).where(eq(contacts.id, id)))[0];

async function events(s: Session, ticketId: number) {
  const res = await t.as(s).get(`/tickets/${ticketId}/events`);
  expect(res.status).toBe(200);
  return (await res.json()).events as { type: string; actorKind: string; data: Record<string, unknown> }[];
}

describe('#33.6 LID numbers', () => {
  test('canonicalLid reads every spelling of a LID and nothing else', () => {
    expect(canonicalLid('187654321098765@lid')).toBe('187654321098765@lid');
    expect(canonicalLid('187654321098765:12@lid')).toBe('187654321098765@lid');
    expect(canonicalLid('187654321098765@hosted.lid')).toBe('187654321098765@lid');
    expect(canonicalLid('5511987654321@s.whatsapp.net')).toBe('');
    expect(canonicalLid('')).toBe('');
  });

  test('a message from a LID the connection learnt (from a message key, from lid-mapping.update) joins the phone’s contact and ticket', async () => {
    const a = await baileysConnection('LidA');
    const s: ScriptedSocket = a.socket;
    // A phone message whose key carries the LID alternate: the connection learns the pair from it.
    s.upsert([text('PN-1', 'oi', '5511987654321@s.whatsapp.net', '203838457876552@lid', 'Maria')]);
    const first = await stored(a.whatsappId, 'PN-1');
    await waitFor(async () => {
      const [m] = await db
        .select()
        .from(lidMappings)
        .where(and(eq(lidMappings.whatsappId, a.whatsappId), eq(lidMappings.lid, '203838457876552@lid')));
      return m?.number === '5511987654321' && m.companyId === a.id;
    });
    // Later WhatsApp names her only by her LID (no alternate, nothing in Baileys' store).
    s.upsert([text('LID-1', 'tudo bem?', '203838457876552@lid')]);
    const second = await stored(a.whatsappId, 'LID-1');
    expect(second.contactId).toBe(first.contactId);
    expect(second.ticketId).toBe(first.ticketId);

    // Baileys 7's own mapping event teaches another pair before that customer ever wrote.
    s.emit('lid-mapping.update', { lid: '300000000000001@lid', pn: '5521999990001@s.whatsapp.net' });
    await waitFor(async () =>
      (
        await db
          .select()
          .from(lidMappings)
          .where(and(eq(lidMappings.whatsappId, a.whatsappId), eq(lidMappings.lid, '300000000000001@lid')))
      ).at(0),
    );
    s.upsert([text('LID-2', 'sou novo', '300000000000001@lid')]);
    const third = await stored(a.whatsappId, 'LID-2');
    const c = await contactOf(third.contactId!);
    expect(c).toMatchObject({ number: '5521999990001' });
    // Contacts events reveal pairs too (lid + phoneNumber).
    s.emit('contacts.upsert', [
      { id: '300000000000002@lid', phoneNumber: '5521999990002@s.whatsapp.net', notify: 'Ana' },
    ]);
    await waitFor(async () =>
      (
        await db
          .select()
          .from(lidMappings)
          .where(and(eq(lidMappings.whatsappId, a.whatsappId), eq(lidMappings.lid, '300000000000002@lid')))
      ).at(0),
    );
  });

  test('an unknown LID gets its own contact, merged automatically into the phone’s when the pair arrives (timeline and audit by the system)', async () => {
    const a = await baileysConnection('LidB');
    const s = a.socket;
    s.upsert([text('U-1', 'sem número', '187654321098765@lid', undefined, 'João')]);
    const lidMsg = await stored(a.whatsappId, 'U-1');
    const lidContact = (await contactOf(lidMsg.contactId!))!;
    expect(lidContact).toMatchObject({ number: '', lid: '187654321098765@lid' });
    // The same person writes from the phone side: a second contact and ticket, for now.
    s.upsert([text('U-2', 'agora pelo número', '5511976543210@s.whatsapp.net', undefined, 'João')]);
    const pnMsg = await stored(a.whatsappId, 'U-2');
    expect(pnMsg.contactId).not.toBe(lidMsg.contactId);
    expect(pnMsg.ticketId).not.toBe(lidMsg.ticketId);
    const tag = await (await t.as(a.admin).post('/tags', { name: 'VIP-lid', color: '#ff0000' })).json();
    await t.as(a.admin).post(`/tags/sync`, { ticketId: lidMsg.ticketId, tags: [{ id: tag.id }] });

    // WhatsApp tells the pair: the LID contact merges into the phone's.
    s.emit('lid-mapping.update', { lid: '187654321098765@lid', pn: '5511976543210@s.whatsapp.net' });
    await waitFor(async () => !(await contactOf(lidContact.id)));
    const moved = (await db.select().from(messages).where(eq(messages.id, lidMsg.id)))[0]!;
    expect(moved).toMatchObject({ contactId: pnMsg.contactId, ticketId: pnMsg.ticketId });
    expect(await contactOf(pnMsg.contactId!)).toMatchObject({
      number: '5511976543210',
      lid: '187654321098765@lid',
    });
    const [oldTicket] = await db.select().from(tickets).where(eq(tickets.id, lidMsg.ticketId));
    expect(oldTicket!.status).toBe('closed');
    const tl = await events(a.admin, pnMsg.ticketId);
    const merged = tl.find((e) => e.type === 'merged');
    expect(merged).toMatchObject({ actorKind: 'system' });
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, a.id), eq(auditLog.action, 'contact.merged')));
    expect(audit).toMatchObject({ actorId: null, targetId: String(pnMsg.contactId) });
    expect(audit!.after).toMatchObject({ by: 'system', reason: 'lid_mapping' });
    const tags = await (await t.as(a.admin).get(`/tickets/${pnMsg.ticketId}`)).json();
    expect(tags.tags.map((x: { id: number }) => x.id)).toContain(tag.id);

    // The next LID message joins the phone's ticket.
    s.upsert([text('U-3', 'de novo', '187654321098765@lid')]);
    expect(await stored(a.whatsappId, 'U-3')).toMatchObject({ ticketId: pnMsg.ticketId });
  });

  test('a LID-only contact without a phone contact simply takes the number', async () => {
    const a = await baileysConnection('LidC');
    a.socket.upsert([text('N-1', 'olá', '400000000000001@lid', undefined, 'Bia')]);
    const m = await stored(a.whatsappId, 'N-1');
    a.socket.emit('chats.upsert', [{ id: '400000000000001@lid', pnJid: '5531988887777@s.whatsapp.net' }]);
    await waitFor(async () => (await contactOf(m.contactId!))?.number === '5531988887777');
  });

  test('another company’s connection never uses the first one’s pairs, nor sees its contacts', async () => {
    const a = await baileysConnection('LidD');
    const b = await baileysConnection('LidE');
    a.socket.emit('lid-mapping.update', { lid: '500000000000001@lid', pn: '5541977776666@s.whatsapp.net' });
    await waitFor(async () =>
      (await db.select().from(lidMappings).where(eq(lidMappings.whatsappId, a.whatsappId))).at(0),
    );
    a.socket.upsert([text('X-1', 'a', '500000000000001@lid')]);
    b.socket.upsert([text('X-1', 'b', '500000000000001@lid')]);
    const inA = await stored(a.whatsappId, 'X-1');
    const inB = await stored(b.whatsappId, 'X-1');
    expect(await contactOf(inA.contactId!)).toMatchObject({ companyId: a.id, number: '5541977776666' });
    expect(await contactOf(inB.contactId!)).toMatchObject({ companyId: b.id, number: '' });
    expect((await t.as(b.admin).get(`/contacts/${inA.contactId}`)).status).toBe(404);
    expect(await db.select().from(lidMappings).where(eq(lidMappings.companyId, b.id))).toHaveLength(0);
  });
});
