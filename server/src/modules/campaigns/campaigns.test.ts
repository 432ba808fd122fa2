import { describe, expect, test } from 'vitest';
import { and, asc, eq, sql } from 'drizzle-orm';
import {
  campaignShippings,
  companies,
  contactListItems,
  contactLists,
  contacts,
  simulatorMessages,
  tags,
  ticketTags,
  tickets,
} from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { manualClock } from '../../lib/clock.js';
import { collectEvents, nextEvent, testApp, unique, type Session, waitFor } from '../../../test/helpers.js';

const T0 = new Date('2026-03-02T15:00:00Z');
const clock = manualClock(T0);
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const jobs = t.app.services.jobs;

let numberSeq = 0;
const freshNumber = () =>
  `55119${String(Date.now() % 1e4).padStart(4, '0')}${String(numberSeq++).padStart(4, '0')}`;

interface Setup {
  company: { id: number; admin: Session };
  whatsappId: number;
  listId: number;
  numbers: string[];
}

async function setup(
  n: number,
  settings: Record<string, unknown> = { messageInterval: 0, longerIntervalAfter: 0 },
): Promise<Setup> {
  const company = await t.company('Camp');
  const w = await t.as(company.admin).post('/whatsapp', { name: unique('Sim'), channel: 'simulator' });
  expect(w.status).toBe(201);
  const whatsappId = (await w.json()).id as number;
  await t.app.sessions.tick();
  await waitFor(async () => t.app.sessions.get(whatsappId));
  const [list] = await db
    .insert(contactLists)
    .values({ companyId: company.id, name: unique('L') })
    .returning();
  const numbers = Array.from({ length: n }, freshNumber);
  for (let i = 0; i < numbers.length; i += 500)
    await db.insert(contactListItems).values(
      numbers.slice(i, i + 500).map((number, k) => ({
        companyId: company.id,
        contactListId: list!.id,
        name: `Pessoa ${i + k} Teste`,
        number,
        email: `p${i + k}@x.test`,
      })),
    );
  const s = await t.as(company.admin).post('/campaign-settings', { settings });
  expect(s.status).toBeLessThan(300);
  return { company, whatsappId, listId: list!.id, numbers };
}

async function createCampaign(s: Setup, body: Record<string, unknown> = {}) {
  const res = await t.as(s.company.admin).post('/campaigns', {
    name: unique('Camp'),
    message1: 'Olá {nome}!',
    whatsappId: s.whatsappId,
    contactListId: s.listId,
    scheduledAt: clock.now().toISOString(),
    ...body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number; status: string };
}

const statusOf = async (s: Setup, id: number) =>
  (await (await t.as(s.company.admin).get(`/campaigns/${id}`)).json()) as {
    status: string;
    completedAt: string | null;
    counts: { valid: number; sent: number; delivered: number; pending: number };
  };

/** What each simulated customer's phone received from the company. */
async function received(whatsappId: number) {
  const rows = await db
    .select({ number: simulatorMessages.number, body: simulatorMessages.body })
    .from(simulatorMessages)
    .where(and(eq(simulatorMessages.whatsappId, whatsappId), eq(simulatorMessages.fromMe, true)))
    .orderBy(asc(simulatorMessages.id));
  const byNumber = new Map<string, string[]>();
  for (const r of rows) byNumber.set(r.number, [...(byNumber.get(r.number) ?? []), r.body]);
  return { total: rows.length, byNumber };
}

const nextSendAt = async (campaignId: number) => {
  const [row] = await executeRows<{ run_at: string; status: string }>(
    db,
    sql`select run_at, status from jobs where kind = 'campaign.send' and key = ${`campaign:${campaignId}`}`,
  );
  return row && row.status === 'queued' ? new Date(row.run_at) : null;
};

/** Runs due jobs (moving the clock to each next send) until the campaign leaves EM_ANDAMENTO / PROGRAMADA. */
async function runToEnd(s: Setup, id: number, maxRounds = 10_000) {
  for (let i = 0; i < maxRounds; i++) {
    await jobs.runDue();
    const st = await statusOf(s, id);
    if (st.status !== 'EM_ANDAMENTO' && st.status !== 'PROGRAMADA') return st;
    const at = await nextSendAt(id);
    if (at && at > clock.now()) clock.set(at);
  }
  throw new Error('campaign did not end');
}

describe('campaign API', () => {
  test('create, list with names, get with counts; validation errors are 400', async () => {
    const s = await setup(2);
    const c = await createCampaign(s, { scheduledAt: null });
    expect(c.status).toBe('INATIVA');
    const list = await (await t.as(s.company.admin).get('/campaigns?searchParam=CAMP')).json();
    expect(list.hasMore).toBe(false);
    expect(list.records[0]).toMatchObject({
      id: c.id,
      whatsapp: { id: s.whatsappId },
      contactList: { id: s.listId },
    });
    const one = await statusOf(s, c.id);
    expect(one.counts).toEqual({ valid: 0, sent: 0, delivered: 0, failed: 0, pending: 0 });

    const bad = [
      { name: 'x', message1: 'a' },
      { name: 'ok name', message1: '' },
      { name: 'ok name', message1: 'a', contactListId: s.listId, tagId: 1 },
      { name: 'ok name', message1: 'a', scheduledAt: 'tomorrow' },
      { name: 'ok name', message1: 'a', scheduledAt: clock.now().toISOString() }, // scheduled without audience
    ];
    for (const body of bad) {
      const res = await t.as(s.company.admin).post('/campaigns', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).error).toBe('ERR_VALIDATION');
    }
    expect((await t.as(s.company.admin).get('/campaigns/abc')).status).toBe(400);
    expect((await t.as(s.company.admin).get('/campaigns/999999')).status).toBe(404);
  });

  test('edit lock: INATIVA and PROGRAMADA > 1 h are editable, otherwise ERR_CAMPAIGN_NOT_EDITABLE', async () => {
    const s = await setup(1);
    const api = t.as(s.company.admin);
    const c = await createCampaign(s, {
      scheduledAt: new Date(clock.now().getTime() + 2 * 3600_000).toISOString(),
    });
    expect(c.status).toBe('PROGRAMADA');
    let res = await api.put(`/campaigns/${c.id}`, { name: 'Renamed' });
    expect(res.status).toBe(200);
    expect((await res.json()).editable).toBe(true);
    res = await api.put(`/campaigns/${c.id}`, {
      scheduledAt: new Date(clock.now().getTime() + 30 * 60_000).toISOString(),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).editable).toBe(false);
    res = await api.put(`/campaigns/${c.id}`, { name: 'Again' });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toBe('ERR_CAMPAIGN_NOT_EDITABLE');
    // Nothing but a running campaign can be stopped; nothing but a stopped one restarted.
    expect((await (await api.post(`/campaigns/${c.id}/cancel`)).json()).error).toBe(
      'ERR_CAMPAIGN_INVALID_STATUS',
    );
    expect((await (await api.post(`/campaigns/${c.id}/restart`)).json()).error).toBe(
      'ERR_CAMPAIGN_INVALID_STATUS',
    );
    // Not started before its time.
    await jobs.runDue();
    expect((await statusOf(s, c.id)).status).toBe('PROGRAMADA');
    clock.advance(31 * 60_000);
    await jobs.runDue();
    expect((await statusOf(s, c.id)).status).toBe('FINALIZADA');
    expect((await api.del(`/campaigns/${c.id}`)).status).toBe(200);
    expect((await api.get(`/campaigns/${c.id}`)).status).toBe(404);
  });
});

describe('dispatch engine', () => {
  test('spacing: a random wait within the interval, the greater interval after every N sends', async () => {
    const s = await setup(12, { messageInterval: 10, longerIntervalAfter: 5, greaterInterval: 60 });
    const c = await createCampaign(s);
    const end = await runToEnd(s, c.id);
    expect(end.status).toBe('FINALIZADA');
    const rows = await db
      .select({ sentAt: campaignShippings.sentAt })
      .from(campaignShippings)
      .where(eq(campaignShippings.campaignId, c.id))
      .orderBy(asc(campaignShippings.sentAt));
    expect(rows).toHaveLength(12);
    const gaps = rows.slice(1).map((r, i) => r.sentAt!.getTime() - rows[i]!.sentAt!.getTime());
    gaps.forEach((g, i) => {
      // gap i follows send i+1
      if ((i + 1) % 5 === 0) expect(g, `gap ${i}`).toBe(60_000);
      else {
        expect(g, `gap ${i}`).toBeGreaterThanOrEqual(5_000);
        expect(g, `gap ${i}`).toBeLessThanOrEqual(10_000);
      }
    });
    expect(new Date(end.completedAt!).getTime()).toBe(rows[11]!.sentAt!.getTime());
  });

  test('nothing is sent before the wait is over', async () => {
    const s = await setup(3, { messageInterval: 20, longerIntervalAfter: 0 });
    const c = await createCampaign(s);
    await jobs.runDue();
    expect((await received(s.whatsappId)).total).toBe(1);
    const at = (await nextSendAt(c.id))!;
    expect(at.getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(10_000);
    clock.set(new Date(at.getTime() - 1));
    await jobs.runDue();
    expect((await received(s.whatsappId)).total).toBe(1);
    clock.set(at);
    await jobs.runDue();
    expect((await received(s.whatsappId)).total).toBe(2);
    await runToEnd(s, c.id);
  });

  test('a blocked company’s campaign sends nothing while blocked and goes on by itself once paid (#28.2)', async () => {
    const s = await setup(2);
    const c = await createCampaign(s);
    const due = (days: number) =>
      new Date(clock.now().getTime() + days * 86_400_000).toISOString().slice(0, 10);
    // Past dueDate + 1 day: the dispatch jobs put themselves back instead of sending.
    await db
      .update(companies)
      .set({ dueDate: due(-10) })
      .where(eq(companies.id, s.company.id));
    for (let i = 0; i < 3; i++) {
      await jobs.runDue();
      clock.advance(2 * 60_000);
    }
    expect((await received(s.whatsappId)).total).toBe(0);
    expect((await statusOf(s, c.id)).counts.sent).toBe(0);
    // Paid: the same campaign runs to its end, each contact once.
    await db
      .update(companies)
      .set({ dueDate: due(30) })
      .where(eq(companies.id, s.company.id));
    clock.advance(2 * 60_000);
    expect((await runToEnd(s, c.id)).status).toBe('FINALIZADA');
    const { total, byNumber } = await received(s.whatsappId);
    expect(total).toBe(2);
    expect([...byNumber.keys()].sort()).toEqual([...s.numbers].sort());
  });

  test('variants at random, placeholders and variables filled, one message per contact, acks delivered', async () => {
    const s = await setup(60, {
      messageInterval: 0,
      longerIntervalAfter: 0,
      variables: [{ key: 'cupom', value: 'X10' }],
    });
    const c = await createCampaign(s, {
      message1: 'A: Olá {nome}',
      message2: 'B: {primeiro-nome}, cupom {cupom}',
      message3: 'C: {numero} {email}',
    });
    const end = await runToEnd(s, c.id);
    expect(end.status).toBe('FINALIZADA');
    const { total, byNumber } = await received(s.whatsappId);
    expect(total).toBe(60);
    const items = await db
      .select()
      .from(contactListItems)
      .where(eq(contactListItems.contactListId, s.listId));
    const seen = new Set<string>();
    for (const item of items) {
      const got = byNumber.get(item.number);
      expect(got, item.number).toHaveLength(1);
      const body = got![0]!;
      const first = item.name.split(' ')[0];
      expect([`A: Olá ${item.name}`, `B: ${first}, cupom X10`, `C: ${item.number} ${item.email}`]).toContain(
        body,
      );
      seen.add(body[0]!);
    }
    expect([...seen].sort()).toEqual(['A', 'B', 'C']);
    // The simulated phones confirm delivery: deliveredAt on every shipping.
    const st = await waitFor(async () => {
      const x = await statusOf(s, c.id);
      return x.counts.delivered === 60 && x;
    });
    expect(st.counts).toMatchObject({ valid: 60, sent: 60, delivered: 60, pending: 0 });
  });

  test('a tag as audience: the contacts of the tickets that carry it', async () => {
    const s = await setup(0);
    const [tag] = await db
      .insert(tags)
      .values({ companyId: s.company.id, name: unique('VIP') })
      .returning();
    const numbers = [freshNumber(), freshNumber(), freshNumber()];
    for (const [i, number] of numbers.entries()) {
      const [ct] = await db
        .insert(contacts)
        .values({ companyId: s.company.id, name: `Tag ${i}`, number })
        .returning();
      const [tk] = await db
        .insert(tickets)
        .values({ companyId: s.company.id, contactId: ct!.id, whatsappId: s.whatsappId, status: 'open' })
        .returning();
      if (i < 2) await db.insert(ticketTags).values({ ticketId: tk!.id, tagId: tag!.id });
    }
    const c = await createCampaign(s, { contactListId: null, tagId: tag!.id, message1: 'Oi {nome}' });
    expect((await runToEnd(s, c.id)).status).toBe('FINALIZADA');
    const { byNumber } = await received(s.whatsappId);
    expect(byNumber.get(numbers[0]!)).toEqual(['Oi Tag 0']);
    expect(byNumber.get(numbers[1]!)).toEqual(['Oi Tag 1']);
    expect(byNumber.get(numbers[2]!)).toBeUndefined();
  });

  test('cancel stops further sends; restart continues where it stopped; each contact once', async () => {
    const s = await setup(5, { messageInterval: 10, longerIntervalAfter: 0 });
    const api = t.as(s.company.admin);
    const c = await createCampaign(s);
    await jobs.runDue();
    clock.set((await nextSendAt(c.id))!);
    await jobs.runDue();
    expect((await received(s.whatsappId)).total).toBe(2);
    const res = await api.post(`/campaigns/${c.id}/cancel`);
    expect(res.status).toBe(200);
    expect((await res.json()).status).toBe('CANCELADA');
    // The next send's time comes and goes: nothing more.
    clock.advance(60_000);
    await jobs.runDue();
    clock.advance(60_000);
    await jobs.runDue();
    expect((await received(s.whatsappId)).total).toBe(2);
    expect((await statusOf(s, c.id)).counts.pending).toBe(3);

    const again = await api.post(`/campaigns/${c.id}/restart`);
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe('EM_ANDAMENTO');
    const end = await runToEnd(s, c.id);
    expect(end.status).toBe('FINALIZADA');
    const { total, byNumber } = await received(s.whatsappId);
    expect(total).toBe(5);
    for (const n of s.numbers) expect(byNumber.get(n)).toHaveLength(1);
  });

  test('confirmation flow: the confirmation first, the message after the customer replies', async () => {
    const s = await setup(1);
    const [number] = s.numbers;
    const c = await createCampaign(s, {
      confirmation: true,
      confirmationMessage1: 'Podemos enviar a oferta, {primeiro-nome}? Responda SIM',
      message1: 'A oferta: {nome}',
    });
    expect((await runToEnd(s, c.id)).status).toBe('FINALIZADA');
    expect((await received(s.whatsappId)).byNumber.get(number!)).toEqual([
      'Podemos enviar a oferta, Pessoa? Responda SIM',
    ]);
    const reply = await t
      .as(s.company.admin)
      .post(`/simulator/${s.whatsappId}/inbound`, { from: number, body: 'SIM' });
    expect(reply.status).toBe(202);
    await waitFor(async () => (await received(s.whatsappId)).byNumber.get(number!)?.length === 2);
    expect((await received(s.whatsappId)).byNumber.get(number!)![1]).toBe('A oferta: Pessoa 0 Teste');
    const [row] = await db.select().from(campaignShippings).where(eq(campaignShippings.campaignId, c.id));
    expect(row!.confirmedAt).not.toBeNull();
    expect(row!.sentAt).not.toBeNull();
    // A second reply sends nothing more.
    await t
      .as(s.company.admin)
      .post(`/simulator/${s.whatsappId}/inbound`, { from: number, body: 'SIM de novo' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await received(s.whatsappId)).byNumber.get(number!)).toHaveLength(2);
  });

  test('live events: the campaign room of the company sees progress; another company sees nothing', async () => {
    const s = await setup(3);
    const other = await t.company('Other');
    const mine = await t.socket(s.company.admin.token);
    const theirs = await t.socket(other.admin.token);
    const created = nextEvent<{ action: string; record: { id: number } }>(
      mine,
      `company-${s.company.id}-campaign`,
    );
    const leaked = collectEvents(theirs, `company-${s.company.id}-campaign`, 1500);
    const c = await createCampaign(s);
    expect((await created).record.id).toBe(c.id);
    const statuses: string[] = [];
    mine.on(`company-${s.company.id}-campaign`, (p: { record: { status: string } }) =>
      statuses.push(p.record.status),
    );
    await runToEnd(s, c.id);
    await waitFor(async () => statuses.includes('FINALIZADA'));
    expect(statuses).toContain('EM_ANDAMENTO');
    // The other company's socket asked to join everything it could think of; still nothing arrives.
    theirs.emit('join', `company-${s.company.id}`);
    theirs.emit('joinNotification');
    expect(await leaked).toEqual([]);
  });
});

describe('campaign media', () => {
  const upload = (token: string, id: number, mimetype: string, filename: string) => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: mimetype }), filename);
    return fetch(`${t.url}/api/campaigns/${id}/media-upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
  };

  test('an attachment goes with the message as its caption; bad types and other companies are refused', async () => {
    const s = await setup(2);
    const c = await createCampaign(s, { scheduledAt: null, message1: 'Veja, {nome}' });
    expect((await upload(s.company.admin.token, c.id, 'application/x-msdownload', 'virus.exe')).status).toBe(
      400,
    );
    const other = await t.company('MediaIntruder');
    expect((await upload(other.admin.token, c.id, 'image/png', 'x.png')).status).toBe(404);
    const res = await upload(s.company.admin.token, c.id, 'image/png', 'oferta.png');
    expect(res.status).toBe(200);
    expect((await res.json()).mediaName).toBe('oferta.png');
    const go = await t
      .as(s.company.admin)
      .put(`/campaigns/${c.id}`, { scheduledAt: clock.now().toISOString() });
    expect(go.status).toBe(200);
    expect((await runToEnd(s, c.id)).status).toBe('FINALIZADA');
    const rows = await db
      .select()
      .from(simulatorMessages)
      .where(and(eq(simulatorMessages.whatsappId, s.whatsappId), eq(simulatorMessages.fromMe, true)));
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.mediaType).toBe('image');
      expect(r.body).toMatch(/^Veja, Pessoa \d+ Teste$/);
    }
  });
});

describe('tenant isolation', () => {
  test("another company can neither read, change, run nor reference a company's campaign", async () => {
    const s = await setup(2);
    const c = await createCampaign(s, { scheduledAt: null });
    const other = await t.company('Intruder');
    const api = t.as(other.admin);
    expect((await api.get(`/campaigns/${c.id}`)).status).toBe(404);
    expect((await api.put(`/campaigns/${c.id}`, { name: 'Hacked' })).status).toBe(404);
    expect((await api.post(`/campaigns/${c.id}/cancel`)).status).toBe(404);
    expect((await api.post(`/campaigns/${c.id}/restart`)).status).toBe(404);
    expect((await api.del(`/campaigns/${c.id}/media-upload`)).status).toBe(404);
    expect((await api.del(`/campaigns/${c.id}`)).status).toBe(404);
    const list = await (await api.get('/campaigns')).json();
    expect(list.records.map((r: { id: number }) => r.id)).not.toContain(c.id);
    // Its own campaign aimed at the first company's list or connection: not found.
    const viaList = await api.post('/campaigns', { name: 'Steal', message1: 'x', contactListId: s.listId });
    expect(viaList.status).toBe(404);
    const viaWapp = await api.post('/campaigns', { name: 'Steal', message1: 'x', whatsappId: s.whatsappId });
    expect(viaWapp.status).toBe(404);
    expect((await statusOf(s, c.id)).status).toBe('INATIVA');
  });

  test('a user (not admin) reads but cannot create', async () => {
    const s = await setup(1);
    const user = await t.user(s.company.admin, 'user');
    expect((await t.as(user).get('/campaigns')).status).toBe(200);
    const res = await t.as(user).post('/campaigns', { name: 'Nope', message1: 'x' });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('ERR_NO_PERMISSION');
  });
});
