import { sql } from 'drizzle-orm';
import { expect, test, afterAll } from 'vitest';
import { executeRows } from '../src/db/rows.js';
import { waitFor } from './helpers.js';
import { call, restartHarness } from './restart.js';
import { webhookReceiver } from './webhook-receiver.js';
import { chain } from '../src/modules/flows/flow-test-kit.js';

// #32 "The record must not be lost on a crash" (docs/events.md "The outbox"): the real server in a child process
// accepts a ticket and is killed with SIGKILL right after the change committed, before the bus dispatched its
// events (RECADO_TEST_CRASH_AFTER_COMMIT, a hook the server ignores in production). The change's outbox rows
// committed with it; the restarted server's recovery sweep hands them to the timeline and the webhooks, which
// write the timeline entry and queue the webhook exactly once — and a second sweep later adds nothing.
const receiver = await webhookReceiver();
afterAll(() => receiver.close());
const { startServer, companyWithSimulator, withDatabase } = await restartHarness('outbox-crash', {
  env: { ALLOW_PRIVATE_URLS: 'true' },
});

/**
 * A server that kills itself right after `crash` is staged and committed, and a company on it with a simulator
 * connection and a webhook for `event`.
 */
async function crashingCompany(crash: string, name: string, email: string, event: string) {
  const first = await startServer({ RECADO_TEST_CRASH_AFTER_COMMIT: crash });
  const c = await companyWithSimulator(first.base, { name, email });
  const hook = await call(first.base, 'POST', '/webhooks', c.token, {
    name: 'ERP',
    url: receiver.url,
    events: [event],
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  return { first, c };
}

test('a kill -9 between the commit and the dispatch loses neither the timeline entry nor the webhook', async () => {
  const { first, c } = await crashingCompany(
    'ticket.announced',
    'Outbox Crash',
    'admin@outbox-crash.test',
    'ticket.updated',
  );
  const number = '5511987650001';
  expect(
    (
      await call(first.base, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
        from: number,
        body: 'Oi',
      })
    ).status,
  ).toBe(202);
  const ticketId = await waitFor(async () => {
    const r = await call(first.base, 'GET', '/tickets?status=pending&showAll=true', c.token);
    return (r.body.tickets as { id: number }[] | undefined)?.[0]?.id;
  });

  // The accept commits, then the process dies before anything hears of it: no answer comes back.
  const accepted = await call(first.base, 'PUT', `/tickets/${ticketId}`, c.token, { status: 'open' }).catch(
    () => undefined,
  );
  expect(accepted).toBeUndefined();
  await first.exited;
  expect(first.child.signalCode).toBe('SIGKILL');

  // What the crash left: the change and its outbox rows, no timeline entry, no delivery.
  await withDatabase(async ({ db }) => {
    const rows = await executeRows<{ event: string }>(db, sql`select event from event_outbox order by seq`);
    const left = rows.map((r) => r.event);
    // The accept's two rows, last; before them perhaps the customer's message's own (handled but not yet
    // purged when the process died, or not yet handled: replayed idempotently, checked below).
    expect(left.slice(-2)).toEqual(['ticket.announced', 'ticket.changed']);
    expect(left.slice(0, -2).filter((e) => e !== 'message.stored')).toEqual([]);
    const entries = await executeRows(
      db,
      sql`select type from ticket_events where ticket_id = ${ticketId} and type = 'accepted'`,
    );
    expect(entries).toHaveLength(0);
    const status = await executeRows<{ status: string }>(
      db,
      sql`select status from tickets where id = ${ticketId}`,
    );
    expect(status[0]!.status).toBe('open');
  });

  const second = await startServer();
  const token = c.token;
  // The sweep takes rows older than 10 s, every 5 s; the webhook's job then posts it.
  await waitFor(() => receiver.received.some((r) => r.json.event === 'ticket.updated'), 60_000);
  const timeline = async () =>
    ((await call(second.base, 'GET', `/tickets/${ticketId}/events`, token)).body.events ?? []) as {
      type: string;
    }[];
  const events = await waitFor(async () => {
    const list = await timeline();
    return list.some((e) => e.type === 'accepted') ? list : undefined;
  });
  expect(events.filter((e) => e.type === 'accepted')).toHaveLength(1);

  // Another sweep period later: still once, and the outbox is empty.
  await new Promise((r) => setTimeout(r, 12_000));
  const updated = receiver.received.filter((r) => r.json.event === 'ticket.updated');
  expect(updated).toHaveLength(1);
  expect(updated[0]!.json.data).toMatchObject({
    action: 'accept',
    actor: 'user',
    changes: { status: { from: 'pending', to: 'open' } },
  });
  expect((await timeline()).filter((e) => e.type === 'accepted')).toHaveLength(1);
  // The message's "created" entry once, whether it was written before the crash or replayed after it.
  expect((await timeline()).filter((e) => e.type === 'created')).toHaveLength(1);
  second.kill();
  await second.exited;
  await withDatabase(async ({ db }) => {
    const left = await executeRows<{ n: number }>(db, sql`select count(*)::int as n from event_outbox`);
    expect(left[0]!.n).toBe(0);
    const deliveries = await executeRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from webhook_deliveries where event = 'ticket.updated'`,
    );
    expect(deliveries[0]!.n).toBe(1);
  });
}, 240_000);

// The inbound pipeline writes a message's `message.stored` row in the statement that stores the message (ids
// only; the sweep rebuilds the event from them): a kill -9 right after that commit, before the dispatch, still
// gives the ticket its "created" entry and the integrator its `message.created` webhook, each once.
test('a kill -9 right after an inbound message is stored loses neither its timeline entry nor its webhook', async () => {
  const { first, c } = await crashingCompany(
    'message.stored',
    'Outbox Inbound Crash',
    'admin@outbox-inbound.test',
    'message.created',
  );
  // The simulator's entry answers 202 once the message is handed in; the process dies right after storing it.
  await call(first.base, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
    from: '5511987650002',
    body: 'Mensagem que não pode se perder',
  }).catch(() => undefined);
  await first.exited;
  expect(first.child.signalCode).toBe('SIGKILL');

  const ticketId = await withDatabase(async ({ db }) => {
    const stored = await executeRows<{ ticket_id: number }>(
      db,
      sql`select ticket_id from messages where body = 'Mensagem que não pode se perder'`,
    );
    expect(stored).toHaveLength(1);
    const rows = await executeRows<{ event: string; payload: string }>(
      db,
      sql`select event, payload from event_outbox order by seq`,
    );
    // Its row committed with it, holding ids only (no text of the customer's).
    const mine = rows.filter((r) => r.event === 'message.stored');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.payload).not.toContain('perder');
    expect(JSON.parse(mine[0]!.payload)).toMatchObject({ $rebuild: { ticketCreated: true } });
    const entries = await executeRows(
      db,
      sql`select type from ticket_events where ticket_id = ${stored[0]!.ticket_id}`,
    );
    expect(entries).toHaveLength(0);
    return stored[0]!.ticket_id;
  });

  const second = await startServer();
  const created = () =>
    receiver.received.filter(
      (r) => r.json.event === 'message.created' && JSON.stringify(r.json.data).includes('não pode se perder'),
    );
  await waitFor(() => created().length > 0, 60_000);
  const timeline = async () =>
    ((await call(second.base, 'GET', `/tickets/${ticketId}/events`, c.token)).body.events ?? []) as {
      type: string;
    }[];
  await waitFor(async () => ((await timeline()).some((e) => e.type === 'created') ? true : undefined));
  // Another sweep period later: still once each, and the outbox is empty.
  await new Promise((r) => setTimeout(r, 12_000));
  expect(created()).toHaveLength(1);
  expect(created()[0]!.json.data).toMatchObject({ direction: 'inbound', message: { ticketId } });
  expect((await timeline()).filter((e) => e.type === 'created')).toHaveLength(1);
  second.kill();
  await second.exited;
  await withDatabase(async ({ db }) => {
    const left = await executeRows<{ event: string; payload: string }>(
      db,
      // This company's rows (the first test's company may still have a row in flight when the server is killed).
      // (Its admin's audit intents may still wait out their grace period: they are the audit's own subject.)
      sql`select event, payload from event_outbox where event = 'message.stored'
        and company_id = (select company_id from tickets where id = ${ticketId})`,
    );
    expect(left).toEqual([]);
  });
}, 240_000);

// A delivery ack's `message.acked` row commits with the ack (ids and the ack only): a kill -9 right after it
// still gives the integrator its `message.ack` webhook, once.
test('a kill -9 right after an ack is stored loses not its webhook', async () => {
  const { first, c } = await crashingCompany(
    'message.acked',
    'Outbox Ack Crash',
    'admin@outbox-ack.test',
    'message.ack',
  );
  await call(first.base, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
    from: '5511987650003',
    body: 'Oi',
  });
  const ticketId = await waitFor(async () => {
    const r = await call(first.base, 'GET', '/tickets?status=pending&showAll=true', c.token);
    return (r.body.tickets as { id: number }[] | undefined)?.[0]?.id;
  });
  // The reply is sent; the simulated phone's delivery ack (2) arrives a moment later and the process dies
  // right after storing it.
  expect((await call(first.base, 'PUT', `/tickets/${ticketId}`, c.token, { status: 'open' })).status).toBe(
    200,
  );
  await call(first.base, 'POST', `/messages/${ticketId}`, c.token, { body: 'Olá, como posso ajudar?' }).catch(
    () => undefined,
  );
  await first.exited;
  expect(first.child.signalCode).toBe('SIGKILL');
  const messageId = await withDatabase(async ({ db }) => {
    const [m] = await executeRows<{ id: number; ack: number }>(
      db,
      sql`select id, ack from messages where ticket_id = ${ticketId} and from_me`,
    );
    expect(m!.ack).toBeGreaterThanOrEqual(2);
    const rows = await executeRows<{ payload: string }>(
      db,
      sql`select payload from event_outbox where event = 'message.acked'`,
    );
    expect(rows.map((r) => JSON.parse(r.payload))).toContainEqual({
      $rebuild: { messageId: Number(m!.id), ack: 2 },
    });
    return Number(m!.id);
  });

  const second = await startServer();
  const acks = () =>
    receiver.received.filter(
      (r) =>
        r.json.event === 'message.ack' &&
        (r.json.data as { messageId?: number; ack?: number }).messageId === messageId &&
        (r.json.data as { ack?: number }).ack === 2,
    );
  await waitFor(() => acks().length > 0, 60_000);
  await new Promise((r) => setTimeout(r, 12_000));
  expect(acks()).toHaveLength(1);
  expect(acks()[0]!.json.data).toMatchObject({ messageId, ticketId, ack: 2 });
  second.kill();
  await second.exited;
}, 240_000);

// A flow's step writes its `flow.steps` row in the statement that saves the run's position (and its messages):
// a kill -9 right after that commit, before the dispatch, still gives the ticket its "flow" timeline entry, once.
test("a kill -9 right after a flow's step is saved loses not its timeline entry", async () => {
  const { first, c } = await crashingCompany(
    'flow.steps',
    'Outbox Flow Crash',
    'admin@outbox-flow.test',
    'message.created',
  );
  const flow = await call(first.base, 'POST', '/flows', c.token, {
    name: 'Pergunta',
    graph: chain([{ id: 'q1', type: 'question', data: { text: 'Seu nome?', variable: 'nome' } }]),
  });
  expect(flow.status, JSON.stringify(flow.body)).toBe(201);
  expect((await call(first.base, 'POST', `/flows/${flow.body.id}/publish`, c.token)).status).toBe(200);
  expect(
    (await call(first.base, 'PUT', `/whatsapp/${c.whatsappId}`, c.token, { flowId: flow.body.id })).status,
  ).toBe(200);
  await call(first.base, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
    from: '5511987650003',
    body: 'oi',
  }).catch(() => undefined);
  await first.exited;
  expect(first.child.signalCode).toBe('SIGKILL');

  // The step was saved (the run waits on the question) with its event's row; no timeline entry yet.
  const ticketId = await withDatabase(async ({ db }) => {
    const runs = await executeRows<{ ticket_id: number; current_node_id: string; status: string }>(
      db,
      sql`select ticket_id, current_node_id, status from flow_runs`,
    );
    expect(runs).toMatchObject([{ current_node_id: 'q1', status: 'waiting' }]);
    const rows = await executeRows<{ event: string }>(
      db,
      sql`select event from event_outbox where event = 'flow.steps'`,
    );
    expect(rows).toHaveLength(1);
    const entries = await executeRows(
      db,
      sql`select id from ticket_events where ticket_id = ${runs[0]!.ticket_id} and type = 'flow'`,
    );
    expect(entries).toHaveLength(0);
    return runs[0]!.ticket_id;
  });

  const second = await startServer();
  const timeline = async () =>
    ((await call(second.base, 'GET', `/tickets/${ticketId}/events`, c.token)).body.events ?? []) as {
      type: string;
      data: { nodes?: { id: string }[] };
    }[];
  const events = await waitFor(async () => {
    const list = await timeline();
    return list.some((e) => e.type === 'flow') ? list : undefined;
  }, 60_000);
  const flowEntries = events.filter((e) => e.type === 'flow');
  expect(flowEntries).toHaveLength(1);
  expect(flowEntries[0]!.data.nodes?.map((n) => n.id)).toEqual(['q1']);
  // Another sweep period later: still once, and the row is gone.
  await new Promise((r) => setTimeout(r, 12_000));
  expect((await timeline()).filter((e) => e.type === 'flow')).toHaveLength(1);
  second.kill();
  await second.exited;
  await withDatabase(async ({ db }) => {
    const left = await executeRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from event_outbox where event = 'flow.steps'`,
    );
    expect(left[0]!.n).toBe(0);
  });
}, 240_000);
