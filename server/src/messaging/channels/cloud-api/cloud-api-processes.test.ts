import { afterAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { messages } from '../../../db/schema/index.js';
import { cloudTestApp } from '../../../../test/cloud-api-fixtures.js';
import { secondProcess, waitFor } from '../../../../test/helpers.js';

/**
 * Meta calls a connection's webhook at whichever process the load balancer picks. A process that does not
 * run the connection hands the payload to the one that does (channel-commands.ts) and answers 200 only once
 * it is stored; with nobody running the connection it answers 500, so Meta delivers again.
 */
const { t, db, signedPost, webhookMessage, cloudConnection } = await cloudTestApp('processes-app-secret');
// The second process: its own pool on PostgreSQL (LISTEN/NOTIFY across real connections).
const second = await secondProcess(t, { sessions: { processId: 'proc-B' } }, { ownPool: true });
const B = second.app;
const bUrl = second.url;
afterAll(() => second.close());

const stored = (companyId: number, body: string) =>
  db
    .select({ id: messages.id, companyId: messages.companyId })
    .from(messages)
    .where(and(eq(messages.companyId, companyId), eq(messages.body, body)));

describe('a Cloud API webhook that reaches the process without the session', () => {
  test('is stored by the owner before the 200, once even when Meta delivers it again', async () => {
    const c = await cloudConnection('Procs');
    expect(t.app.sessions.isRunningHere(c.whatsappId)).toBe(true);
    expect(B.sessions.isRunningHere(c.whatsappId)).toBe(false);
    const payload = webhookMessage('5511977776666', 'wamid.PROC1', 'Ana', {
      type: 'text',
      text: { body: 'Olá pelo outro processo' },
    });
    const res = await signedPost(c.whatsappId, payload, undefined, bUrl);
    expect(res.status, await res.clone().text()).toBe(200);
    // Stored when the answer came, not later.
    expect(await stored(c.id, 'Olá pelo outro processo')).toHaveLength(1);
    const again = await signedPost(c.whatsappId, payload, undefined, bUrl);
    expect(again.status).toBe(200);
    expect(await stored(c.id, 'Olá pelo outro processo')).toHaveLength(1);
  });

  test('a wrong signature is refused there too, and nothing reaches the owner', async () => {
    const c = await cloudConnection('ProcsSig');
    const payload = webhookMessage('5511977775555', 'wamid.PROC2', 'Bia', {
      type: 'text',
      text: { body: 'assinatura errada' },
    });
    const res = await signedPost(c.whatsappId, payload, 'not-the-app-secret', bUrl);
    expect(res.status).toBe(401);
    expect(await stored(c.id, 'assinatura errada')).toHaveLength(0);
  });

  test('with no process running the connection it answers 500, so Meta delivers again', async () => {
    const c = await cloudConnection('ProcsOff');
    expect((await t.as(c.admin).del(`/whatsappsession/${c.whatsappId}`)).status).toBe(200);
    await waitFor(async () => !t.app.sessions.isRunningHere(c.whatsappId));
    const payload = webhookMessage('5511977774444', 'wamid.PROC3', 'Caio', {
      type: 'text',
      text: { body: 'ninguém atende' },
    });
    expect((await signedPost(c.whatsappId, payload, undefined, bUrl)).status).toBe(500);
    expect(await stored(c.id, 'ninguém atende')).toHaveLength(0);
  });
});
