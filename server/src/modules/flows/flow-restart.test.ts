import { expect, test } from 'vitest';
import { waitFor } from '../../../test/helpers.js';
import { call, login, restartHarness } from '../../../test/restart.js';
import { chain } from './flow-test-kit.js';

// docs/flows.md#runtime: the real server in a child process, a customer between two questions of a flow, the
// process killed with SIGKILL, the server started again on the same database (PGlite's data directory, or a
// PostgreSQL database of its own when DATABASE_URL is set): the conversation continues at the same node.
const { startServer, companyWithSimulator, withDatabase } = await restartHarness('flow-restart', {
  env: { API_RATE_LIMIT: '100000' },
});

test('kill -9 between two questions, restart: the conversation continues at the same node', async () => {
  const first = await startServer();
  const company = await companyWithSimulator(first.base, {
    name: 'FlowRestart',
    email: 'admin@flowrestart.test',
  });
  let token = company.token;
  const { whatsappId } = company;
  const flow = await call(first.base, 'POST', '/flows', token, {
    name: 'Duas perguntas',
    graph: chain([
      { id: 'q1', type: 'question', data: { text: 'Primeira pergunta?', variable: 'a' } },
      { id: 'q2', type: 'question', data: { text: 'Segunda pergunta?', variable: 'b' } },
      { id: 'end', type: 'message', data: { text: 'Obrigado: {{a}} e {{b}}' } },
    ]),
  });
  expect(flow.status, JSON.stringify(flow.body)).toBe(201);
  expect((await call(first.base, 'POST', `/flows/${flow.body.id}/publish`, token)).status).toBe(200);
  expect(
    (await call(first.base, 'PUT', `/whatsapp/${whatsappId}`, token, { flowId: flow.body.id })).status,
  ).toBe(200);

  const number = '5511977012345';
  let seq = 0;
  const say = (base: string, body: string) =>
    call(base, 'POST', `/simulator/${whatsappId}/inbound`, token, {
      id: `restart-${++seq}`,
      from: number,
      body,
    });
  const phoneHas = (base: string, text: string) =>
    waitFor(async () => {
      const r = await call(base, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token);
      return (
        r.status === 200 &&
        (r.body as unknown as { body: string; fromMe: boolean }[]).some((m) => m.fromMe && m.body === text)
      );
    }, 120_000);

  expect((await say(first.base, 'oi')).status).toBe(202);
  await phoneHas(first.base, 'Primeira pergunta?');
  expect((await say(first.base, 'um')).status).toBe(202);
  await phoneHas(first.base, 'Segunda pergunta?');

  first.kill();
  await first.exited;

  const second = await startServer();
  token = await login(second.base, company.admin);
  expect((await say(second.base, 'dois')).status).toBe(202);
  await phoneHas(second.base, 'Obrigado: um e dois').catch(async (err) => {
    const conv = await call(second.base, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token);
    throw new Error(
      `${String(err)}\nphone: ${JSON.stringify(conv.body)}\nserver: ${second.output().slice(-3000)}`,
    );
  });
  const conv = (await call(second.base, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token))
    .body as unknown as { body: string; fromMe: boolean }[];
  // Each question went out once: nothing was asked again after the restart.
  expect(conv.filter((m) => m.fromMe).map((m) => m.body)).toEqual([
    'Primeira pergunta?',
    'Segunda pergunta?',
    'Obrigado: um e dois',
  ]);
  second.child.kill('SIGTERM');
  await second.exited;

  await withDatabase(async (database) => {
    const { rows } = await database.raw(`select status, current_node_id, variables from flow_runs`);
    expect(rows).toEqual([
      { status: 'completed', current_node_id: 'end', variables: { a: 'um', b: 'dois' } },
    ]);
  });
}, 300_000);
