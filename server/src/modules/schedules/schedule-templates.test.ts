import { beforeEach, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { contacts, schedules } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, unique, waitFor } from '../../../test/helpers.js';
import { cloudTestApp } from '../../../test/cloud-api-fixtures.js';

/**
 * Schedules on a WhatsApp Cloud API connection (docs/cloud-api.md) against the local Graph double: a
 * schedule may carry an approved template, checked when saved and sent as a template when due, so it is
 * delivered outside the customer's 24-hour window; a text schedule there still fails with
 * ERR_OUTSIDE_WINDOW. A second company cannot use the first's templates.
 */
const HOUR = 3_600_000;
const clock = manualClock(new Date());
const { t, db, graph, signedPost, webhookMessage, cloudConnection } = await cloudTestApp(
  'schedule-app-secret',
  {
    clock,
    jobs: { autoStart: false },
  },
);
const jobs = t.app.services.jobs;

const TEMPLATES = [
  {
    id: '3001',
    name: 'lembrete',
    language: 'pt_BR',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Consulta {{1}}' },
      { type: 'BODY', text: 'Olá {{1}}, sua consulta é {{2}}.' },
    ],
  },
  {
    id: '3002',
    name: 'pausado',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'PAUSED',
    components: [{ type: 'BODY', text: 'Oferta {{1}}' }],
  },
];
const LEMBRETE = {
  name: 'lembrete',
  language: 'pt_BR',
  variables: ['Maria', 'amanhã às 10h'],
  headerVariables: ['#7'],
};

beforeEach(() => {
  graph.templates = structuredClone(TEMPLATES);
  graph.templatePageSize = 10;
  graph.sendErrors.length = 0;
});

let seq = 0;
/** A company with a Cloud API connection (templates synced) and a customer who wrote just now. */
async function setup(name: string) {
  const c = await cloudConnection(unique(name), 'Cloud', { businessAccountId: graph.wabaId });
  const synced = await t.as(c.admin).post(`/whatsapp/${c.whatsappId}/templates/sync`);
  expect(synced.status, await synced.clone().text()).toBe(200);
  const number = `55318${String(Date.now() % 1e5).padStart(5, '0')}${String(seq++).padStart(3, '0')}`;
  const res = await signedPost(
    c.whatsappId,
    webhookMessage(number, `wamid.SCH${number}`, 'Maria', { type: 'text', text: { body: 'Oi' } }),
  );
  expect(res.status).toBe(200);
  const contact = await waitFor(
    async () =>
      (
        await db
          .select({ id: contacts.id })
          .from(contacts)
          .where(and(eq(contacts.companyId, c.id), eq(contacts.number, number)))
      )[0],
  );
  return { ...c, number, contactId: contact.id };
}

const sentTo = (number: string) =>
  graph.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages') && r.json?.to === number);

const post = (s: Awaited<ReturnType<typeof setup>>, body: Record<string, unknown>) =>
  t.as(s.admin).post('/schedules', {
    contactId: s.contactId,
    sendAt: new Date(clock.now().getTime() + 25 * HOUR).toISOString(),
    ...body,
  });

const statusOf = async (s: Awaited<ReturnType<typeof setup>>, id: number) =>
  (await (await t.as(s.admin).get(`/schedules/${id}`)).json()) as {
    status: string;
    error: string | null;
    body: string;
  };

describe('schedules with a Cloud API template', () => {
  test('due 25 h after the customer wrote: the template goes out and ends ENVIADA; text ends ERRO', async () => {
    const s = await setup('SchTpl');
    const conn = await (await t.as(s.admin).get(`/schedules/connection?contactId=${s.contactId}`)).json();
    expect(conn.connection).toMatchObject({ id: s.whatsappId, channel: 'cloud_api' });

    const res = await post(s, { template: LEMBRETE });
    expect(res.status, await res.clone().text()).toBe(201);
    const tpl = await res.json();
    expect(tpl).toMatchObject({
      status: 'PENDENTE',
      whatsappId: s.whatsappId,
      template: { name: 'lembrete', language: 'pt_BR', variables: ['Maria', 'amanhã às 10h'] },
      body: '*Consulta #7*\nOlá Maria, sua consulta é amanhã às 10h.',
    });
    const textRes = await post(s, { body: 'Lembrete da sua consulta' });
    expect(textRes.status, await textRes.clone().text()).toBe(201);
    const text = await textRes.json();

    clock.advance(25 * HOUR + 60_000);
    await jobs.runDue();
    await waitFor(async () => (await statusOf(s, tpl.id)).status === 'ENVIADA');
    const failed = await waitFor(async () => {
      const x = await statusOf(s, text.id);
      return x.status === 'ERRO' ? x : undefined;
    });
    expect(failed.error).toMatch(/^ERR_OUTSIDE_WINDOW/);

    const sent = await waitFor(async () => (sentTo(s.number).length ? sentTo(s.number) : undefined));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json).toMatchObject({
      type: 'template',
      template: {
        name: 'lembrete',
        language: { code: 'pt_BR' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: '#7' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Maria' },
              { type: 'text', text: 'amanhã às 10h' },
            ],
          },
        ],
      },
    });
    expect(graph.accepted.filter((a) => a.to === s.number).map((a) => a.type)).toEqual(['template']);
  });

  test('save-time checks: unknown, unapproved, wrong value counts, text-only connection', async () => {
    const s = await setup('SchTplBad');
    await expectError(
      await post(s, { template: { ...LEMBRETE, name: 'nao_existe' } }),
      404,
      'ERR_NO_TEMPLATE_FOUND',
    );
    await expectError(
      await post(s, { template: { name: 'pausado', language: 'pt_BR', variables: ['10%'] } }),
      400,
      'ERR_TEMPLATE_NOT_APPROVED',
    );
    await expectError(
      await post(s, { template: { ...LEMBRETE, variables: ['Maria'] } }),
      400,
      'ERR_TEMPLATE_VARIABLES',
    );
    await expectError(
      await post(s, { template: { ...LEMBRETE, headerVariables: [] } }),
      400,
      'ERR_TEMPLATE_VARIABLES',
    );
    // Neither text nor template.
    await expectError(await post(s, {}), 400, 'ERR_VALIDATION');
    expect((await db.select().from(schedules).where(eq(schedules.companyId, s.id))).map((r) => r.id)).toEqual(
      [],
    );

    // An edit re-checks; a text schedule turned into a template one is checked too.
    const ok = await (await post(s, { template: LEMBRETE })).json();
    await expectError(
      await t.as(s.admin).put(`/schedules/${ok.id}`, { template: { ...LEMBRETE, variables: [] } }),
      400,
      'ERR_TEMPLATE_VARIABLES',
    );
    const plain = await (await post(s, { body: 'Só um texto' })).json();
    await expectError(
      await t.as(s.admin).put(`/schedules/${plain.id}`, { template: { ...LEMBRETE, name: 'nao_existe' } }),
      404,
      'ERR_NO_TEMPLATE_FOUND',
    );
    const turned = await t.as(s.admin).put(`/schedules/${plain.id}`, { template: LEMBRETE });
    expect(turned.status, await turned.clone().text()).toBe(200);
    expect((await turned.json()).template).toMatchObject({ name: 'lembrete' });
    // Dropping the template needs a text again.
    await expectError(
      await t.as(s.admin).put(`/schedules/${plain.id}`, { template: null }),
      400,
      'ERR_VALIDATION',
    );
    const back = await (
      await t.as(s.admin).put(`/schedules/${plain.id}`, { template: null, body: 'De volta ao texto' })
    ).json();
    expect(back).toMatchObject({ template: null, body: 'De volta ao texto' });

    // A simulator connection has no templates.
    const sim = await (await t.as(s.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    await expectError(await post(s, { template: LEMBRETE, whatsappId: sim.id }), 400, 'ERR_VALIDATION');
  });

  test("a second company cannot use the first company's template or connection", async () => {
    const a = await setup('SchTplA');
    graph.templates = [];
    const b = await setup('SchTplB');
    // B's connection has no templates stored: A's "lembrete" is not B's.
    await expectError(await post(b, { template: LEMBRETE }), 404, 'ERR_NO_TEMPLATE_FOUND');
    await expectError(
      await post(b, { template: LEMBRETE, whatsappId: a.whatsappId }),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    await expectError(
      await t.as(b.admin).get(`/schedules/connection?contactId=${a.contactId}`),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    const mine = await (await post(a, { template: LEMBRETE })).json();
    await expectError(
      await t.as(b.admin).put(`/schedules/${mine.id}`, { template: LEMBRETE }),
      404,
      'ERR_NOT_FOUND',
    );
  });
});
