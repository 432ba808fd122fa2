import { beforeEach, describe, expect, test } from 'vitest';
import { and, asc, eq, sql } from 'drizzle-orm';
import { campaigns, campaignShippings, contactListItems, contactLists } from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, unique, waitFor } from '../../../test/helpers.js';
import { cloudTestApp } from '../../../test/cloud-api-fixtures.js';
import { RATE_LIMIT } from './campaign-dispatch.js';

/**
 * Campaigns over the WhatsApp Cloud API against the local Graph double: an approved template with its values
 * mapped to the list's fields, Meta's per-message errors on the shipping rows and in the report, rate limits
 * that slow the campaign down (each recipient still served once), and a second company kept out.
 */
const T0 = new Date('2026-03-02T15:00:00Z');
const clock = manualClock(T0);
const { t, db, graph, signedPost, webhookStatus, cloudConnection } = await cloudTestApp(
  'campaign-app-secret',
  {
    clock,
    jobs: { autoStart: false },
  },
);
const jobs = t.app.services.jobs;

const TEMPLATES = [
  {
    id: '2001',
    name: 'oferta',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Oferta para {{1}}' },
      { type: 'BODY', text: 'Olá {{1}}, o seu número {{2}} e e-mail {{3}}. Cupom {{4}}.' },
      { type: 'FOOTER', text: 'Loja Recado' },
    ],
  },
  {
    id: '2002',
    name: 'vitrine',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'BODY', text: 'Novidades para {{1}}' },
    ],
  },
  {
    id: '2003',
    name: 'recusado',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'REJECTED',
    components: [{ type: 'BODY', text: 'Nada {{1}}' }],
  },
];

/** Every body value from the list's fields or fixed text: what the "oferta" template needs. */
const OFERTA = {
  name: 'oferta',
  language: 'pt_BR',
  headerVariables: [{ source: 'firstName' }],
  variables: [
    { source: 'name' },
    { source: 'number' },
    { source: 'email', text: 'sem e-mail' },
    { source: 'text', text: 'RECADO10' },
  ],
};

beforeEach(() => {
  graph.templates = structuredClone(TEMPLATES);
  graph.templatePageSize = 2;
  graph.sendErrors.length = 0;
  graph.recipientErrors.clear();
  graph.onSend = undefined;
});

let seq = 0;
const freshNumber = () =>
  `55219${String(Date.now() % 1e4).padStart(4, '0')}${String(seq++).padStart(4, '0')}`;

/** A company with a Cloud API connection (templates synced), a contact list of `n` people, no intervals. */
async function setup(name: string, n: number) {
  const c = await cloudConnection(unique(name), 'Cloud', { businessAccountId: graph.wabaId });
  const synced = await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`);
  expect(synced.status, await synced.clone().text()).toBe(200);
  const [list] = await db
    .insert(contactLists)
    .values({ companyId: c.id, name: unique('Lista') })
    .returning();
  const numbers = Array.from({ length: n }, freshNumber);
  await db.insert(contactListItems).values(
    numbers.map((number, i) => ({
      companyId: c.id,
      contactListId: list!.id,
      name: `Pessoa${i} Silva`,
      number,
      email: i === 0 ? '' : `p${i}@x.test`,
    })),
  );
  const s = await t
    .as(c.admin)
    .post('/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: 0 } });
  expect(s.status).toBeLessThan(300);
  return { ...c, listId: list!.id, numbers };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const campaignBody = (s: Setup, body: Record<string, unknown> = {}) => ({
  name: unique('Cloud'),
  whatsappId: s.whatsappId,
  contactListId: s.listId,
  scheduledAt: clock.now().toISOString(),
  template: OFERTA,
  ...body,
});

const statusOf = async (s: Setup, id: number) =>
  (await (await t.as(s.admin).get(`/campaigns/${id}`)).json()) as {
    status: string;
    counts: { valid: number; sent: number; failed: number; pending: number };
  };

const nextSendAt = async (campaignId: number) => {
  const [row] = await executeRows<{ run_at: string; status: string }>(
    db,
    sql`select run_at, status from jobs where kind = 'campaign.send' and key = ${`campaign:${campaignId}`}`,
  );
  return row && row.status === 'queued' ? new Date(row.run_at) : null;
};

/** Runs due jobs, moving the clock to each next send, until the campaign ends; answers the clock's jumps. */
async function runToEnd(s: Setup, id: number) {
  const jumps: number[] = [];
  for (let i = 0; i < 5000; i++) {
    await jobs.runDue();
    const [c] = await db.select({ status: campaigns.status }).from(campaigns).where(eq(campaigns.id, id));
    if (c!.status !== 'EM_ANDAMENTO' && c!.status !== 'PROGRAMADA')
      return { status: await statusOf(s, id), jumps };
    const at = await nextSendAt(id);
    if (at && at > clock.now()) {
      jumps.push(at.getTime() - clock.now().getTime());
      clock.set(at);
    }
  }
  throw new Error('campaign did not end');
}

const shippingsOf = (campaignId: number) =>
  db
    .select()
    .from(campaignShippings)
    .where(eq(campaignShippings.campaignId, campaignId))
    .orderBy(asc(campaignShippings.id));

describe('saving a Cloud API campaign', () => {
  test('needs an approved template of its connection with every value mapped', async () => {
    const s = await setup('CloudSave', 1);
    const as = t.as(s.admin);
    await expectError(
      await as.post('/campaigns', campaignBody(s, { template: null, message1: 'Olá {nome}' })),
      400,
      'ERR_CAMPAIGN_TEMPLATE_REQUIRED',
    );
    await expectError(
      await as.post('/campaigns', campaignBody(s, { template: { ...OFERTA, name: 'nao_existe' } })),
      404,
      'ERR_NO_TEMPLATE_FOUND',
    );
    await expectError(
      await as.post(
        '/campaigns',
        campaignBody(s, {
          template: { name: 'recusado', language: 'pt_BR', variables: [{ source: 'name' }] },
        }),
      ),
      400,
      'ERR_TEMPLATE_NOT_APPROVED',
    );
    const unmapped = await expectError(
      await as.post(
        '/campaigns',
        campaignBody(s, { template: { ...OFERTA, variables: OFERTA.variables.slice(0, 2) } }),
      ),
      400,
      'ERR_CAMPAIGN_TEMPLATE_UNMAPPED',
    );
    expect(unmapped.message).toMatch(/body \{\{3\}\}, body \{\{4\}\}/);
    // A fixed text must say something.
    await expectError(
      await as.post(
        '/campaigns',
        campaignBody(s, {
          template: {
            ...OFERTA,
            variables: [...OFERTA.variables.slice(0, 3), { source: 'text', text: ' ' }],
          },
        }),
      ),
      400,
      'ERR_CAMPAIGN_TEMPLATE_UNMAPPED',
    );
    // A media header needs its link.
    await expectError(
      await as.post(
        '/campaigns',
        campaignBody(s, {
          template: { name: 'vitrine', language: 'pt_BR', variables: [{ source: 'name' }] },
        }),
      ),
      400,
      'ERR_CAMPAIGN_TEMPLATE_UNMAPPED',
    );
    // A template over a connection that is not the Cloud API.
    const sim = await as.post('/whatsapp', { name: unique('Sim'), channel: 'simulator' });
    await expectError(
      await as.post('/campaigns', campaignBody(s, { whatsappId: (await sim.json()).id })),
      400,
      'ERR_CAMPAIGN_TEMPLATE_CHANNEL',
    );

    const ok = await as.post('/campaigns', campaignBody(s, { scheduledAt: null }));
    expect(ok.status, await ok.clone().text()).toBe(201);
    const created = await ok.json();
    expect(created.template).toMatchObject({ name: 'oferta', language: 'pt_BR' });
    expect(created.template.variables[2]).toEqual({ source: 'email', text: 'sem e-mail' });
    // No message variants are needed; a PUT that breaks the mapping is refused the same way.
    await expectError(
      await as.put(`/campaigns/${created.id}`, { template: { ...OFERTA, headerVariables: [] } }),
      400,
      'ERR_CAMPAIGN_TEMPLATE_UNMAPPED',
    );
  });
});

describe('sending a Cloud API campaign', () => {
  test("each recipient gets the template with values from the list's fields", async () => {
    const s = await setup('CloudFill', 3);
    const res = await t.as(s.admin).post('/campaigns', campaignBody(s));
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await res.json();
    const before = graph.accepted.length;
    const end = await runToEnd(s, id);
    expect(end.status.status).toBe('FINALIZADA');
    expect(end.status.counts).toMatchObject({ valid: 3, sent: 3, failed: 0, pending: 0 });

    const sends = graph.accepted.slice(before);
    expect(sends.map((x) => x.to).sort()).toEqual([...s.numbers].sort());
    const first = sends.find((x) => x.to === s.numbers[0])!;
    expect(first.type).toBe('template');
    expect(first.body.template).toEqual({
      name: 'oferta',
      language: { code: 'pt_BR' },
      components: [
        { type: 'header', parameters: [{ type: 'text', text: 'Pessoa0' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Pessoa0 Silva' },
            { type: 'text', text: s.numbers[0] },
            // This recipient has no e-mail: the mapping's fallback.
            { type: 'text', text: 'sem e-mail' },
            { type: 'text', text: 'RECADO10' },
          ],
        },
      ],
    });
    const second = sends.find((x) => x.to === s.numbers[1])!;
    const params = (second.body.template as { components: { parameters: { text: string }[] }[] })
      .components[1]!.parameters;
    expect(params.map((p) => p.text)).toEqual(['Pessoa1 Silva', s.numbers[1], 'p1@x.test', 'RECADO10']);
    // The shipping row keeps the template as WhatsApp shows it, and the wamid Meta gave.
    const rows = await shippingsOf(id);
    expect(rows[1]!.message).toBe(
      `*Oferta para Pessoa1*\nOlá Pessoa1 Silva, o seu número ${s.numbers[1]} e e-mail p1@x.test. Cupom RECADO10.\n_Loja Recado_`,
    );
    expect(rows[1]!.providerId).toBe(second.id);
  });

  test('500 recipients with rate limits mid-way: it slows down and serves each one exactly once', async () => {
    const s = await setup('CloudRate', 500);
    const res = await t.as(s.admin).post('/campaigns', campaignBody(s));
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await res.json();
    const before = graph.accepted.length;
    const answered: number[] = [];
    let limitedTo = '';
    // Meta's throughput limit after the 200th message of this campaign, then (HTTP 429) on its first retry.
    graph.onSend = (to, accepted) => {
      if (accepted - before === 200 && answered.length === 0) {
        answered.push(130429);
        limitedTo = to;
        return { code: 130429, message: '(#130429) Rate limit hit' };
      }
      if (to === limitedTo && answered.length === 1) {
        answered.push(131056);
        return { code: 131056, message: '(#131056) Pair rate limit hit', status: 429 };
      }
      return undefined;
    };

    const { status, jumps } = await runToEnd(s, id);
    expect(answered).toEqual([130429, 131056]);
    expect(status.status).toBe('FINALIZADA');
    expect(status.counts).toMatchObject({ valid: 500, sent: 500, failed: 0, pending: 0 });

    // Graph side: every recipient received exactly one accepted send.
    const perRecipient = new Map<string, number>();
    for (const a of graph.accepted.slice(before)) perRecipient.set(a.to, (perRecipient.get(a.to) ?? 0) + 1);
    expect(perRecipient.size).toBe(500);
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    expect([...perRecipient.keys()].sort()).toEqual([...s.numbers].sort());

    // Slowed down: the back-off doubled (30 s, then 60 s), then sends went one at a time, further apart.
    expect(jumps.slice(0, 2)).toEqual([RATE_LIMIT.BACKOFF_MS, RATE_LIMIT.BACKOFF_MS * 2]);
    const slowed = jumps.slice(2);
    expect(slowed).toHaveLength(RATE_LIMIT.SLOW_SENDS);
    expect(slowed.every((ms) => ms === RATE_LIMIT.SLOW_GAP_MS * 2)).toBe(true);

    // The limited recipient kept Meta's last answer, and was sent afterwards.
    const limited = (await shippingsOf(id)).filter((r) => r.rateLimited > 0);
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ status: 'sent', rateLimited: 2, errorCode: 131056 });
  }, 300_000);

  test("Meta's per-message errors land on the shipping rows and in the report", async () => {
    const s = await setup('CloudErrors', 3);
    graph.recipientErrors.set(s.numbers[1]!, {
      code: 131026,
      message: '(#131026) Message undeliverable',
      details: 'Unable to deliver message.',
    });
    const res = await t.as(s.admin).post('/campaigns', campaignBody(s));
    const { id } = await res.json();
    const before = graph.accepted.length;
    const end = await runToEnd(s, id);
    expect(end.status.status).toBe('FINALIZADA');
    expect(end.status.counts).toMatchObject({ valid: 3, sent: 2, failed: 1 });

    // A failed status webhook for one that Meta had accepted: re-engagement needed.
    const third = graph.accepted.slice(before).find((a) => a.to === s.numbers[2])!;
    const hook = await signedPost(
      s.whatsappId,
      webhookStatus(third.id, 'failed', s.numbers[2]!, [
        {
          code: 131047,
          title: 'Re-engagement message',
          message: 'Re-engagement message',
          error_data: { details: 'More than 24 hours have passed since the recipient last replied.' },
        },
      ]),
    );
    expect(hook.status).toBe(200);
    await waitFor(async () => (await statusOf(s, id)).counts.failed === 2);

    const report = await (await t.as(s.admin).get(`/campaigns/${id}/shippings?status=failed`)).json();
    expect(report.hasMore).toBe(false);
    expect(report.shippings).toEqual([
      expect.objectContaining({
        number: s.numbers[1],
        status: 'failed',
        errorCode: 131026,
        error: expect.stringMatching(/131026.*Message undeliverable.*Unable to deliver message/),
      }),
      expect.objectContaining({
        number: s.numbers[2],
        status: 'failed',
        errorCode: 131047,
        error:
          '(#131047) Re-engagement message — More than 24 hours have passed since the recipient last replied.',
      }),
    ]);
    const all = await (await t.as(s.admin).get(`/campaigns/${id}/shippings`)).json();
    expect(all.shippings.map((x: { status: string }) => x.status)).toEqual(['sent', 'failed', 'failed']);
  });

  test("a second company can't use the first one's template or read its campaign report", async () => {
    const a = await setup('CloudOwner', 2);
    graph.recipientErrors.set(a.numbers[0]!, { code: 131026, message: '(#131026) Message undeliverable' });
    const { id } = await (await t.as(a.admin).post('/campaigns', campaignBody(a))).json();
    await runToEnd(a, id);

    // B has its own Cloud API connection but never synced: A's templates are not B's.
    const b = await cloudConnection(unique('CloudIntruder'), 'Cloud', { businessAccountId: graph.wabaId });
    const [list] = await db
      .insert(contactLists)
      .values({ companyId: b.id, name: unique('L') })
      .returning();
    const bs = { ...b, listId: list!.id, numbers: [] };
    await expectError(await t.as(b.admin).post('/campaigns', campaignBody(bs)), 404, 'ERR_NO_TEMPLATE_FOUND');
    await expectError(
      await t.as(b.admin).post('/campaigns', campaignBody(bs, { whatsappId: a.whatsappId })),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    await expectError(await t.as(b.admin).get(`/campaigns/${id}`), 404, 'ERR_NO_CAMPAIGN_FOUND');
    await expectError(
      await t.as(b.admin).get(`/campaigns/${id}/shippings?status=failed`),
      404,
      'ERR_NO_CAMPAIGN_FOUND',
    );
    // A still reads its own report.
    const own = await (await t.as(a.admin).get(`/campaigns/${id}/shippings?status=failed`)).json();
    expect(own.shippings).toEqual([expect.objectContaining({ number: a.numbers[0], errorCode: 131026 })]);
    expect(
      await db
        .select({ id: campaignShippings.id })
        .from(campaignShippings)
        .where(and(eq(campaignShippings.companyId, b.id))),
    ).toEqual([]);
  });
});
