import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { prompts, queueIntegrations, queues, tickets, whatsapps } from './schema/index.js';
import { expectError, testApp, waitFor } from '../../test/helpers.js';

/**
 * Every id a body names must be the caller company's own: another company's prompt, integration, queue,
 * user, connection or contact is refused with a 4xx and nothing is stored.
 */
const t = await testApp();
const db = t.database.db;

/** A company with a queue, a prompt, an integration, a simulator connection and one ticket. */
async function company(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  const [queue] = await db
    .insert(queues)
    .values({ companyId: c.id, name: 'Fila', color: '#123456' })
    .returning();
  const [prompt] = await db
    .insert(prompts)
    .values({
      companyId: c.id,
      name: 'Assistente',
      prompt: 'Seja gentil',
      model: 'gpt-4o-mini',
      maxTokens: 100,
      temperature: 0.5,
      apiKeySealed: 'x',
      queueId: queue!.id,
      maxMessages: 10,
    })
    .returning();
  const [integration] = await db
    .insert(queueIntegrations)
    .values({ companyId: c.id, type: 'webhook', name: 'Gancho' })
    .returning();
  await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: '5511966660001', body: 'oi' });
  const ticket = await waitFor(
    async () => (await db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
  );
  const user = await t.user(c.admin, 'user');
  return {
    ...c,
    whatsappId: w.id as number,
    queue: queue!,
    prompt: prompt!,
    integration: integration!,
    ticket,
    user,
  };
}

describe('ids in bodies belong to the caller’s company', () => {
  test('PUT /tickets/{id} refuses another company’s prompt, integration, queue, user and connection', async () => {
    const a = await company('RefsA');
    const b = await company('RefsB');
    const put = (body: Record<string, unknown>) => t.as(a.admin).put(`/tickets/${a.ticket.id}`, body);
    await expectError(await put({ promptId: b.prompt.id }), 404, 'ERR_NOT_FOUND');
    await expectError(await put({ integrationId: b.integration.id }), 404, 'ERR_NO_INTEGRATION_FOUND');
    await expectError(await put({ queueId: b.queue.id }), 400, 'ERR_VALIDATION');
    await expectError(await put({ userId: b.user.user.id }), 404, 'ERR_NO_USER_FOUND');
    await expectError(await put({ whatsappId: b.whatsappId }), 404, 'ERR_NO_WAPP_FOUND');
    const [row] = await db.select().from(tickets).where(eq(tickets.id, a.ticket.id));
    expect(row).toMatchObject({
      promptId: null,
      integrationId: null,
      queueId: a.ticket.queueId,
      whatsappId: a.whatsappId,
    });
    // Its own ones are accepted.
    const ok = await put({ promptId: a.prompt.id, integrationId: a.integration.id });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await ok.json()).toMatchObject({ promptId: a.prompt.id, integrationId: a.integration.id });
  });

  test('POST and PUT /whatsapp refuse another company’s prompt, integration and queues', async () => {
    const a = await company('WRefsA');
    const b = await company('WRefsB');
    const create = (body: Record<string, unknown>) =>
      t
        .as(a.admin)
        .post('/whatsapp', { name: `Outra ${Object.keys(body)[0]}`, channel: 'simulator', ...body });
    await expectError(await create({ promptId: b.prompt.id }), 404, 'ERR_NOT_FOUND');
    await expectError(await create({ integrationId: b.integration.id }), 404, 'ERR_NO_INTEGRATION_FOUND');
    await expectError(await create({ queueIds: [b.queue.id] }), 400, 'ERR_VALIDATION');
    await expectError(await create({ transferQueueId: b.queue.id }), 400, 'ERR_VALIDATION');
    const put = (body: Record<string, unknown>) => t.as(a.admin).put(`/whatsapp/${a.whatsappId}`, body);
    await expectError(await put({ promptId: b.prompt.id }), 404, 'ERR_NOT_FOUND');
    await expectError(await put({ integrationId: b.integration.id }), 404, 'ERR_NO_INTEGRATION_FOUND');
    await expectError(
      await put({ queueIds: [a.queue.id, b.queue.id], greetingMessage: 'Olá' }),
      400,
      'ERR_VALIDATION',
    );
    const [row] = await db.select().from(whatsapps).where(eq(whatsapps.id, a.whatsappId));
    expect(row).toMatchObject({ promptId: null, integrationId: null });
    const ok = await put({ promptId: a.prompt.id, integrationId: a.integration.id });
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  test('queues refuse another company’s prompt and integration', async () => {
    const a = await company('QRefsA');
    const b = await company('QRefsB');
    const put = (body: Record<string, unknown>) => t.as(a.admin).put(`/queue/${a.queue.id}`, body);
    await expectError(await put({ promptId: b.prompt.id }), 404, 'ERR_NOT_FOUND');
    await expectError(await put({ integrationId: b.integration.id }), 404, 'ERR_NO_INTEGRATION_FOUND');
  });

  test('the database backs it: a prompt or integration deleted leaves no dangling id behind', async () => {
    const a = await company('FkRefs');
    const ok = await t
      .as(a.admin)
      .put(`/tickets/${a.ticket.id}`, { promptId: a.prompt.id, integrationId: a.integration.id });
    expect(ok.status).toBe(200);
    await db.delete(prompts).where(eq(prompts.id, a.prompt.id));
    await db.delete(queueIntegrations).where(eq(queueIntegrations.id, a.integration.id));
    const [row] = await db.select().from(tickets).where(eq(tickets.id, a.ticket.id));
    expect(row).toMatchObject({ promptId: null, integrationId: null });
    // An id that names no row cannot be stored at all.
    await expect(
      db.update(tickets).set({ promptId: 2147483000 }).where(eq(tickets.id, a.ticket.id)),
    ).rejects.toThrow();
  });
});
