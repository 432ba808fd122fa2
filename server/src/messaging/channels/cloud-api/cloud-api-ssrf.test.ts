import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import type { Whatsapp } from '@recado/contracts';
import { messages, whatsapps } from '../../../db/schema/index.js';
import { secretBox } from '../../../lib/crypto.js';
import { testApp, waitFor, type TestApp } from '../../../../test/helpers.js';
import { sealCloudConfig } from './cloud-api-config.js';
import { startFakeGraph } from './fake-graph-api.js';
import { cloudApiFixtures } from '../../../../test/cloud-api-fixtures.js';

/**
 * Issue 18.1, through the real server: a tenant admin must not reach internal services through the Cloud API
 * channel — neither by pointing the Graph base URL at them nor by having a (fake) Graph name an internal
 * media URL whose answer would then be served back through GET /api/messages/{id}/media.
 */
const graph = await startFakeGraph();
const internalHits: string[] = [];
const internal = createServer((req, res) => {
  internalHits.push(req.url!);
  res.setHeader('content-type', 'text/plain');
  res.end('TOP-SECRET-internal-service-answer');
});
await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
const internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
afterAll(async () => {
  await graph.close();
  internal.close();
});

const APP_SECRET = 'ssrf-app-secret';
const cloudInput = (over: Record<string, unknown> = {}) => ({
  phoneNumberId: graph.phoneNumberId,
  accessToken: graph.token,
  appSecret: APP_SECRET,
  verifyToken: 'verify-ssrf-1',
  graphBaseUrl: graph.url,
  ...over,
});
const statusOf = async (t: TestApp, id: number) =>
  (await t.database.db.select().from(whatsapps).where(eq(whatsapps.id, id)))[0]!.status;

describe('with ALLOW_PRIVATE_URLS (a local Graph double)', async () => {
  const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' } });
  const company = await t.company('SsrfCo');

  const { signedPost, webhookMessage } = cloudApiFixtures(t, graph, APP_SECRET);
  const imageFrom = (from: string, id: string, mediaId: string) =>
    webhookMessage(from, id, 'Attacker', { type: 'image', image: { id: mediaId, mime_type: 'image/jpeg' } });

  const res = await t
    .as(company.admin)
    .post('/whatsapp', { name: 'Cloud', channel: 'cloud_api', channelConfig: cloudInput() });
  const whatsappId = ((await res.json()) as { id: number }).id;
  await waitFor(async () => (await statusOf(t, whatsappId)) === 'CONNECTED');

  async function receivedMedia(providerId: string, mediaId: string) {
    expect((await signedPost(whatsappId, imageFrom('5511977776666', providerId, mediaId))).status).toBe(200);
    const row = await waitFor(async () => {
      const [m] = await t.database.db
        .select()
        .from(messages)
        .where(and(eq(messages.whatsappId, whatsappId), eq(messages.providerId, providerId)));
      return m;
    });
    return t.as(company.admin).get(`/messages/${row.id}/media`);
  }

  test('media named by Graph on its own host is downloaded and served (control)', async () => {
    const jpeg = Buffer.from('ffd8ffe000104a464946', 'hex');
    const media = await receivedMedia('wamid.SSRF-OK', graph.addMedia(jpeg, 'image/jpeg'));
    expect(media.status).toBe(200);
    expect(Buffer.from(await media.arrayBuffer())).toEqual(jpeg);
  });

  test('the attack: Graph names an internal URL as the media; nothing is fetched, nothing is served', async () => {
    const mediaId = graph.addMedia(Buffer.from('decoy'), 'image/jpeg');
    graph.mediaUrls.set(mediaId, `${internalUrl}/admin/secret`);
    const media = await receivedMedia('wamid.SSRF-ATTACK', mediaId);
    expect(media.status).not.toBe(200);
    expect(await media.text()).not.toContain('TOP-SECRET');
    expect(internalHits).toEqual([]);
  });

  test('a base URL that never answered like Graph does not show CONNECTED', async () => {
    const r = await t.as(company.admin).post('/whatsapp', {
      name: 'Not Graph',
      channel: 'cloud_api',
      channelConfig: cloudInput({ graphBaseUrl: internalUrl }),
    });
    expect(r.status).toBe(201);
    const id = ((await r.json()) as { id: number }).id;
    await waitFor(async () => (await statusOf(t, id)) === 'DISCONNECTED');
    const list = (await (await t.as(company.admin).get('/whatsapp')).json()) as Whatsapp[];
    const shown = list.find((w) => w.id === id)!;
    // The admin sees why, in a code the web translates and Graph's own terms.
    expect(shown).toMatchObject({
      status: 'DISCONNECTED',
      statusReason: {
        reason: 'not_graph',
        detail: expect.stringMatching(/did not answer like Meta's Graph API/),
      },
    });
    expect(shown.channelConfig).not.toHaveProperty('statusReason');
    expect(list.find((w) => w.id === whatsappId)).not.toHaveProperty('statusReason');
    internalHits.length = 0;
  });
});

describe('without ALLOW_PRIVATE_URLS (the production default)', async () => {
  const t = await testApp();
  const company = await t.company('NoPrivCo');

  test('a loopback, private or query-tricked Graph base URL is refused when saved, with ERR_URL_NOT_ALLOWED', async () => {
    for (const graphBaseUrl of [
      graph.url,
      `${graph.url}?`,
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]:80',
      'http://localhost:6379',
      'https://graph.facebook.com?',
      'https://graph.facebook.com/#x',
      'gopher://graph.facebook.com',
    ]) {
      const res = await t.as(company.admin).post('/whatsapp', {
        name: 'Evil',
        channel: 'cloud_api',
        channelConfig: cloudInput({ graphBaseUrl }),
      });
      const body = await res.json();
      expect([graphBaseUrl, res.status]).toEqual([graphBaseUrl, 400]);
      expect(body.error).toMatch(/^ERR_(URL_NOT_ALLOWED|VALIDATION)$/);
    }
    const plain = await t.as(company.admin).post('/whatsapp', {
      name: 'Evil',
      channel: 'cloud_api',
      channelConfig: cloudInput({ graphBaseUrl: graph.url }),
    });
    expect(await plain.json()).toMatchObject({
      error: 'ERR_URL_NOT_ALLOWED',
      fields: [{ path: 'channelConfig.graphBaseUrl', message: expect.stringMatching(/loopback/) }],
    });
    // A PUT cannot sneak it in either.
    const ok = await t.as(company.admin).post('/whatsapp', {
      name: 'Fine',
      channel: 'cloud_api',
      channelConfig: cloudInput({ graphBaseUrl: undefined }),
    });
    expect(ok.status).toBe(201);
    const id = ((await ok.json()) as { id: number }).id;
    const put = await t.as(company.admin).put(`/whatsapp/${id}`, { channelConfig: cloudInput() });
    expect(put.status).toBe(400);
    expect((await put.json()).error).toBe('ERR_URL_NOT_ALLOWED');
  });

  test('a loopback base URL already stored (or resolving there later) is refused when the session starts', async () => {
    const before = graph.requests.length;
    // Sealed the way the server seals, as if saved before the rule existed.
    const channelConfig = sealCloudConfig(cloudInput(), secretBox(t.config.appSecret), undefined, {
      allowPrivateUrls: true,
    }) as unknown as Record<string, unknown>;
    const [row] = await t.database.db
      .insert(whatsapps)
      .values({
        companyId: company.id,
        name: 'Stored',
        channel: 'cloud_api',
        status: 'OPENING',
        channelConfig,
      })
      .returning();
    await t.app.sessions.tick();
    await waitFor(async () => (await statusOf(t, row!.id)) === 'DISCONNECTED');
    expect(graph.requests.length).toBe(before);
    const list = (await (await t.as(company.admin).get('/whatsapp')).json()) as Whatsapp[];
    expect(list.find((w) => w.id === row!.id)?.statusReason).toEqual({
      reason: 'url_refused',
      detail: expect.stringMatching(/127\.0\.0\.1 is a loopback address/),
    });
    expect(internalHits).toEqual([]);
  });
});
