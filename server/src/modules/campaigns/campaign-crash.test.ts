import { expect, test } from 'vitest';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import {
  campaigns,
  campaignShippings,
  contactListItems,
  contactLists,
  simulatorMessages,
} from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { manualClock } from '../../lib/clock.js';
import { buildApp, type App } from '../../app.js';
import { testApp, unique, waitFor } from '../../../test/helpers.js';
import { shippingProviderId } from './campaign-message.js';

const N = 1000;
const clock = manualClock(new Date('2026-03-02T15:00:00Z'));
// The test's own app only serves the API: its sessions and jobs never run (processes A and B do the work).
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;

/** Another server process on the same database. */
const boot = (processId: string): Promise<App> =>
  buildApp({
    config: t.config,
    database: t.database,
    logger: false,
    clock,
    jobs: { autoStart: false },
    sessions: { processId, leaseMs: 1000 },
  });

const sentCount = async (campaignId: number) =>
  (
    await executeRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from campaign_shippings where campaign_id = ${campaignId} and sent_at is not null`,
    )
  )[0]!.n;

async function step(app: App, campaignId: number) {
  await app.services.jobs.runDue();
  const [job] = await executeRows<{ run_at: string; status: string }>(
    db,
    sql`select run_at, status from jobs where kind = 'campaign.send' and key = ${`campaign:${campaignId}`}`,
  );
  if (job?.status === 'queued' && new Date(job.run_at) > clock.now()) clock.set(new Date(job.run_at));
}

test(`a process killed in the middle of a ${N}-contact campaign: after a restart every contact got exactly one message`, async () => {
  const company = await t.company('Crash');
  const api = t.as(company.admin);
  const w = await (await api.post('/whatsapp', { name: unique('Sim'), channel: 'simulator' })).json();
  // Let the test app's own session manager give the connection up: process A will own it.
  await t.app.sessions.stop();
  expect(
    (await api.post('/campaign-settings', { settings: { messageInterval: 5, longerIntervalAfter: 0 } }))
      .status,
  ).toBeLessThan(300);
  const [list] = await db.insert(contactLists).values({ companyId: company.id, name: 'Mil' }).returning();
  const numbers = Array.from({ length: N }, (_, i) => `5531977${String(i).padStart(6, '0')}`);
  await db.insert(contactListItems).values(
    numbers.map((number, i) => ({
      companyId: company.id,
      contactListId: list!.id,
      name: `Cliente ${i}`,
      number,
    })),
  );
  const res = await api.post('/campaigns', {
    name: 'Mil contatos',
    message1: 'Oferta para {nome}',
    message2: 'Promo, {primeiro-nome}!',
    whatsappId: w.id,
    contactListId: list!.id,
    scheduledAt: clock.now().toISOString(),
  });
  expect(res.status).toBe(201);
  const campaignId = (await res.json()).id as number;

  // Process A runs the campaign for a while.
  const a = await boot('proc-A');
  await waitFor(async () => {
    await a.sessions.tick();
    return a.sessions.get(w.id);
  });
  while ((await sentCount(campaignId)) < 100) await step(a, campaignId);

  // ...and is killed mid-send. Two rows are left as a crash leaves them:
  // (1) the channel took the message but the "sent" mark never happened;
  const [lastSent] = await db
    .select()
    .from(campaignShippings)
    .where(and(eq(campaignShippings.campaignId, campaignId), eq(campaignShippings.status, 'sent')))
    .orderBy(desc(campaignShippings.id))
    .limit(1);
  await db
    .update(campaignShippings)
    .set({ status: 'claimed', sentAt: null })
    .where(eq(campaignShippings.id, lastSent!.id));
  // (2) a row was claimed (text and provider id fixed) but never reached the channel.
  const [next] = await db
    .select()
    .from(campaignShippings)
    .where(and(eq(campaignShippings.campaignId, campaignId), eq(campaignShippings.status, 'pending')))
    .orderBy(asc(campaignShippings.id))
    .limit(1);
  await db
    .update(campaignShippings)
    .set({
      status: 'claimed',
      claimedAt: clock.now(),
      message: `Oferta para ${next!.name}`,
      providerId: shippingProviderId(campaignId, next!.id, 'm'),
    })
    .where(eq(campaignShippings.id, next!.id));
  // Its send job stays "running" under A's lease, and A's session lease is simply not renewed.
  await executeRows(
    db,
    sql`update jobs set status = 'running', locked_by = 'proc-A', attempts = attempts + 1,
        locked_until = ${clock.now().toISOString()}::timestamptz + interval '60 seconds'
      where kind = 'campaign.send' and key = ${`campaign:${campaignId}`}`,
  );
  await a.sessions.crash();
  await a.close();
  const before = await sentCount(campaignId);
  expect(before).toBeGreaterThanOrEqual(99);
  expect(before).toBeLessThan(N);

  // The rest goes without waits (the settings are read at each send run), so the test stays short.
  expect((await api.post('/campaign-settings', { settings: { messageInterval: 0 } })).status).toBeLessThan(
    300,
  );

  // Process B starts on the same database: it takes the connection over once A's lease has expired...
  const b = await boot('proc-B');
  try {
    await waitFor(async () => {
      await b.sessions.tick();
      return b.sessions.get(w.id);
    });
    // ...and the send job once A's job lease has run out.
    // (B's own start-up jobs, e.g. routing's and presence's, may run; the campaign's send may not.)
    await b.services.jobs.runDue();
    expect(await sentCount(campaignId)).toBe(before);
    clock.advance(61_000);
    for (let i = 0; i < 5 * N; i++) {
      const [c] = await db
        .select({ status: campaigns.status })
        .from(campaigns)
        .where(eq(campaigns.id, campaignId));
      if (c!.status === 'FINALIZADA') break;
      await step(b, campaignId);
    }
    const [c] = await db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    expect(c!.status).toBe('FINALIZADA');
    expect(c!.completedAt).not.toBeNull();

    // Every contact's phone shows exactly one message from the company.
    const perNumber = await executeRows<{ number: string; n: number }>(
      db,
      sql`select number, count(*)::int as n from simulator_messages
        where whatsapp_id = ${w.id} and from_me group by number`,
    );
    expect(perNumber).toHaveLength(N);
    expect(perNumber.filter((r) => r.n !== 1)).toEqual([]);
    expect(new Set(perNumber.map((r) => r.number))).toEqual(new Set(numbers));
    const [interruptedPhone] = await db
      .select()
      .from(simulatorMessages)
      .where(and(eq(simulatorMessages.whatsappId, w.id), eq(simulatorMessages.number, next!.number)));
    expect(interruptedPhone!.body).toBe(`Oferta para ${next!.name}`);
    // And one shipping row per contact, each sent.
    const rows = await executeRows<{ n: number; sent: number }>(
      db,
      sql`select count(*)::int as n, count(sent_at)::int as sent from campaign_shippings where campaign_id = ${campaignId}`,
    );
    expect(rows[0]).toEqual({ n: N, sent: N });
  } finally {
    await b.close();
  }
}, 300_000);
