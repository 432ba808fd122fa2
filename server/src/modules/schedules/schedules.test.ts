import { testConfig } from '../../../test/config.js';
import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { messages, schedules, tickets } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { buildApp } from '../../app.js';
import { seed } from '../../db/seed.js';
import {
  SUPER,
  freshDatabase,
  nextEvent,
  testApp,
  unique,
  type Session,
  waitFor,
  expectError,
} from '../../../test/helpers.js';

const MIN = 60_000;
const clock = manualClock(new Date());
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const jobs = t.app.services.jobs;

const at = (msFromNow: number) => new Date(clock.now().getTime() + msFromNow).toISOString();

let numberSeq = 0;
/** A company with a simulator connection (its default) and a contact with no ticket. */
async function setup(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  const res = await t.as(c.admin).post('/contacts', {
    name: 'Cliente Agendado',
    number: `1197${String(++numberSeq).padStart(2, '0')}${Date.now().toString().slice(-5)}`,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const contact = await res.json();
  return {
    ...c,
    whatsappId: w.id as number,
    contact: contact as { id: number; number: string; name: string },
  };
}

const conversation = async (s: { admin: Session; whatsappId: number; contact: { number: string } }) =>
  (await (
    await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${s.contact.number}`)
  ).json()) as { fromMe: boolean; body: string; mediaType: string | null }[];

const createSchedule = async (admin: Session, body: Record<string, unknown>) => {
  const res = await t
    .as(admin)
    .post('/schedules', { body: 'Lembrete do seu horário', sendAt: at(10 * MIN), ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

const upload = (s: Session, id: number, filename: string, type: string, data: Buffer) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type }), filename);
  return fetch(`${t.url}/api/schedules/${id}/media-upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
    body: form,
  });
};
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('schedules API', () => {
  test('create, read, list with filters, update while unsent, delete', async () => {
    const s = await setup('SchCrud');
    const sc = await createSchedule(s.admin, { contactId: s.contact.id, body: 'Seu pedido chega amanhã' });
    expect(sc).toMatchObject({
      body: 'Seu pedido chega amanhã',
      contactId: s.contact.id,
      status: 'PENDENTE',
      sentAt: null,
      error: null,
      userId: s.admin.user.id,
      contact: { id: s.contact.id, name: 'Cliente Agendado' },
      mediaPath: null,
    });
    expect((await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json()).id).toBe(sc.id);
    const later = await createSchedule(s.admin, { contactId: s.contact.id, sendAt: at(3 * 24 * 60 * MIN) });

    const all = await (await t.as(s.admin).get('/schedules')).json();
    expect(all.schedules.map((x: { id: number }) => x.id)).toEqual([sc.id, later.id]);
    expect(all.hasMore).toBe(false);
    const range = await (
      await t
        .as(s.admin)
        .get(`/schedules?from=${encodeURIComponent(at(0))}&to=${encodeURIComponent(at(60 * MIN))}`)
    ).json();
    expect(range.schedules.map((x: { id: number }) => x.id)).toEqual([sc.id]);
    const search = await (await t.as(s.admin).get('/schedules?searchParam=PEDIDO')).json();
    expect(search.schedules.map((x: { id: number }) => x.id)).toEqual([sc.id]);
    const byContact = await (await t.as(s.admin).get(`/schedules?contactId=${s.contact.id + 100000}`)).json();
    expect(byContact.schedules).toEqual([]);

    const edited = await (
      await t.as(s.admin).put(`/schedules/${sc.id}`, { body: 'Seu pedido chega hoje', sendAt: at(20 * MIN) })
    ).json();
    expect(edited).toMatchObject({ body: 'Seu pedido chega hoje', status: 'PENDENTE' });
    expect((await t.as(s.admin).del(`/schedules/${later.id}`)).status).toBe(200);
    await expectError(await t.as(s.admin).get(`/schedules/${later.id}`), 404, 'ERR_NOT_FOUND');
  });

  test('bad input: 400 ERR_VALIDATION (or the missing reference), never a 500', async () => {
    const s = await setup('SchBad');
    const post = (b: Record<string, unknown>) => t.as(s.admin).post('/schedules', b);
    await expectError(
      await post({ body: 'Oi', contactId: s.contact.id, sendAt: at(MIN) }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await post({ body: 'Olá, tudo bem?', sendAt: at(MIN) }), 400, 'ERR_VALIDATION');
    await expectError(await post({ body: 'Olá, tudo bem?', contactId: s.contact.id }), 400, 'ERR_VALIDATION');
    await expectError(
      await post({ body: 'Olá, tudo bem?', contactId: s.contact.id, sendAt: 'amanhã' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await post({ body: 'Olá, tudo bem?', contactId: 'x', sendAt: at(MIN) }),
      400,
      'ERR_VALIDATION',
    );
    // Far in the past: a typo, refused.
    await expectError(
      await post({ body: 'Olá, tudo bem?', contactId: s.contact.id, sendAt: at(-24 * 60 * MIN) }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await post({ body: 'Olá, tudo bem?', contactId: 2147483000, sendAt: at(MIN) }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await post({
        body: 'Olá, tudo bem?',
        contactId: s.contact.id,
        sendAt: at(MIN),
        whatsappId: 2147483000,
      }),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    await expectError(await t.as(s.admin).get('/schedules/abc'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s.admin).get('/schedules?from=nope'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s.admin).get('/schedules?status=SENT'), 400, 'ERR_VALIDATION');
    const sc = await createSchedule(s.admin, { contactId: s.contact.id });
    await expectError(await t.as(s.admin).put(`/schedules/${sc.id}`, { body: 'abc' }), 400, 'ERR_VALIDATION');
    // Attachments: png, jpg, jpeg only (type and name); the upload reader's one code for a refused kind.
    await expectError(
      await upload(s.admin, sc.id, 'a.gif', 'image/gif', PNG),
      400,
      'ERR_FILE_TYPE_NOT_ALLOWED',
    );
    await expectError(
      await upload(s.admin, sc.id, 'a.pdf', 'image/png', PNG),
      400,
      'ERR_FILE_TYPE_NOT_ALLOWED',
    );
    await expectError(
      await upload(s.admin, sc.id, 'a.png', 'text/plain', PNG),
      400,
      'ERR_FILE_TYPE_NOT_ALLOWED',
    );
    await expectError(
      await t.as(s.admin).post(`/schedules/${sc.id}/media-upload`, {}),
      400,
      'ERR_VALIDATION',
    );
    expect((await t.request('GET', '/schedules')).status).toBe(401);
  });

  test('at sendAt the customer receives it on a new ticket of the default connection; then it is locked', async () => {
    const s = await setup('SchSend');
    const socket = await t.socket(s.admin.token);
    const sc = await createSchedule(s.admin, {
      contactId: s.contact.id,
      body: 'Sua consulta é amanhã às 9h',
    });
    await jobs.runDue();
    expect((await conversation(s)).length).toBe(0);
    clock.advance(9 * MIN);
    await jobs.runDue();
    expect((await conversation(s)).length).toBe(0);

    const sent = nextEvent<{ action: string; schedule: { id: number; status: string } }>(
      socket,
      `company-${s.id}-schedule`,
      30_000,
    );
    clock.advance(2 * MIN);
    const dueAt = clock.now().getTime();
    await jobs.runDue();
    const phone = await waitFor(async () => {
      const conv = await conversation(s);
      return conv.length ? conv : undefined;
    });
    expect(phone.map((m) => [m.fromMe, m.body])).toEqual([[true, 'Sua consulta é amanhã às 9h']]);
    expect((await sent).schedule.id).toBe(sc.id);

    const after = await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json();
    expect(after.status).toBe('ENVIADA');
    expect(Date.parse(after.sentAt)).toBe(dueAt);
    // The message is the schedule author's, on a ticket opened for them on the default connection.
    const [ticket] = await db.select().from(tickets).where(eq(tickets.id, after.sentTicketId));
    expect(ticket).toMatchObject({ whatsappId: s.whatsappId, status: 'open', userId: s.admin.user.id });
    const [msg] = await db.select().from(messages).where(eq(messages.ticketId, ticket!.id));
    expect(msg).toMatchObject({ fromMe: true, userId: s.admin.user.id, body: 'Sua consulta é amanhã às 9h' });

    // Sent: no more edits, no media changes; running the jobs again sends nothing more.
    await expectError(
      await t.as(s.admin).put(`/schedules/${sc.id}`, { body: 'Mudou de ideia' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await upload(s.admin, sc.id, 'a.png', 'image/png', PNG), 403, 'ERR_NO_PERMISSION');
    await jobs.schedule(t.app.services.schedules.jobs.send, {
      key: `schedule:${sc.id}`,
      payload: { scheduleId: sc.id },
    });
    await jobs.runDue();
    expect((await conversation(s)).length).toBe(1);
  });

  test("the contact's active ticket is used, and an image attachment goes with the text", async () => {
    const s = await setup('SchTicket');
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: s.contact.number, body: 'Oi' });
    const pending = await waitFor(
      async () => (await db.select().from(tickets).where(eq(tickets.contactId, s.contact.id)))[0],
    );
    const sc = await createSchedule(s.admin, { contactId: s.contact.id, ticketId: pending.id });
    const up = await upload(s.admin, sc.id, 'cardapio.PNG', 'image/png', PNG);
    expect(up.status, await up.clone().text()).toBe(200);
    expect(await up.json()).toMatchObject({
      mediaName: 'cardapio.PNG',
      mediaPath: `/api/schedules/${sc.id}/media`,
    });
    const file = await t.as(s.admin).get(`/schedules/${sc.id}/media`);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    clock.advance(11 * MIN);
    await jobs.runDue();
    const image = await waitFor(async () => (await conversation(s)).find((m) => m.fromMe));
    expect(image).toMatchObject({ mediaType: 'image', body: 'Lembrete do seu horário' });
    const after = await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json();
    expect(after).toMatchObject({ status: 'ENVIADA', sentTicketId: pending.id });
  });

  test('a channel failure ends as ERRO with the reason; an edit makes it wait again', async () => {
    const s = await setup('SchFail');
    const sc = await createSchedule(s.admin, { contactId: s.contact.id });
    // Logged out: DISCONNECTED, not run again until started.
    expect((await t.as(s.admin).del(`/whatsappsession/${s.whatsappId}`)).status).toBeLessThan(300);
    await waitFor(async () => !t.app.sessions.get(s.whatsappId));
    clock.advance(11 * MIN);
    await jobs.runDue();
    const failed = await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json();
    expect(failed).toMatchObject({ status: 'ERRO', sentAt: null });
    expect(failed.error).toMatch(/^ERR_WAPP_NOT_INITIALIZED/);
    expect((await conversation(s)).length).toBe(0);
    // Unsent, so it can be edited: it waits again, and goes out once the connection is back.
    const again = await (await t.as(s.admin).put(`/schedules/${sc.id}`, { sendAt: at(5 * MIN) })).json();
    expect(again).toMatchObject({ status: 'PENDENTE', error: null });
    expect((await t.as(s.admin).post(`/whatsappsession/${s.whatsappId}`)).status).toBeLessThan(300);
    await waitFor(async () => t.app.sessions.get(s.whatsappId));
    clock.advance(6 * MIN);
    await jobs.runDue();
    await waitFor(async () => (await conversation(s)).length === 1);
    expect((await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json()).status).toBe('ENVIADA');
  });

  test('an edit moves the send; a delete cancels it', async () => {
    const s = await setup('SchMove');
    const moved = await createSchedule(s.admin, { contactId: s.contact.id, body: 'Mensagem movida' });
    const gone = await createSchedule(s.admin, { contactId: s.contact.id, body: 'Mensagem apagada' });
    await t.as(s.admin).put(`/schedules/${moved.id}`, { sendAt: at(30 * MIN) });
    expect((await t.as(s.admin).del(`/schedules/${gone.id}`)).status).toBe(200);
    clock.advance(11 * MIN);
    await jobs.runDue();
    expect((await (await t.as(s.admin).get(`/schedules/${moved.id}`)).json()).status).toBe('PENDENTE');
    clock.advance(20 * MIN);
    await jobs.runDue();
    const conv = await waitFor(async () => {
      const c = await conversation(s);
      return c.length ? c : undefined;
    });
    expect(conv.map((m) => m.body)).toEqual(['Mensagem movida']);
  });

  test('a claim left by a process that died is sent once: again if nothing was handed over, never twice', async () => {
    const s = await setup('SchStale');
    const sc = await createSchedule(s.admin, { contactId: s.contact.id, body: 'Mensagem após a queda' });
    const claimedAt = new Date(clock.now().getTime() - 10 * MIN);
    // Died after the claim, before the message was stored: nothing reached the customer, so it goes now.
    await db
      .update(schedules)
      .set({ status: 'AGENDADA', claimedAt, sendAt: claimedAt })
      .where(eq(schedules.id, sc.id));
    await t.app.services.schedules.send(sc.id);
    await waitFor(async () => (await conversation(s)).length === 1);
    const sent = await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json();
    expect(sent).toMatchObject({ status: 'ENVIADA', error: null });
    // Died after the hand-over (message and outbox row stored with the mark) but before "sent" was
    // written: the outbox owns that delivery, so the schedule is only marked sent.
    await db
      .update(schedules)
      .set({ status: 'AGENDADA', claimedAt, sentAt: null })
      .where(eq(schedules.id, sc.id));
    await t.app.services.schedules.send(sc.id);
    await t.app.services.schedules.send(sc.id);
    expect((await (await t.as(s.admin).get(`/schedules/${sc.id}`)).json()).status).toBe('ENVIADA');
    expect((await conversation(s)).map((m) => m.body)).toEqual(['Mensagem após a queda']);
    // A fresh claim (still being sent elsewhere) makes the job retry later instead.
    const other = await createSchedule(s.admin, { contactId: s.contact.id });
    await db
      .update(schedules)
      .set({ status: 'AGENDADA', claimedAt: clock.now() })
      .where(eq(schedules.id, other.id));
    await expect(t.app.services.schedules.send(other.id)).rejects.toThrow(/being sent/);
  });

  test('only the author, admins and supervisors change a schedule; every user sees it', async () => {
    const s = await setup('SchPerm');
    const ana = await t.user(s.admin);
    const bia = await t.user(s.admin);
    const sup = await t.user(s.admin, 'supervisor');
    const sc = await createSchedule(ana, { contactId: s.contact.id });
    expect((await t.as(bia).get(`/schedules/${sc.id}`)).status).toBe(200);
    await expectError(
      await t.as(bia).put(`/schedules/${sc.id}`, { body: 'Mudança da Bia' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(bia).del(`/schedules/${sc.id}`), 403, 'ERR_NO_PERMISSION');
    expect((await t.as(sup).put(`/schedules/${sc.id}`, { body: 'Mudança da supervisão' })).status).toBe(200);
    expect((await t.as(s.admin).del(`/schedules/${sc.id}`)).status).toBe(200);
  });

  test('a schedule on a ticket is seen and heard only by those who may see the ticket (#28.3)', async () => {
    const s = await setup('SchVis');
    const queue = async (name: string, color: string) => {
      const res = await t.as(s.admin).post('/queue', { name: unique(name), color });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { id: number };
    };
    const [q1, q2] = [await queue('Vendas ', '#1A2B3C'), await queue('Suporte ', '#3C2B1A')];
    const member = async (queueId: number, profile?: 'user' | 'supervisor') => {
      const u = await t.user(s.admin, profile);
      const res = await t.as(s.admin).put(`/users/${u.user.id}`, { queueIds: [queueId] });
      expect(res.status, await res.clone().text()).toBe(200);
      return u;
    };
    const plain = await member(q1.id); // queue 1 only
    const supervisor = await member(q1.id, 'supervisor'); // #30.8 sees every queue, like an admin
    const allowed = await member(q2.id); // queue 2
    // The contact's ticket, in queue 2.
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: s.contact.number, body: 'Oi' });
    const ticket = await waitFor(
      async () => (await db.select().from(tickets).where(eq(tickets.contactId, s.contact.id)))[0],
    );
    await db.update(tickets).set({ queueId: q2.id, status: 'pending' }).where(eq(tickets.id, ticket.id));

    // Every socket asks for the schedules' rooms, as the schedules screen does.
    const listen = async (session: Session) => {
      const socket = await t.socket(session.token);
      const heard: { action: string; schedule?: { id: number; body: string }; scheduleId?: number }[] = [];
      socket.on(`company-${s.id}-schedule`, (p: (typeof heard)[number]) => heard.push(p));
      const ack = await new Promise<{ ok?: boolean }>((r) => socket.emit('join', 'schedules', r));
      expect(ack.ok).toBe(true);
      return heard;
    };
    const plainHears = await listen(plain);
    const supHears = await listen(supervisor);
    const allowedHears = await listen(allowed);
    const adminHears = await listen(s.admin);

    const onTicket = await createSchedule(s.admin, {
      contactId: s.contact.id,
      ticketId: ticket.id,
      body: 'Sigilo da fila 2',
    });
    const loose = await createSchedule(s.admin, { contactId: s.contact.id, body: 'Sem ticket, para todos' });
    await t.as(s.admin).put(`/schedules/${onTicket.id}`, { body: 'Sigilo da fila 2, editado' });
    await t.as(s.admin).put(`/schedules/${loose.id}`, { body: 'Sem ticket, editado' });

    // Those who may see the ticket hear every change of it; the ticketless one reaches everyone.
    const ids = (heard: typeof plainHears) =>
      heard.map((e) => `${e.action}:${e.schedule?.id ?? e.scheduleId}`);
    for (const heard of [allowedHears, adminHears, supHears])
      await waitFor(() => ids(heard).includes(`update:${loose.id}`));
    expect(ids(allowedHears)).toEqual([
      `create:${onTicket.id}`,
      `create:${loose.id}`,
      `update:${onTicket.id}`,
      `update:${loose.id}`,
    ]);
    expect(ids(adminHears)).toEqual(ids(allowedHears));
    expect(ids(supHears)).toEqual(ids(allowedHears));
    // The queue-1 user hears the ticketless schedule (their sockets work) and nothing of the queue-2 one.
    for (const heard of [plainHears]) {
      await waitFor(() => ids(heard).includes(`update:${loose.id}`));
      expect(ids(heard)).toEqual([`create:${loose.id}`, `update:${loose.id}`]);
      expect(JSON.stringify(heard)).not.toContain('Sigilo');
    }

    // Lists, ranges, filters and reads: the same rule.
    const listed = async (session: Session, query = '') =>
      ((await (await t.as(session).get(`/schedules${query}`)).json()).schedules as { id: number }[]).map(
        (x) => x.id,
      );
    const range = `?from=${encodeURIComponent(at(0))}&to=${encodeURIComponent(at(60 * MIN))}`;
    for (const query of ['', range, `?contactId=${s.contact.id}`, '?searchParam=Sigilo']) {
      expect(await listed(allowed, query)).toContain(onTicket.id);
      expect(await listed(s.admin, query)).toContain(onTicket.id);
      expect(await listed(plain, query)).not.toContain(onTicket.id);
      expect(await listed(supervisor, query)).toContain(onTicket.id);
    }
    expect(await listed(plain)).toContain(loose.id);
    expect((await t.as(allowed).get(`/schedules/${onTicket.id}`)).status).toBe(200);
    expect((await t.as(supervisor).get(`/schedules/${onTicket.id}`)).status).toBe(200);
    for (const who of [plain]) {
      await expectError(await t.as(who).get(`/schedules/${onTicket.id}`), 404, 'ERR_NOT_FOUND');
      await expectError(await t.as(who).get(`/schedules/${onTicket.id}/media`), 404, 'ERR_NOT_FOUND');
      await expectError(await upload(who, onTicket.id, 'a.png', 'image/png', PNG), 404, 'ERR_NOT_FOUND');
    }
    await expectError(
      await t.as(plain).put(`/schedules/${onTicket.id}`, { body: 'Mexendo no que não vejo' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(plain).del(`/schedules/${onTicket.id}`), 404, 'ERR_NOT_FOUND');
    // The supervisor sees it, so may change it (docs/team-tools.md).
    expect(
      (await t.as(supervisor).put(`/schedules/${onTicket.id}`, { body: 'Sigilo, revisto' })).status,
    ).toBe(200);

    // The delete is heard by the same ones only.
    expect((await t.as(s.admin).del(`/schedules/${onTicket.id}`)).status).toBe(200);
    await t.as(s.admin).del(`/schedules/${loose.id}`);
    await waitFor(() => ids(allowedHears).includes(`delete:${loose.id}`));
    expect(ids(allowedHears)).toContain(`delete:${onTicket.id}`);
    await waitFor(() => ids(plainHears).includes(`delete:${loose.id}`));
    expect(ids(plainHears)).not.toContain(`delete:${onTicket.id}`);
  });

  test('a plan without useSchedules gets ERR_NO_PERMISSION from the API', async () => {
    const su = await t.superuser();
    const plan = await (
      await t.as(su).post('/plans', {
        name: unique('NoSchedules'),
        users: 3,
        connections: 1,
        queues: 1,
        value: 10,
        useSchedules: false,
      })
    ).json();
    const c = await t.company('SchNoPlan', { planId: plan.id });
    await expectError(await t.as(c.admin).get('/schedules'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(c.admin).post('/schedules', { body: 'Olá, tudo bem?', contactId: 1, sendAt: at(MIN) }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(c.admin).get('/schedules/1'), 403, 'ERR_NO_PERMISSION');
  });

  test('another company cannot read, change, delete, attach to, or hear about a schedule', async () => {
    const a = await setup('SchA');
    const b = await setup('SchB');
    const sc = await createSchedule(a.admin, { contactId: a.contact.id });
    await expectError(await t.as(b.admin).get(`/schedules/${sc.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/schedules/${sc.id}`, { body: 'Invasão!!' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/schedules/${sc.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(await upload(b.admin, sc.id, 'a.png', 'image/png', PNG), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(b.admin).del(`/schedules/${sc.id}/media-upload`), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(b.admin).get(`/schedules/${sc.id}/media`), 404, 'ERR_NOT_FOUND');
    expect(
      (await (await t.as(b.admin).get(`/schedules?contactId=${a.contact.id}`)).json()).schedules,
    ).toEqual([]);
    // B cannot schedule to A's contact or through A's connection.
    await expectError(
      await t
        .as(b.admin)
        .post('/schedules', { body: 'Olá, tudo bem?', contactId: a.contact.id, sendAt: at(MIN) }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await t.as(b.admin).post('/schedules', {
        body: 'Olá, tudo bem?',
        contactId: b.contact.id,
        sendAt: at(MIN),
        whatsappId: a.whatsappId,
      }),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    const bSocket = await t.socket(b.admin.token);
    const aSocket = await t.socket(a.admin.token);
    bSocket.emit('join', `company-${a.id}`);
    const event = `company-${a.id}-schedule`;
    const heard: unknown[] = [];
    bSocket.on(event, (p: unknown) => heard.push(p));
    const aHears = nextEvent(aSocket, event, 15_000);
    await t.as(a.admin).put(`/schedules/${sc.id}`, { body: 'Só a empresa A ouve' });
    await aHears;
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([]);
    expect((await (await t.as(a.admin).get(`/schedules/${sc.id}`)).json()).body).toBe('Só a empresa A ouve');
  });
});

describe('schedules across a restart', () => {
  test('a new process on the same database sends a due schedule exactly once', async () => {
    const database = await freshDatabase();
    const { config } = testConfig({}, 'recado-sch-');
    await seed(database.db, {
      superuserEmail: SUPER.email,
      superuserPassword: SUPER.password,
      demo: false,
      print: () => undefined,
    });
    const time = manualClock(new Date());
    const start = async () => {
      const app = await buildApp({
        config,
        database,
        logger: false,
        clock: time,
        jobs: { autoStart: false },
      });
      await app.app.listen({ port: 0, host: '127.0.0.1' });
      const addr = app.app.server.address();
      const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/api`;
      const call = async (method: string, path: string, token?: string, body?: unknown) => {
        const res = await fetch(url + path, {
          method,
          headers: {
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: res.status, json: await res.json() };
      };
      return { app, call };
    };
    try {
      const first = await start();
      const su = (await first.call('POST', '/auth/login', undefined, SUPER)).json.token as string;
      const email = `${unique('adm')}@restart.test`;
      const company = await first.call('POST', '/companies', su, {
        name: unique('Restart'),
        email,
        planId: 5,
        dueDate: '2099-01-01',
        adminName: 'Admin',
        adminPassword: 'Admin@123',
      });
      expect(company.status).toBe(201);
      let token = (await first.call('POST', '/auth/login', undefined, { email, password: 'Admin@123' })).json
        .token as string;
      const w = (await first.call('POST', '/whatsapp', token, { name: 'Sim', channel: 'simulator' })).json;
      const contact = (
        await first.call('POST', '/contacts', token, { name: 'Reinício', number: '11955550001' })
      ).json;
      const sc = await first.call('POST', '/schedules', token, {
        body: 'Enviada depois do reinício',
        contactId: contact.id,
        sendAt: new Date(time.now().getTime() + 5 * MIN).toISOString(),
      });
      expect(sc.status).toBe(201);
      // Due while the process is down: it stops before any job ran.
      time.advance(6 * MIN);
      await first.app.close();

      const second = await start();
      try {
        token = (await second.call('POST', '/auth/login', undefined, { email, password: 'Admin@123' })).json
          .token;
        await waitFor(async () => second.app.sessions.get(w.id));
        expect(await second.app.services.jobs.runDue()).toBeGreaterThanOrEqual(1);
        const conv = async () =>
          (await second.call('GET', `/simulator/${w.id}/conversations/${contact.number}`, token)).json as {
            body: string;
          }[];
        await waitFor(async () => (await conv()).length === 1);
        // Again, and once more after another "restart" of the poller: still one message.
        await second.app.services.jobs.runDue();
        time.advance(60 * MIN);
        await second.app.services.jobs.runDue();
        expect((await conv()).map((m) => m.body)).toEqual(['Enviada depois do reinício']);
        const [row] = await database.db
          .select()
          .from(schedules)
          .where(and(eq(schedules.id, sc.json.id)));
        expect(row).toMatchObject({ status: 'ENVIADA' });
      } finally {
        await second.app.close();
      }
    } finally {
      await database.drop();
    }
  }, 180_000);
});
