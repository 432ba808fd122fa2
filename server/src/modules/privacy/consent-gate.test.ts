import { describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import { executeRows } from '../../db/rows.js';
import { expectError, testApp, unique, waitFor, type Session } from '../../../test/helpers.js';

/** #35.2 Consent before the first human reply (docs/privacy.md). */
const t = await testApp({ deps: { jobs: { autoStart: false } } });
const db = t.database.db;

let seq = 0;
const freshNumber = () =>
  `55118${String(Date.now() % 1e4).padStart(4, '0')}${String(seq++).padStart(4, '0')}`;

async function company(name: string) {
  const c = await t.company(name);
  const w = await t.as(c.admin).post('/whatsapp', { name: unique('Sim'), channel: 'simulator' });
  expect(w.status).toBe(201);
  const whatsappId = (await w.json()).id as number;
  await t.app.sessions.tick();
  await waitFor(async () => t.app.sessions.get(whatsappId));
  const revealed = await (await t.as(c.admin).get(`/whatsapp/${whatsappId}/token`)).json();
  return { ...c, whatsappId, token: revealed.token as string };
}

async function customerWrites(co: { admin: Session; whatsappId: number }, from: string, body: string) {
  const res = await t
    .as(co.admin)
    .post(`/simulator/${co.whatsappId}/inbound`, { from, name: 'Cliente', body });
  expect(res.status, await res.clone().text()).toBe(202);
  const { id } = (await res.json()) as { id: string };
  return waitFor(async () => {
    const [m] = await executeRows<{ ticket_id: number; contact_id: number }>(
      db,
      sql`select ticket_id, contact_id from messages where provider_id = ${id}`,
    );
    return m;
  });
}

const A = await company('GateA');
const B = await company('GateB');
await t.as(A.admin).put('/settings/privacy', { consentRequired: true, consentText: 'Aceita? SIM ou NÃO' });
const consentOf = async (s: Session, id: number) => (await t.as(s).get(`/contacts/${id}/consent`)).json();
const reply = (s: Session, ticketId: number, body: string) => t.as(s).post(`/messages/${ticketId}`, { body });
const apiSend = (token: string, number: string, body: string) =>
  t.request('POST', '/messages/send', { token, body: { number, body } });

describe('consent before the first human reply', () => {
  test('refused while pending, allowed after yes; the customer still writes and the ticket stays readable', async () => {
    const number = freshNumber();
    const m = await customerWrites(A, number, 'oi');
    await waitFor(async () => (await consentOf(A.admin, m.contact_id)).status === 'asked');
    expect((await consentOf(A.admin, m.contact_id)).replyBlocked).toBe('pending');
    const attendant = await t.user(A.admin, 'user');
    expect((await t.as(attendant).put(`/tickets/${m.ticket_id}`, { status: 'open' })).status).toBe(200);
    await expectError(await reply(attendant, m.ticket_id, 'Olá, posso ajudar?'), 409, 'ERR_CONSENT_PENDING');
    // The API follows the same rule; nothing reached the phone.
    await expectError(await apiSend(A.token, number, 'pela API'), 409, 'ERR_CONSENT_PENDING');
    const phone = async () =>
      (await (await t.as(A.admin).get(`/simulator/${A.whatsappId}/conversations/${number}`)).json()) as {
        fromMe: boolean;
        body: string;
      }[];
    expect((await phone()).some((x) => x.fromMe && /posso ajudar|pela API/.test(x.body))).toBe(false);
    // The customer still writes (not an answer) and everyone still reads the ticket.
    await customerWrites(A, number, 'quero saber do pedido');
    const list = await (await t.as(A.admin).get(`/messages/${m.ticket_id}`)).json();
    expect(list.messages.some((x: { body: string }) => x.body === 'quero saber do pedido')).toBe(true);
    expect((await consentOf(A.admin, m.contact_id)).status).toBe('asked');

    await customerWrites(A, number, 'sim');
    await waitFor(async () => (await consentOf(A.admin, m.contact_id)).status === 'granted');
    expect((await consentOf(attendant, m.contact_id)).replyBlocked).toBeNull();
    const ok = await reply(attendant, m.ticket_id, 'Olá, posso ajudar?');
    expect(ok.status, await ok.clone().text()).toBe(200);
    await waitFor(async () => (await phone()).some((x) => x.fromMe && x.body.includes('posso ajudar')));
  });

  test('refused after no (and a later yes lifts it); consent not required blocks nothing', async () => {
    const number = freshNumber();
    const m = await customerWrites(A, number, 'olá');
    await waitFor(async () => (await consentOf(A.admin, m.contact_id)).status === 'asked');
    await customerWrites(A, number, 'não');
    await waitFor(async () => (await consentOf(A.admin, m.contact_id)).status === 'refused');
    expect((await consentOf(A.admin, m.contact_id)).replyBlocked).toBe('refused');
    await t.as(A.admin).put(`/tickets/${m.ticket_id}`, { status: 'open' });
    await expectError(await reply(A.admin, m.ticket_id, 'mesmo assim'), 409, 'ERR_CONSENT_REFUSED');
    await customerWrites(A, number, 'sim');
    await waitFor(async () => (await consentOf(A.admin, m.contact_id)).status === 'granted');
    expect((await reply(A.admin, m.ticket_id, 'obrigado')).status).toBe(200);

    // B does not require consent: nothing asked, replies go out.
    const other = freshNumber();
    const mb = await customerWrites(B, other, 'oi');
    await t.as(B.admin).put(`/tickets/${mb.ticket_id}`, { status: 'open' });
    expect((await reply(B.admin, mb.ticket_id, 'pois não')).status).toBe(200);
    expect((await consentOf(B.admin, mb.contact_id)).status).toBeNull();
  });

  test("a second company can neither see nor change the first's consent", async () => {
    const number = freshNumber();
    const m = await customerWrites(A, number, 'bom dia');
    await waitFor(async () => (await consentOf(A.admin, m.contact_id)).status === 'asked');
    await expectError(
      await t.as(B.admin).get(`/contacts/${m.contact_id}/consent`),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    expect((await reply(B.admin, m.ticket_id, 'x')).status).toBe(404);
    // B's settings are B's: turning consent off there leaves A's rule in place.
    await t.as(B.admin).put('/settings/privacy', { consentRequired: false });
    await t.as(A.admin).put(`/tickets/${m.ticket_id}`, { status: 'open' });
    await expectError(await reply(A.admin, m.ticket_id, 'x'), 409, 'ERR_CONSENT_PENDING');
    expect((await consentOf(A.admin, m.contact_id)).status).toBe('asked');
  });
});
