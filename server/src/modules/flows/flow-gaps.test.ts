import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import { WEEKDAYS, type DaySchedule } from '@recado/contracts';
import { flowRuns, jobs as jobRows, tickets } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { collectEvents, nextEvent, testApp, waitFor, type Session } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { automationKit } from '../automation/automation-test-kit.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { flowApi, graph } from './flow-test-kit.js';
import { httpUrlRefusal } from './flow-service.js';

/**
 * docs/flows.md: a transfer starts the queue's own automation; the out-of-hours trigger reads the queue's week
 * (or the company's); a wait whose job was lost is woken by the sweep; an HTTP node's URL is checked when
 * the flow is saved and published; the flow list is live on the company's socket only.
 */

// 2026-11-23 is a Monday; São Paulo (the company's default zone) is UTC-3.
const MONDAY_NOON = new Date('2026-11-23T15:00:00Z');
const SUNDAY_NIGHT = new Date('2026-11-23T02:00:00Z');
const clock = manualClock(MONDAY_NOON);
const openai = await fakeOpenAi();
const t = await testApp({
  env: { ALLOW_PRIVATE_URLS: 'true', OPENAI_BASE_URL: openai.baseUrl },
  deps: { clock, jobs: { autoStart: false } },
});
afterAll(() => openai.close());
const k = automationKit(t);
const db = t.database.db;
const runtime = t.app.services.flowsRuntime;

async function connection(admin: Session) {
  const res = await t.as(admin).post('/whatsapp', { name: `Sim ${newNumber()}`, channel: 'simulator' });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}
async function queue(admin: Session, schedules?: DaySchedule[]) {
  const color = `#${Math.floor(Math.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}`;
  const res = await t.as(admin).post('/queue', {
    name: `Fila ${newNumber()}`,
    color,
    greetingMessage: '',
    ...(schedules ? { schedules } : {}),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}
/** Every day open from `start` to `end` ('' = closed), or weekdays only. */
const week = (start: string, end: string, weekdaysOnly = false): DaySchedule[] =>
  WEEKDAYS.map((d, i) => {
    const open = !weekdaysOnly || i <= 4;
    return { weekday: d, weekdayEn: d, startTime: open ? start : '', endTime: open ? end : '' };
  });

describe('a transfer to a queue', () => {
  test("starts that queue's automation (its AI prompt), as the bot's menu does; a queue without one just waits", async () => {
    const c = await t.company('FlowGapsTransfer');
    const withPrompt = await queue(c.admin);
    const prompt = await k.prompt(c.admin, withPrompt);
    const plain = await queue(c.admin);
    const w = await connection(c.admin);
    const f = flowApi(t, c.admin);
    const flow = await f.onConnection(
      w,
      graph(
        [
          { id: 'ask', type: 'question', data: { text: 'Vendas ou suporte?', variable: 'area' } },
          {
            id: 'cond',
            type: 'condition',
            data: {
              mode: 'all',
              rules: [{ id: 'r', kind: 'variable', name: 'area', op: 'eq', value: 'vendas' }],
            },
          },
          { id: 'to_ai', type: 'transfer', data: { target: 'queue', queueId: withPrompt, note: 'IA' } },
          { id: 'to_people', type: 'transfer', data: { target: 'queue', queueId: plain, note: 'Pessoas' } },
        ],
        [
          ['start', 'next', 'ask'],
          ['ask', 'answered', 'cond'],
          ['cond', 'true', 'to_ai'],
          ['cond', 'false', 'to_people'],
        ],
      ),
    );
    const number = newNumber();
    expect(await k.say(c.admin, w, number, 'Oi')).toEqual(['Vendas ou suporte?']);
    await k.say(c.admin, w, number, 'vendas');
    const ticket = await k.ticketOf(c.id, w, number);
    expect(ticket).toMatchObject({
      queueId: withPrompt,
      status: 'pending',
      useIntegration: true,
      promptId: prompt.id,
    });
    expect(await runtime.activeRun(c.id, ticket.id)).toBeNull();
    expect(await t.app.services.automation.state(c.id, ticket.id)).toMatchObject({ queueId: withPrompt });
    // The prompt answers from the next message on (the flow's messages are not sent to it).
    expect(await k.say(c.admin, w, number, 'Quanto custa?')).toEqual(['Eco: Quanto custa?']);
    expect(openai.completions.at(-1)!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Quanto custa?',
    });

    const other = newNumber();
    await k.say(c.admin, w, other, 'Oi');
    const before = openai.completions.length;
    await k.say(c.admin, w, other, 'suporte');
    const t2 = await k.ticketOf(c.id, w, other);
    expect(t2).toMatchObject({ queueId: plain, status: 'pending', useIntegration: false, promptId: null });
    expect(await k.say(c.admin, w, other, 'Alguém?')).toEqual([]);
    expect(openai.completions.length).toBe(before);
    void flow;
  }, 120_000);
});

describe('the out-of-hours trigger', () => {
  test("reads the ticket's queue's week when it has a queue, the company's otherwise (injected clock)", async () => {
    const c = await t.company('FlowGapsHours');
    const as = t.as(c.admin);
    expect((await as.put('/settings/scheduleType', { value: 'queue' })).status).toBe(200);
    // The company: weekdays 08–18. Queue "afternoon": every day 13–18 (closed at Monday noon). Queue "always".
    expect(
      (await as.put(`/companies/${c.id}/schedules`, { schedules: week('08:00', '18:00', true) })).status,
    ).toBe(200);
    const afternoon = await queue(c.admin, week('13:00', '18:00'));
    const always = await queue(c.admin, week('00:00', '23:59'));
    const w = await connection(c.admin);
    const f = flowApi(t, c.admin);
    const g = graph(
      [{ id: 'msg', type: 'message', data: { text: 'Fechado agora, deixe seu recado.' } }],
      [['start', 'next', 'msg']],
    );
    g.nodes[0]!.data = { ...g.nodes[0]!.data, outOfHours: true } as (typeof g.nodes)[0]['data'];
    const ooh = await f.create(g, 'Fora do horário');
    await f.publish(ooh.id);

    /** A conversation that opened earlier (no flow ran on it), moved to `queueId`, and the customer writes. */
    async function writes(queueId: number | null) {
      const number = newNumber();
      clock.set(new Date('2026-11-23T14:00:00Z')); // Monday 11:00: the company is open
      const wasOpen = queueId === null ? [] : await k.say(c.admin, w, number, 'primeira mensagem');
      expect(wasOpen).toEqual([]);
      if (queueId !== null) {
        const tk = await k.ticketOf(c.id, w, number);
        await db
          .update(tickets)
          .set({ queueId })
          .where(and(eq(tickets.id, tk.id), eq(tickets.companyId, c.id)));
      }
      clock.set(now);
      return k.say(c.admin, w, number, 'olá, tem alguém?');
    }
    let now = MONDAY_NOON; // Monday 12:00 in São Paulo
    // The company is open: a ticket without a queue gets no out-of-hours flow…
    expect(await writes(null)).toEqual([]);
    // …but one waiting in a queue that opens at 13:00 does; and one in an always-open queue does not.
    expect(await writes(afternoon)).toEqual(['Fechado agora, deixe seu recado.']);
    expect(await writes(always)).toEqual([]);
    now = SUNDAY_NIGHT; // Saturday 23:00 in São Paulo: the company is closed
    expect(await writes(null)).toEqual(['Fechado agora, deixe seu recado.']);
    expect(await writes(always)).toEqual([]);
    // scheduleType "disabled": no out-of-hours trigger at all.
    expect((await as.put('/settings/scheduleType', { value: 'disabled' })).status).toBe(200);
    expect(await writes(null)).toEqual([]);
    clock.set(MONDAY_NOON);
  }, 180_000);
});

describe('a wait whose timer job was lost', () => {
  test('a crash after the checkpoint and before the job: the sweep schedules it again and the run wakes', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('FlowGapsWait');
    const w = await connection(c.admin);
    const f = flowApi(t, c.admin);
    await f.onConnection(
      w,
      graph(
        [
          { id: 'hi', type: 'message', data: { text: 'Um momento…' } },
          { id: 'pause', type: 'wait', data: { minutes: 5 } },
          { id: 'back', type: 'message', data: { text: 'Voltei!' } },
        ],
        [
          ['start', 'next', 'hi'],
          ['hi', 'next', 'pause'],
          ['pause', 'next', 'back'],
        ],
      ),
    );
    // The process "dies" right after the run is saved as waiting: scheduling the wake-up never happens.
    const queueApi = t.app.services.jobs;
    const schedule = queueApi.schedule;
    let crashed = 0;
    queueApi.schedule = (async (definition, job, executor) => {
      if (definition.kind === 'flow.timer' && !crashed++) throw new Error('process killed');
      return schedule(definition, job, executor);
    }) as typeof schedule;
    const number = newNumber();
    try {
      expect(await k.say(c.admin, w, number, 'Oi')).toEqual(['Um momento…']);
    } finally {
      queueApi.schedule = schedule;
    }
    expect(crashed).toBe(1);
    const ticket = await k.ticketOf(c.id, w, number);
    const run = (await runtime.activeRun(c.id, ticket.id))!;
    expect(run).toMatchObject({ status: 'waiting', currentNodeId: 'pause' });
    const timerJobs = () =>
      db
        .select()
        .from(jobRows)
        .where(and(eq(jobRows.kind, 'flow.timer'), eq(jobRows.key, `run:${run.id}`)));
    expect(await timerJobs()).toEqual([]);
    // A run saved a moment ago is left to its own step (the grace period); an old one is rescheduled once.
    clock.set(new Date(MONDAY_NOON.getTime() + 60_000));
    expect(await runtime.rescheduleLostTimers(60 * 60_000)).toBe(0);
    expect(await runtime.rescheduleLostTimers(0)).toBe(1);
    expect(await runtime.rescheduleLostTimers(0)).toBe(0);
    const [job] = await timerJobs();
    expect(job).toMatchObject({ status: 'queued', payload: { runId: run.id, seq: run.seq, name: 'wait' } });
    expect(job!.runAt.getTime()).toBe(MONDAY_NOON.getTime() + 5 * 60_000);
    clock.set(new Date(MONDAY_NOON.getTime() + 6 * 60_000));
    for (let i = 0; i < 5 && (await queueApi.runDue()) > 0; i++);
    await k.idle();
    const said = async (n: string) =>
      (await k.phone(c.admin, w, n)).filter((m) => m.fromMe).map((m) => m.body);
    expect(await said(number)).toEqual(['Um momento…', 'Voltei!']);
    expect(await runtime.activeRun(c.id, ticket.id)).toBeNull();
    const [ended] = await db.select().from(flowRuns).where(eq(flowRuns.id, run.id));
    expect(ended).toMatchObject({ status: 'completed' });

    // The same crash again, and nobody calls anything: the app's recurring sweep (flow.timer-sweep) wakes it.
    crashed = 0;
    queueApi.schedule = (async (definition, job, executor) => {
      if (definition.kind === 'flow.timer' && !crashed++) throw new Error('process killed');
      return schedule(definition, job, executor);
    }) as typeof schedule;
    const second = newNumber();
    try {
      expect(await k.say(c.admin, w, second, 'Oi')).toEqual(['Um momento…']);
    } finally {
      queueApi.schedule = schedule;
    }
    expect(crashed).toBe(1);
    clock.set(new Date(MONDAY_NOON.getTime() + 20 * 60_000));
    await waitFor(async () => {
      await queueApi.runDue();
      await k.idle();
      return (await said(second)).includes('Voltei!');
    }, 20_000);
    clock.set(MONDAY_NOON);
  }, 120_000);
});

describe("an HTTP node's URL", () => {
  const httpFlow = (url: string) =>
    graph([{ id: 'lookup', type: 'http', data: { url } }], [['start', 'next', 'lookup']]);

  test('is checked with the outbound-URL guard when the flow is saved, updated and published', async () => {
    const c = await t.company('FlowGapsUrl');
    const f = flowApi(t, c.admin);
    for (const [url, reason] of [
      ['http://169.254.169.254/latest/meta-data/{{x}}', /169\.254\.169\.254 is a .*metadata/i],
      ['ftp://files.example.com/{{x}}', /only http and https/],
      ['https://user:pass@example.com/x', /credentials/],
    ] as const) {
      const res = await f.api.post('/flows', { name: 'Consulta', graph: httpFlow(url) });
      expect(res.status, url).toBe(400);
      const body = (await res.json()) as {
        error: string;
        message: string;
        issues: { nodeId: string; code: string; path: string }[];
        fields: { path: string; message: string }[];
      };
      expect(body.error).toBe('ERR_FLOW_INVALID');
      expect(body.message).toMatch(/^Node lookup: url: URL not allowed: /);
      expect(body.message).toMatch(reason);
      expect(body.issues).toContainEqual(
        expect.objectContaining({ nodeId: 'lookup', code: 'url_not_allowed', path: 'nodes.1.data.url' }),
      );
      expect(body.fields).toContainEqual(expect.objectContaining({ path: 'graph.nodes.lookup.data.url' }));
    }
    // With ALLOW_PRIVATE_URLS a loopback service is fine; a host made of variables is checked at run time.
    const ok = await f.create(httpFlow('http://127.0.0.1:3001/customers/{{cpf}}'));
    await f.create(httpFlow('{{lookupUrl}}'));
    await f.create(httpFlow('https://{{host}}/customers'));
    // An update is checked the same way, and nothing is saved.
    const put = await f.api.put(`/flows/${ok.id}`, { graph: httpFlow('http://[fd00:ec2::254]/x') });
    expect(put.status).toBe(400);
    expect(((await put.json()) as { issues: { code: string }[] }).issues).toContainEqual(
      expect.objectContaining({ code: 'url_not_allowed' }),
    );
    const kept = (await (await f.api.get(`/flows/${ok.id}`)).json()) as {
      graph: { nodes: { data: { url?: string } }[] };
    };
    expect(kept.graph.nodes[1]!.data.url).toBe('http://127.0.0.1:3001/customers/{{cpf}}');
    // A draft that holds one (written before the check existed) is not published.
    await db.execute(
      sql`update flows set graph = replace(graph::text, 'http://127.0.0.1:3001', 'http://169.254.169.254')::jsonb where id = ${ok.id}`,
    );
    const pub = await f.api.post(`/flows/${ok.id}/publish`);
    expect(pub.status).toBe(400);
    expect(await pub.json()).toMatchObject({
      error: 'ERR_FLOW_INVALID',
      issues: expect.arrayContaining([
        expect.objectContaining({ nodeId: 'lookup', code: 'url_not_allowed' }),
      ]),
    });
    // validate shows it on the node too.
    const v = await f.api.post(`/flows/${ok.id}/validate`);
    expect(((await v.json()) as { valid: boolean }).valid).toBe(false);
  }, 120_000);

  test('without ALLOW_PRIVATE_URLS loopback and private hosts are refused (the same guard as the runtime)', () => {
    expect(httpUrlRefusal('http://127.0.0.1:3001/customers/{{cpf}}', false)).toMatch(/loopback/);
    expect(httpUrlRefusal('http://10.0.0.8/x', false)).toMatch(/private/);
    expect(httpUrlRefusal('http://localhost:8080/x', false)).toMatch(/local host name/);
    expect(httpUrlRefusal('http://127.0.0.1:3001/x', true)).toBeNull();
    expect(httpUrlRefusal('https://api.example.com/customers/{{cpf}}?full={{x}}', false)).toBeNull();
    expect(httpUrlRefusal('{{lookupUrl}}', false)).toBeNull();
    expect(httpUrlRefusal('api.example.com/x', false)).toBe('not a valid URL');
  });
});

describe('the flow list', () => {
  test("is live: create, update, publish and delete reach the company's sockets, never another company's", async () => {
    const a = await t.company('FlowGapsLiveA');
    const b = await t.company('FlowGapsLiveB');
    const user = await t.user(a.admin, 'user');
    const sa = await t.socket(a.admin.token);
    const su = await t.socket(user.token);
    const sb = await t.socket(b.admin.token);
    const heardByB: unknown[] = [];
    sb.onAny((event: string, payload: unknown) => {
      if (event.endsWith('-flow')) heardByB.push({ event, payload });
    });
    const event = `company-${a.id}-flow`;
    const fa = flowApi(t, a.admin);

    let next = nextEvent<{ action: string; flow: { id: number; name: string; status: string } }>(sa, event);
    const byUser = nextEvent<{ action: string; flow: { id: number } }>(su, event);
    const flow = await fa.create(graph([], []), 'Boas-vindas');
    expect(await next).toMatchObject({
      action: 'create',
      flow: { id: flow.id, name: 'Boas-vindas', status: 'draft' },
    });
    expect(await byUser).toMatchObject({ action: 'create', flow: { id: flow.id } });
    expect((await next) as object).not.toHaveProperty('flow.graph');

    next = nextEvent(sa, event);
    expect((await fa.api.put(`/flows/${flow.id}`, { name: 'Boas-vindas 2' })).status).toBe(200);
    expect(await next).toMatchObject({ action: 'update', flow: { id: flow.id, name: 'Boas-vindas 2' } });

    next = nextEvent(sa, event);
    await fa.publish(flow.id);
    expect(await next).toMatchObject({
      action: 'update',
      flow: { id: flow.id, status: 'published', publishedVersion: 1 },
    });

    const deleted = nextEvent<{ action: string; flowId: number }>(sa, event);
    expect((await fa.api.del(`/flows/${flow.id}`)).status).toBe(200);
    expect(await deleted).toEqual({ action: 'delete', flowId: flow.id });

    // B hears nothing of A's flows (and its own changes only in its own room).
    const own = nextEvent<{ action: string }>(sb, `company-${b.id}-flow`);
    await flowApi(t, b.admin).create(graph([], []), 'Flow B');
    expect(await own).toMatchObject({ action: 'create' });
    expect(await collectEvents(sb, event, 300)).toEqual([]);
    expect(heardByB.filter((h) => (h as { event: string }).event === event)).toEqual([]);
    sa.close();
    su.close();
    sb.close();
  }, 120_000);
});
