import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import { executeRows } from '../../db/rows.js';
import { expectError, testApp, unique, waitFor, type Session } from '../../../test/helpers.js';
import { webhookReceiver } from '../../../test/webhook-receiver.js';
import { RETENTION_BATCH } from '@recado/contracts';
import { readStoredZip } from './zip-writer.js';

const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { jobs: { autoStart: false } } });
const db = t.database.db;
const jobs = t.app.services.jobs;
const media = t.app.services.media;
const receiver = await webhookReceiver();

let seq = 0;
const freshNumber = () =>
  `55119${String(Date.now() % 1e4).padStart(4, '0')}${String(seq++).padStart(4, '0')}`;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

async function company(name: string) {
  const c = await t.company(name);
  const w = await t.as(c.admin).post('/whatsapp', { name: unique('Sim'), channel: 'simulator' });
  expect(w.status).toBe(201);
  const whatsappId = (await w.json()).id as number;
  await t.app.sessions.tick();
  await waitFor(async () => t.app.sessions.get(whatsappId));
  return { ...c, whatsappId };
}

/** The customer writes through the simulator; answers the contact and ticket once stored. */
async function customerWrites(
  co: { admin: Session; whatsappId: number },
  from: string,
  body: { name?: string; body?: string; media?: { mimetype: string; filename: string; data: string } },
) {
  const res = await t.as(co.admin).post(`/simulator/${co.whatsappId}/inbound`, { from, ...body });
  expect(res.status, await res.clone().text()).toBe(202);
  const { id } = (await res.json()) as { id: string };
  return waitFor(async () => {
    const [m] = await executeRows<{ ticket_id: number; contact_id: number; media_url: string | null }>(
      db,
      sql`select ticket_id, contact_id, media_url from messages where provider_id = ${id}`,
    );
    return m;
  });
}

/** Every row of every table of the database, as text (what a dump would hold). */
async function dumpAll(): Promise<string> {
  const tables = await executeRows<{ table_name: string }>(
    db,
    sql`select table_name from information_schema.tables where table_schema = current_schema()
        and table_type = 'BASE TABLE' order by table_name`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await executeRows<{ r: string }>(
      db,
      sql`select t::text as r from ${sql.identifier(table_name)} t`,
    );
    for (const r of rows) parts.push(`${table_name}: ${r.r}`);
  }
  return parts.join('\n');
}

const grep = (dump: string, needle: string) => dump.split('\n').filter((l) => l.includes(needle));

describe('data subject requests', () => {
  test('export as ZIP, erase with no trace left, dashboard unchanged, other company refused', async () => {
    const A = await company('PrivA');
    const B = await company('PrivB');
    const number = freshNumber();
    const name = unique('Zuleica Privada ');
    const secret = unique('texto-secreto-');
    const email = `${unique('z')}@privada.test`;

    const hook = await t.as(A.admin).post('/webhooks', {
      url: receiver.url,
      events: ['message.created', 'ticket.created', 'ticket.updated', 'contact.created'],
    });
    expect(hook.status, await hook.clone().text()).toBe(201);

    const first = await customerWrites(A, number, { name, body: `Olá, meu segredo é ${secret}` });
    const withMedia = await customerWrites(A, number, {
      body: `foto ${secret}`,
      media: { mimetype: 'image/png', filename: 'rosto.png', data: PNG.toString('base64') },
    });
    expect(withMedia.media_url).toBeTruthy();
    const contactId = first.contact_id;
    const ticketId = first.ticket_id;
    expect((await t.as(A.admin).put(`/contacts/${contactId}`, { name, number, email })).status).toBe(200);
    // An agent replies quoting the name, writes a note, schedules a message and puts the number on a list.
    expect(
      (await t.as(A.admin).put(`/tickets/${ticketId}`, { status: 'open', userId: A.admin.user.id })).status,
    ).toBe(200);
    const reply = await t.as(A.admin).post(`/messages/${ticketId}`, { body: `Oi ${name}, recebi ${secret}` });
    expect(reply.status, await reply.clone().text()).toBeLessThan(300);
    expect(
      (await t.as(A.admin).post('/ticket-notes', { ticketId, contactId, note: `nota ${secret}` })).status,
    ).toBe(201);
    const sched = await t.as(A.admin).post('/schedules', {
      body: `lembrete ${secret}`,
      contactId,
      sendAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(sched.status, await sched.clone().text()).toBe(201);
    const list = await t.as(A.admin).post('/contact-lists', { name: unique('L') });
    expect(list.status).toBe(201);
    const listId = (await list.json()).id as number;
    expect(
      (await t.as(A.admin).post('/contact-list-items', { contactListId: listId, name, number, email }))
        .status,
    ).toBe(201);
    // A campaign to the list: its shipping row holds the number, name and the text sent.
    await t
      .as(A.admin)
      .post('/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: 0 } });
    const camp = await t.as(A.admin).post('/campaigns', {
      name: unique('C'),
      message1: 'Promo para {nome} ({email})',
      whatsappId: A.whatsappId,
      contactListId: listId,
      scheduledAt: new Date().toISOString(),
    });
    expect(camp.status, await camp.clone().text()).toBe(201);
    const campaignId = (await camp.json()).id as number;
    await waitFor(async () => {
      await jobs.runDue();
      const c = await (await t.as(A.admin).get(`/campaigns/${campaignId}`)).json();
      return c.status === 'FINALIZADA';
    });
    // Close the ticket (a figure of the dashboard) and let the webhooks and jobs run.
    expect((await t.as(A.admin).put(`/tickets/${ticketId}`, { status: 'closed' })).status).toBe(200);
    await jobs.runDue();

    const mediaPaths = (
      await executeRows<{ p: string }>(
        db,
        sql`select media_url as p from messages where contact_id = ${contactId} and media_url is not null
            union select media->>'path' from simulator_messages where number = ${number} and media is not null`,
      )
    ).map((r) => r.p);
    expect(mediaPaths.length).toBeGreaterThan(0);
    for (const p of mediaPaths) expect(existsSync(media.fullPath(p))).toBe(true);
    const before = await dumpAll();
    expect(grep(before, number).length).toBeGreaterThan(3);
    expect(grep(before, secret).length).toBeGreaterThan(3);

    // Another company's admin: 404 on both; a plain user of A: 403.
    await expectError(await t.as(B.admin).get(`/contacts/${contactId}/export`), 404, 'ERR_NO_CONTACT_FOUND');
    await expectError(
      await t.as(B.admin).post(`/contacts/${contactId}/erase`, { confirm: true }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    const agent = await t.user(A.admin, 'user');
    await expectError(await t.as(agent).get(`/contacts/${contactId}/export`), 403, 'ERR_NO_PERMISSION');

    // The export: contact, tickets, messages (with their file), notes, timeline, and the media itself.
    const exp = await t.as(A.admin).get(`/contacts/${contactId}/export`);
    expect(exp.status).toBe(200);
    expect(exp.headers.get('content-type')).toBe('application/zip');
    const zip = readStoredZip(Buffer.from(await exp.arrayBuffer()));
    const contact = JSON.parse(zip.get('contact.json')!.toString());
    expect(contact).toMatchObject({ id: contactId, name, number, email });
    const messages = JSON.parse(zip.get('messages/0001.json')!.toString()) as {
      body: string;
      file?: string;
    }[];
    expect(messages.some((m) => m.body.includes(secret))).toBe(true);
    const withFile = messages.find((m) => m.file)!;
    expect(zip.get(withFile.file!)!.equals(PNG)).toBe(true);
    expect(zip.get('notes.json')!.toString()).toContain(secret);
    expect(JSON.parse(zip.get('tickets.json')!.toString())[0].id).toBe(ticketId);
    expect(zip.has('timeline.json') && zip.has('ratings.json') && zip.has('custom-fields.json')).toBe(true);

    const range = `date_from=${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}&date_to=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`;
    const figures = async () => ({
      counters: await (await t.as(A.admin).get(`/dashboard?${range}`)).json(),
      users: await (await t.as(A.admin).get(`/dashboard/ticketsUsers?${range}`)).json(),
      day: await (await t.as(A.admin).get(`/dashboard/ticketsDay?${range}`)).json(),
    });
    const dashBefore = await figures();

    // Without confirm: 400 naming the field; nothing changed.
    const refused = await expectError(
      await t.as(A.admin).post(`/contacts/${contactId}/erase`, {}),
      400,
      'ERR_VALIDATION',
    );
    expect(JSON.stringify(refused)).toContain('confirm');
    const erased = await t.as(A.admin).post(`/contacts/${contactId}/erase`, { confirm: true });
    expect(erased.status, await erased.clone().text()).toBe(200);
    expect(await erased.json()).toMatchObject({ id: contactId, tickets: 1 });

    const after = await dumpAll();
    expect(grep(after, number)).toEqual([]);
    expect(grep(after, name)).toEqual([]);
    expect(grep(after, secret)).toEqual([]);
    expect(grep(after, email)).toEqual([]);
    for (const p of mediaPaths) expect(existsSync(media.fullPath(p)), p).toBe(false);
    // The aggregates stay: the same figures for the period, the ticket and its messages counted.
    expect(await figures()).toEqual(dashBefore);
    // Recorded: who, when, which contact; not the data.
    const log = await (await t.as(A.admin).get('/audit-log?action=contact.erased')).json();
    expect(log.entries[0]).toMatchObject({
      actorId: A.admin.user.id,
      targetType: 'contact',
      targetId: String(contactId),
    });
    const exported = await (await t.as(A.admin).get('/audit-log?action=export.contact_data')).json();
    expect(exported.entries[0]).toMatchObject({ targetId: String(contactId) });
    // Erasing again finds nothing more to remove, and B's data was never touched.
    expect((await t.as(A.admin).post(`/contacts/${contactId}/erase`, { confirm: true })).status).toBe(200);
  });
});

describe('consent and opt-out', () => {
  test('consent asked on a new conversation, answers kept; an opted-out contact is skipped by a campaign', async () => {
    const A = await company('Consent');
    const s = await t.as(A.admin).put('/settings/privacy', {
      consentRequired: true,
      consentText: 'Aceita? Responda SIM ou NÃO',
      optOutWord: 'PARAR',
    });
    expect(s.status, await s.clone().text()).toBe(200);
    expect(await (await t.as(A.admin).get('/settings/privacy')).json()).toMatchObject({
      consentRequired: true,
      optOutWord: 'PARAR',
    });
    await expectError(
      await t.as(A.admin).put('/settings/privacy', { optOutWord: 'duas palavras' }),
      400,
      'ERR_VALIDATION',
    );
    const yes = freshNumber();
    const no = freshNumber();
    const out = freshNumber();
    const plain = freshNumber();
    const m1 = await customerWrites(A, yes, { name: 'Sim', body: 'oi' });
    const consentOf = async (id: number) => await (await t.as(A.admin).get(`/contacts/${id}/consent`)).json();
    await waitFor(async () => (await consentOf(m1.contact_id)).status === 'asked');
    // The question went to the customer's phone.
    await waitFor(async () => {
      const conv = await (await t.as(A.admin).get(`/simulator/${A.whatsappId}/conversations/${yes}`)).json();
      return conv.some((m: { fromMe: boolean; body: string }) => m.fromMe && m.body.includes('Aceita?'));
    });
    await customerWrites(A, yes, { body: 'Sim!' });
    await waitFor(async () => (await consentOf(m1.contact_id)).status === 'granted');
    expect((await consentOf(m1.contact_id)).at).toBeTruthy();
    const m2 = await customerWrites(A, no, { name: 'Nao', body: 'olá' });
    await waitFor(async () => (await consentOf(m2.contact_id)).status === 'asked');
    await customerWrites(A, no, { body: 'não' });
    await waitFor(async () => (await consentOf(m2.contact_id)).status === 'refused');
    const m3 = await customerWrites(A, out, { name: 'Out', body: 'oi' });
    await customerWrites(A, out, { body: ' parar ' });
    await waitFor(async () => (await consentOf(m3.contact_id)).optedOut);
    const m4 = await customerWrites(A, plain, { name: 'Plain', body: 'oi' });
    const opted = await (await t.as(A.admin).get('/privacy/opted-out')).json();
    expect(opted.ids.sort()).toEqual([m2.contact_id, m3.contact_id].sort());

    // A campaign to all four numbers: the refused and the opted-out ones get nothing.
    const list = await t.as(A.admin).post('/contact-lists', { name: unique('L') });
    const listId = (await list.json()).id as number;
    for (const n of [yes, no, out, plain])
      expect(
        (
          await t
            .as(A.admin)
            .post('/contact-list-items', { contactListId: listId, name: 'Pessoa X', number: n })
        ).status,
      ).toBe(201);
    await t
      .as(A.admin)
      .post('/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: 0 } });
    const camp = await t.as(A.admin).post('/campaigns', {
      name: unique('C'),
      message1: 'Promo exclusiva',
      whatsappId: A.whatsappId,
      contactListId: listId,
      scheduledAt: new Date().toISOString(),
    });
    const campaignId = (await camp.json()).id as number;
    await waitFor(async () => {
      await jobs.runDue();
      return (await (await t.as(A.admin).get(`/campaigns/${campaignId}`)).json()).status === 'FINALIZADA';
    });
    const got = await executeRows<{ number: string }>(
      db,
      sql`select number from simulator_messages where whatsapp_id = ${A.whatsappId} and from_me and body = 'Promo exclusiva'`,
    );
    expect(got.map((g) => g.number).sort()).toEqual([yes, plain].sort());
    expect(m4.contact_id).toBeTruthy();
  });
});

describe('retention', () => {
  test('the run deletes exactly what the preview said, in batches, and keeps the dashboard figures', async () => {
    const A = await company('Retain');
    const B = await company('RetainB');
    const numbers = Array.from({ length: 4 }, freshNumber);
    const ticketIds: number[] = [];
    for (const n of numbers) {
      const m = await customerWrites(A, n, {
        name: 'R',
        body: 'antigo',
        media: { mimetype: 'image/png', filename: 'a.png', data: PNG.toString('base64') },
      });
      ticketIds.push(m.ticket_id);
    }
    const bMsg = await customerWrites(B, freshNumber(), {
      body: 'de B',
      media: { mimetype: 'image/png', filename: 'b.png', data: PNG.toString('base64') },
    });
    // Two tickets closed 7 months ago, one closed today, one open; media of the first three 40 days old.
    for (const id of ticketIds.slice(0, 3))
      expect((await t.as(A.admin).put(`/tickets/${id}`, { status: 'closed' })).status).toBe(200);
    await db.execute(
      sql`update tickets set closed_at = now() - interval '7 months' where id in (${ticketIds[0]!}, ${ticketIds[1]!})`,
    );
    await db.execute(
      sql`update messages set created_at = now() - interval '40 days'
          where ticket_id in (${ticketIds[0]!}, ${ticketIds[1]!}, ${ticketIds[2]!}) and media_url is not null`,
    );
    await db.execute(sql`update messages set created_at = now() - interval '40 days' where id = (
      select id from messages where ticket_id = ${bMsg.ticket_id} and media_url is not null limit 1)`);
    // 1,050 more old media on the open ticket: the run takes them in batches of RETENTION_BATCH.
    await db.execute(sql`insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body,
        media_type, media_url, media_name, created_at)
      select company_id, id, contact_id, whatsapp_id, 'bulk-' || g, 'velho ' || g, 'image',
        company_id || '/messages/bulk/' || g || '.png', g || '.png', now() - interval '90 days'
      from tickets, generate_series(1, 1050) g where id = ${ticketIds[3]!}`);
    const dash = async () => (await t.as(A.admin).get('/dashboard?days=365')).json();
    const dashBefore = await dash();

    expect(
      (await t.as(A.admin).put('/settings/privacy', { mediaRetentionDays: 30, ticketRetentionMonths: 6 }))
        .status,
    ).toBe(200);
    const preview = await (await t.as(A.admin).get('/privacy/retention/preview')).json();
    expect(preview).toMatchObject({ media: 3 + 1050, tickets: 2 });
    expect(1050).toBeGreaterThan(2 * RETENTION_BATCH);
    const expectedMedia = await executeRows<{ id: number; p: string }>(
      db,
      sql`select id, media_url as p from messages where company_id = ${A.id} and media_url is not null
          and created_at < now() - interval '30 days'`,
    );
    const ticketMessages = await executeRows<{ id: number }>(
      db,
      sql`select id from messages where ticket_id in (${ticketIds[0]!}, ${ticketIds[1]!})`,
    );
    expect(preview.ticketMessages).toBe(ticketMessages.length);
    const untouched = await executeRows<{ id: number; body: string; media_url: string | null }>(
      db,
      sql`select id, body, media_url from messages where ticket_id in (${ticketIds[2]!}, ${ticketIds[3]!}, ${bMsg.ticket_id})
          order by id`,
    );

    // The durable job runs every company's policy (B has none: its old media stays).
    await db.execute(sql`update jobs set run_at = now() where kind = 'privacy.retention'`);
    await jobs.runDue();
    for (const m of expectedMedia) expect(existsSync(media.fullPath(m.p))).toBe(false);
    const left = await executeRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from messages where id in (${sql.join(
        expectedMedia.map((m) => sql`${m.id}`),
        sql`, `,
      )}) and media_url is not null`,
    );
    expect(left[0]!.n).toBe(0);
    const anon = await executeRows<{ id: number }>(
      db,
      sql`select id from tickets where company_id = ${A.id} and anonymized_at is not null order by id`,
    );
    expect(anon.map((a) => a.id)).toEqual([ticketIds[0], ticketIds[1]].sort((a, b) => a! - b!));
    const bodies = await executeRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from messages where ticket_id in (${ticketIds[0]!}, ${ticketIds[1]!}) and body <> ''`,
    );
    expect(bodies[0]!.n).toBe(0);
    // Everything else as it was: the ticket closed today keeps its texts (only its old media went), the open
    // one and B's everything.
    const now = await executeRows<{ id: number; body: string; media_url: string | null }>(
      db,
      sql`select id, body, media_url from messages where ticket_id in (${ticketIds[2]!}, ${ticketIds[3]!}, ${bMsg.ticket_id})
          order by id`,
    );
    const expectedIds = new Set(expectedMedia.map((m) => Number(m.id)));
    expect(now).toEqual(
      untouched.map((u) => (expectedIds.has(Number(u.id)) ? { ...u, media_url: null } : u)),
    );
    expect(await dash()).toEqual(dashBefore);
    // Nothing left for the next run.
    expect(await (await t.as(A.admin).get('/privacy/retention/preview')).json()).toMatchObject({
      media: 0,
      tickets: 0,
    });
    expect(await (await t.as(A.admin).post('/privacy/retention/run')).json()).toEqual({
      media: 0,
      tickets: 0,
      ticketMessages: 0,
    });
    // B cannot read A's policy or preview through its own (its own answers are its own).
    expect(await (await t.as(B.admin).get('/settings/privacy')).json()).toMatchObject({
      mediaRetentionDays: null,
    });
  });
});

describe('the audit log stays append-only', () => {
  test('an erasure may replace the details of an entry, nothing else, and only when it says so', async () => {
    const A = await t.company('Redact');
    const [entry] = await executeRows<{ id: number }>(
      db,
      sql`insert into audit_log (company_id, actor_id, action, target_type, target_id, before, after)
          values (${A.id}, ${A.admin.user.id}, 'contact-list-item.created', 'contact-list-item', '1', null,
            '{"number": "5511900000000"}'::jsonb) returning id`,
    );
    const redacted = sql`update audit_log set before = '{"redacted":"erased"}'::jsonb,
      after = '{"redacted":"erased"}'::jsonb where id = ${entry!.id}`;
    await expect(db.execute(redacted)).rejects.toThrow();
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('recado.audit_redact', 'on', true)`);
        await tx.execute(sql`update audit_log set action = 'x', before = '{"redacted":"erased"}'::jsonb,
          after = '{"redacted":"erased"}'::jsonb where id = ${entry!.id}`);
      }),
    ).rejects.toThrow();
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('recado.audit_redact', 'on', true)`);
        await tx.execute(sql`update audit_log set after = '{"other":1}'::jsonb where id = ${entry!.id}`);
      }),
    ).rejects.toThrow();
    await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('recado.audit_redact', 'on', true)`);
      await tx.execute(redacted);
    });
    const [row] = await executeRows<{ action: string; after: unknown }>(
      db,
      sql`select action, after from audit_log where id = ${entry!.id}`,
    );
    expect(row).toEqual({ action: 'contact-list-item.created', after: { redacted: 'erased' } });
    // Deleting stays refused.
    await expect(db.execute(sql`delete from audit_log where id = ${entry!.id}`)).rejects.toThrow();
  });
});
