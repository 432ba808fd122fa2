import { describe, expect, test } from 'vitest';
import { expectError, testApp, unique } from '../../test/helpers.js';
import { browserKeys } from '../../test/push-endpoint.js';

/**
 * #28.8 through the real server: the IPv4-translated form `http://[::ffff:0:127.0.0.1]/` (and the other forms
 * the guard refuses whole) on every surface where a tenant types a URL the server will call. The production
 * default (no ALLOW_PRIVATE_URLS); docs/outbound-urls.md lists the surfaces.
 */
const t = await testApp();
const c = await t.company('UrlSurfaces');
const api = t.as(c.admin);
const queue = await (await api.post('/queue', { name: unique('Fila '), color: '#0A0B0C' })).json();

const surfaces: [name: string, send: (url: string) => Promise<Response>][] = [
  [
    'Cloud API graphBaseUrl',
    (graphBaseUrl) =>
      api.post('/whatsapp', {
        name: unique('Cloud '),
        channel: 'cloud_api',
        channelConfig: {
          phoneNumberId: '1234567890',
          accessToken: 'token-x',
          appSecret: 'secret-x',
          verifyToken: 'verify-x',
          graphBaseUrl,
        },
      }),
  ],
  [
    'prompt baseUrl',
    (baseUrl) =>
      api.post('/prompt', {
        name: unique('Assistente '),
        prompt: 'Você é o assistente da loja. Responda em português, com educação e em poucas palavras.',
        model: 'llama3.1:8b',
        maxTokens: 50,
        temperature: 0.2,
        apiKey: 'sk-test',
        queueId: queue.id,
        maxMessages: 5,
        baseUrl,
      }),
  ],
  ['webhook url', (url) => api.post('/webhooks', { url, events: ['message.created'] })],
  ['n8n urlN8N', (urlN8N) => api.post('/queueIntegration', { type: 'n8n', name: unique('n8n '), urlN8N })],
  [
    'webhook integration urlN8N',
    (urlN8N) => api.post('/queueIntegration', { type: 'webhook', name: unique('Hook '), urlN8N }),
  ],
  [
    'Typebot urlN8N',
    (urlN8N) =>
      api.post('/queueIntegration', { type: 'typebot', name: unique('Bot '), urlN8N, typebotSlug: 'fluxo' }),
  ],
  ['push endpoint', (endpoint) => api.post('/push/subscriptions', { endpoint, keys: browserKeys().keys })],
];

describe('tenant URLs refuse every special-purpose form (#28.8)', () => {
  test.each(surfaces)('%s', async (_name, send) => {
    for (const url of [
      'http://[::ffff:0:127.0.0.1]/',
      'http://[0:0:0:0:ffff:0:7f00:1]/',
      'http://[::ffff:0:a9fe:a9fe]/', // 169.254.169.254, translated
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[2002:a00:1::1]/',
      'http://[2001:db8::1]/',
      'http://[::127.0.0.1]/',
      'http://0x7f.1/',
      'http://100.100.100.200/',
    ])
      await expectError(await send(url), 400, 'ERR_URL_NOT_ALLOWED');
  });

  test('a public URL passes where it names no connection to start', async () => {
    for (const [name, send] of surfaces.slice(1)) {
      const res = await send('https://hooks.example.com/recado');
      expect(res.status, `${name}: ${await res.clone().text()}`).toBeLessThan(300);
    }
  });
});
