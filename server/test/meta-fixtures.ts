import { createHmac } from 'node:crypto';
import { afterAll, expect } from 'vitest';
import { startFakeGraph, type FakeGraph } from '../src/messaging/channels/cloud-api/fake-graph-api.js';
import { testApp, waitFor, type TestApp } from './helpers.js';

/**
 * #34 What an Instagram/Messenger test file starts with: the app (private URLs allowed: the Graph stand-in
 * listens on loopback), the stand-in (closed after the file) and Meta's side of the connections: webhook
 * events of the Messenger Platform, signed with `appSecret` as Meta signs them.
 */
export async function metaTestApp(
  appSecret: string,
  deps: NonNullable<Parameters<typeof testApp>[0]>['deps'] = {},
) {
  const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps });
  const graph = await startFakeGraph();
  afterAll(() => graph.close());
  return { t, graph, db: t.database.db, ...metaFixtures(t, graph, appSecret) };
}

export type MetaKind = 'instagram' | 'messenger';

export function metaFixtures(t: TestApp, graph: FakeGraph, appSecret: string) {
  const accountOf = (kind: MetaKind) => (kind === 'messenger' ? graph.pageId : graph.instagramAccountId);

  /** POST to the connection's webhook, signed with the app secret over the raw body (to `base`: a process). */
  const signedPost = (connectionId: number, payload: unknown, secret = appSecret, base = t.url) => {
    const raw = JSON.stringify(payload);
    return fetch(`${base}/api/webhooks/meta/${connectionId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
      },
      body: raw,
    });
  };

  /** One delivery: `object` 'page' (Messenger) or 'instagram', the account's entry with these events. */
  const delivery = (kind: MetaKind, events: Record<string, unknown>[]) => ({
    object: kind === 'messenger' ? 'page' : 'instagram',
    entry: [{ id: accountOf(kind), time: Date.now(), messaging: events }],
  });

  /** A customer's message event (`message`: mid, text, attachments…), at `at` (ms; now by default). */
  const fromCustomer = (
    kind: MetaKind,
    customer: string,
    message: Record<string, unknown>,
    at = Date.now(),
  ) => ({
    sender: { id: customer },
    recipient: { id: accountOf(kind) },
    timestamp: at,
    message,
  });

  /** Any other event from the customer (postback, delivery, read, message_edit, reaction). */
  const customerEvent = (
    kind: MetaKind,
    customer: string,
    event: Record<string, unknown>,
    at = Date.now(),
  ) => ({
    sender: { id: customer },
    recipient: { id: accountOf(kind) },
    timestamp: at,
    ...event,
  });

  /** An echo: the page's own message to the customer, sent from Meta's inbox or another app. */
  const echo = (kind: MetaKind, customer: string, message: Record<string, unknown>, at = Date.now()) => ({
    sender: { id: accountOf(kind) },
    recipient: { id: customer },
    timestamp: at,
    message: { is_echo: true, app_id: 1234567890, ...message },
  });

  /** A new company with a running Instagram or Messenger connection on the Graph stand-in. */
  async function metaConnection(
    companyName: string,
    kind: MetaKind,
    extraConfig: Record<string, unknown> = {},
  ) {
    const c = await t.company(companyName);
    const res = await t.as(c.admin).post('/whatsapp', {
      name: kind === 'messenger' ? 'Messenger' : 'Instagram',
      channel: kind,
      channelConfig: {
        ...(kind === 'messenger'
          ? { pageId: graph.pageId }
          : { instagramAccountId: graph.instagramAccountId }),
        pageAccessToken: graph.token,
        appSecret,
        verifyToken: 'meta-verify-1',
        graphBaseUrl: graph.url,
        ...extraConfig,
      },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const w = await res.json();
    await waitFor(async () => t.app.sessions.isRunningHere(w.id));
    return { ...c, connectionId: w.id as number };
  }

  return { signedPost, delivery, fromCustomer, customerEvent, echo, metaConnection, accountOf };
}
