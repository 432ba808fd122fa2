import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { expectError, testApp } from '../../../test/helpers.js';
import { fakeWebhook } from '../../../test/fake-webhook.js';
import { automationKit } from '../automation/automation-test-kit.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { verifyPayload } from '../../lib/webhook-signature.js';

const hook = await fakeWebhook();
afterAll(() => hook.close());
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { jobs: { autoStart: false } } });
const k = automationKit(t);
const a = await t.company('HookSignA');
const b = await t.company('HookSignB');

describe('n8n / webhook integrations sign their POSTs like the outgoing webhooks', () => {
  test.each(['webhook', 'n8n'] as const)('%s: HMAC of "<timestamp>.<body>" with its secret', async (type) => {
    const { whatsappId, queues } = await k.setup(a.admin, [
      { name: `Fila ${newNumber()}`, greetingMessage: '' },
    ]);
    const queueId = Object.values(queues)[0]!;
    const created = await t
      .as(a.admin)
      .post('/queueIntegration', { name: `Sig ${type}`, type, urlN8N: `${hook.url}/sig/${type}` });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: number };
    expect((await t.as(a.admin).put(`/queue/${queueId}`, { integrationId: id })).status).toBe(200);

    const before = hook.seen.length;
    await k.say(a.admin, whatsappId, newNumber(), 'quero um orçamento');
    await t.app.services.jobs.runDue();
    expect(hook.seen.length).toBe(before + 1);
    const got = hook.seen[before]!;
    const { secret } = (await (await t.as(a.admin).get(`/queueIntegration/${id}/secret`)).json()) as {
      secret: string;
    };
    expect(secret).toMatch(/^whsec_/);
    const headers = {
      signature: got.headers['x-recado-signature'],
      timestamp: got.headers['x-recado-timestamp'],
    };
    expect(verifyPayload(secret, got.raw, headers)).toBe(true);
    expect(got.headers['x-recado-signature']).toBe(
      `sha256=${createHmac('sha256', secret).update(`${got.headers['x-recado-timestamp']}.${got.raw}`).digest('hex')}`,
    );
    // A replay with a fresh timestamp does not verify; neither does another secret.
    const later = new Date(Date.now() + 3600_000);
    const fresh = String(Math.floor(later.getTime() / 1000));
    expect(verifyPayload(secret, got.raw, { ...headers, timestamp: fresh }, { now: later })).toBe(false);
    expect(verifyPayload('whsec_other', got.raw, headers)).toBe(false);

    // Regenerated: the next POST is signed with the new secret.
    const again = (await (await t.as(a.admin).post(`/queueIntegration/${id}/secret`)).json()) as {
      secret: string;
    };
    expect(again.secret).not.toBe(secret);
    await k.say(a.admin, whatsappId, newNumber(), 'outro cliente');
    await t.app.services.jobs.runDue();
    const next = hook.seen.at(-1)!;
    const nextHeaders = {
      signature: next.headers['x-recado-signature'],
      timestamp: next.headers['x-recado-timestamp'],
    };
    expect(verifyPayload(again.secret, next.raw, nextHeaders)).toBe(true);
    expect(verifyPayload(secret, next.raw, nextHeaders)).toBe(false);

    // Admins only, and only the company's own.
    const user = await t.user(a.admin, 'user');
    await expectError(await t.as(user).get(`/queueIntegration/${id}/secret`), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(b.admin).get(`/queueIntegration/${id}/secret`),
      404,
      'ERR_NO_INTEGRATION_FOUND',
    );
    await expectError(
      await t.as(b.admin).post(`/queueIntegration/${id}/secret`),
      404,
      'ERR_NO_INTEGRATION_FOUND',
    );
  });
});
