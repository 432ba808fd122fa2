import { createHmac } from 'node:crypto';
import { afterAll, expect } from 'vitest';
import { startFakeGraph, type FakeGraph } from '../src/messaging/channels/cloud-api/fake-graph-api.js';
import { testApp, waitFor, type TestApp } from './helpers.js';

/**
 * What a Cloud API test file starts with: the app (allowing private URLs, since the Graph double listens on
 * loopback; `deps` as testApp takes them), the local Graph double (closed after the file), and Meta's side
 * of its connections (cloudApiFixtures) signed with `appSecret`.
 */
export async function cloudTestApp(
  appSecret: string,
  deps: NonNullable<Parameters<typeof testApp>[0]>['deps'] = {},
) {
  const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps });
  const graph = await startFakeGraph();
  afterAll(() => graph.close());
  return { t, graph, db: t.database.db, ...cloudApiFixtures(t, graph, appSecret) };
}

/**
 * Meta's side of a Cloud API connection in tests: webhook payloads, signed as Meta signs them, and a
 * connection of a new company pointed at the local Graph double (the app must allow private URLs).
 */
export function cloudApiFixtures(t: TestApp, graph: FakeGraph, appSecret: string) {
  /** POST to the connection's webhook, signed with the app secret over the raw body (to `base`: a process). */
  const signedPost = (whatsappId: number, payload: unknown, secret = appSecret, base = t.url) => {
    const raw = JSON.stringify(payload);
    return fetch(`${base}/api/webhooks/cloud-api/${whatsappId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
      },
      body: raw,
    });
  };

  /** One inbound message as Meta's webhook carries it; `message` is the message's own fields (type, text…). */
  const webhookMessage = (from: string, id: string, name: string, message: Record<string, unknown>) =>
    cloudInbound(graph, [{ from, id, name, message }]);

  /** A status webhook (sent, delivered, read, failed with Meta's errors) for one sent message. */
  const webhookStatus = (id: string, status: string, recipient: string, errors?: unknown[]) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: graph.wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: graph.displayPhoneNumber,
                phone_number_id: graph.phoneNumberId,
              },
              statuses: [
                {
                  id,
                  status,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  recipient_id: recipient,
                  ...(errors ? { errors } : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  });

  /** A new company with a running Cloud API connection on the Graph double. */
  async function cloudConnection(
    companyName: string,
    connectionName = 'Cloud',
    extraConfig: Record<string, unknown> = {},
  ) {
    const c = await t.company(companyName);
    const res = await t.as(c.admin).post('/whatsapp', {
      name: connectionName,
      channel: 'cloud_api',
      channelConfig: {
        phoneNumberId: graph.phoneNumberId,
        accessToken: graph.token,
        appSecret,
        verifyToken: 'verify-1',
        graphBaseUrl: graph.url,
        ...extraConfig,
      },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const w = await res.json();
    await waitFor(async () => t.app.sessions.isRunningHere(w.id));
    return { ...c, whatsappId: w.id as number };
  }

  return { signedPost, webhookMessage, webhookStatus, cloudConnection };
}

/**
 * An inbound delivery as Meta's webhook carries it: one or more customer messages (`message`: the message's own
 * fields, type, text…) and their senders' profiles. `timestamp`: the messages' (seconds; now by default).
 */
export function cloudInbound(
  graph: Pick<FakeGraph, 'displayPhoneNumber' | 'phoneNumberId'>,
  msgs: { from: string; id: string; name: string; message: Record<string, unknown> }[],
  timestamp = String(Math.floor(Date.now() / 1000)),
) {
  const senders = new Map(msgs.map((m) => [m.from, m.name]));
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: graph.displayPhoneNumber,
                phone_number_id: graph.phoneNumberId,
              },
              contacts: [...senders].map(([wa_id, name]) => ({ profile: { name }, wa_id })),
              messages: msgs.map(({ from, id, message }) => ({ from, id, timestamp, ...message })),
            },
          },
        ],
      },
    ],
  };
}
