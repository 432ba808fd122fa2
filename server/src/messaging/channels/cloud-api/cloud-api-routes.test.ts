import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { installErrorHandler } from '../../../http/errors.js';
import { secretBox } from '../../../lib/crypto.js';
import { sealCloudConfig } from './cloud-api-config.js';
import { cloudApiWebhookRoutes } from './cloud-api-routes.js';

const APP_SECRET = 'meta-app-secret-abc';
const VERIFY = 'verify-token-xyz';
const box = secretBox('test-app-secret-0123456789abcdef0123');
const cloudConfig = sealCloudConfig(
  { phoneNumberId: '106540352242922', accessToken: 'EAAG-token', appSecret: APP_SECRET, verifyToken: VERIFY },
  box,
) as unknown as Record<string, unknown>;
const connections = new Map([
  [1, { companyId: 10, channel: 'cloud_api', channelConfig: cloudConfig }],
  [2, { companyId: 10, channel: 'baileys', channelConfig: {} }],
  [3, { companyId: 11, channel: 'cloud_api', channelConfig: {} }],
]);

let app: FastifyInstance;
let base: string;
const delivered: { whatsappId: number; payload: unknown }[] = [];
let failDelivery = false;

beforeAll(async () => {
  // Shaped like the real app: zod compilers, the shared error handler, a sibling route that parses JSON.
  const f = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
  f.setValidatorCompiler(validatorCompiler);
  f.setSerializerCompiler(serializerCompiler);
  installErrorHandler(f);
  await f.register(
    async (api) => {
      api.post('/echo', async (req) => ({ body: req.body }));
      await api.register(
        cloudApiWebhookRoutes({
          findConnection: async (id) => connections.get(id),
          deliver: async (whatsappId, payload) => {
            if (failDelivery) throw new Error('queue down');
            delivered.push({ whatsappId, payload });
          },
          box,
        }),
      );
    },
    { prefix: '/api' },
  );
  await f.listen({ port: 0, host: '127.0.0.1' });
  app = f;
  base = `http://127.0.0.1:${(f.server.address() as AddressInfo).port}/api`;
});
afterAll(() => app.close());
beforeEach(() => {
  delivered.length = 0;
  failDelivery = false;
});

// Meta's bytes exactly as sent: pretty-printed JSON with non-ASCII characters.
const body = readFileSync(new URL('./fixtures/text-with-quote.json', import.meta.url));
const sign = (b: Buffer | string, secret = APP_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;
const post = (
  id: number | string,
  b: Buffer | string,
  signature?: string,
  contentType = 'application/json',
) =>
  fetch(`${base}/webhooks/cloud-api/${id}`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    body: b,
  });

test('GET answers Meta’s hub.challenge as text/plain when the verify token matches', async () => {
  const ok = await fetch(
    `${base}/webhooks/cloud-api/1?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444`,
  );
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(await ok.text()).toBe('1158201444');

  const wrong = await fetch(
    `${base}/webhooks/cloud-api/1?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
  );
  expect(wrong.status).toBe(403);
  expect(await wrong.json()).toMatchObject({ error: 'ERR_NO_PERMISSION' });

  // A cloud connection without usable settings cannot be verified either.
  const unset = await fetch(
    `${base}/webhooks/cloud-api/3?hub.mode=subscribe&hub.verify_token=&hub.challenge=1`,
  );
  expect(unset.status).toBe(403);

  for (const id of [99, 2, 'abc', '99999999999']) {
    const r = await fetch(
      `${base}/webhooks/cloud-api/${id}?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1`,
    );
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: 'ERR_NO_WAPP_FOUND' });
  }
});

test('POST with a correct X-Hub-Signature-256 over the raw bytes is delivered', async () => {
  const res = await post(1, body, sign(body), 'application/json; charset=utf-8');
  expect(res.status).toBe(200);
  expect(delivered).toEqual([{ whatsappId: 1, payload: JSON.parse(body.toString('utf8')) }]);
});

test('a wrong, missing or re-serialised signature is 401 and nothing is delivered', async () => {
  const cases: [Buffer | string, string | undefined][] = [
    [body, sign(body, 'another-secret')],
    [body, undefined],
    [body, 'sha256=zz'],
    // The same JSON re-serialised: the signature only holds for the exact bytes.
    [JSON.stringify(JSON.parse(body.toString('utf8'))), sign(body)],
  ];
  for (const [b, signature] of cases) {
    const res = await post(1, b, signature);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'ERR_NO_PERMISSION' });
  }
  expect(delivered).toEqual([]);
});

test('unknown or non-cloud connections are 404; settings it cannot open are 401', async () => {
  for (const id of [99, 2]) {
    const res = await post(id, body, sign(body));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'ERR_NO_WAPP_FOUND' });
  }
  expect((await post(3, body, sign(body))).status).toBe(401);
  expect(delivered).toEqual([]);
});

test('a failed delivery answers 500 so Meta delivers again', async () => {
  failDelivery = true;
  const res = await post(1, body, sign(body));
  expect(res.status).toBe(500);
  failDelivery = false;
  expect((await post(1, body, sign(body))).status).toBe(200);
  expect(delivered).toHaveLength(1);
});

test('a signed body that is not JSON is 400; other routes still parse JSON as usual', async () => {
  const junk = Buffer.from('{not json');
  expect((await post(1, junk, sign(junk))).status).toBe(400);
  expect(delivered).toEqual([]);
  const echo = await fetch(`${base}/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ a: 1 }),
  });
  expect(await echo.json()).toEqual({ body: { a: 1 } });
});
