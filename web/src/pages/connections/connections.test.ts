import { SECRET_MASK } from '@recado/contracts';
import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Whatsapp } from '@recado/contracts';
import { dropWhatsapp, patchSession, putWhatsapp, whatsappKeys } from '../../api/whatsapps.js';
import { cloudConfig, formValues, makeSchema } from './connection-form.js';

const conn = (over: Partial<Whatsapp>): Whatsapp =>
  ({
    id: 1,
    name: 'A',
    channel: 'baileys',
    status: 'CONNECTED',
    qrcode: '',
    retries: 0,
    number: '',
    isDefault: false,
    greetingMessage: '',
    complationMessage: '',
    outOfHoursMessage: '',
    ratingMessage: '',
    expiresInactiveMessage: '',
    token: '',
    provider: 'beta',
    transferQueueId: null,
    timeToTransfer: null,
    promptId: null,
    integrationId: null,
    expiresTicket: 0,
    timeUseBotQueues: 0,
    maxUseBotQueues: 3,
    closeOpenChatsAfter: 0,
    channelConfig: {},
    queues: [],
    updatedAt: '2026-01-01T10:00:00.000Z',
    ...over,
  }) as Whatsapp;

function cache(list: Whatsapp[]) {
  const client = new QueryClient();
  client.setQueryData(whatsappKeys.list(), list);
  return { client, list: () => client.getQueryData<Whatsapp[]>(whatsappKeys.list())! };
}

describe('connections cache, patched by events and answers', () => {
  test('an update adds or replaces by id, in name order; a new default takes the flag from the others', () => {
    const c = cache([conn({ id: 1, name: 'B', isDefault: true })]);
    putWhatsapp(c.client, conn({ id: 2, name: 'A' }));
    expect(c.list().map((w) => w.id)).toEqual([2, 1]);
    putWhatsapp(c.client, conn({ id: 2, name: 'C', isDefault: true, updatedAt: '2026-01-01T11:00:00.000Z' }));
    expect(c.list().map((w) => [w.name, w.isDefault])).toEqual([
      ['B', false],
      ['C', true],
    ]);
  });

  test('an older snapshot does not overwrite a newer one', () => {
    const c = cache([conn({ id: 1, status: 'DISCONNECTED', updatedAt: '2026-01-01T12:00:00.000Z' })]);
    putWhatsapp(c.client, conn({ id: 1, status: 'CONNECTED', updatedAt: '2026-01-01T11:00:00.000Z' }));
    expect(c.list()[0]!.status).toBe('DISCONNECTED');
    patchSession(c.client, {
      id: 1,
      status: 'OPENING',
      qrcode: '',
      retries: 0,
      updatedAt: '2026-01-01T11:30:00.000Z',
    });
    expect(c.list()[0]!.status).toBe('DISCONNECTED');
  });

  test('a session update changes status, qrcode, retries and updatedAt only', () => {
    const c = cache([conn({ id: 1, name: 'Phone', greetingMessage: 'Oi' })]);
    patchSession(c.client, {
      id: 1,
      status: 'qrcode',
      qrcode: '2@abc',
      retries: 2,
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(c.list()[0]).toMatchObject({
      name: 'Phone',
      greetingMessage: 'Oi',
      status: 'qrcode',
      qrcode: '2@abc',
      retries: 2,
    });
    // A session of a connection not in the list yet is added only when it is a full view.
    patchSession(c.client, {
      id: 9,
      status: 'OPENING',
      qrcode: '',
      retries: 0,
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(c.list()).toHaveLength(1);
  });

  test('a session update brings the reason it is down, and a later one without a reason clears it', () => {
    const c = cache([conn({ id: 1, channel: 'cloud_api', status: 'OPENING' })]);
    patchSession(c.client, {
      id: 1,
      status: 'DISCONNECTED',
      qrcode: '',
      retries: 0,
      updatedAt: '2026-01-02T00:00:00.000Z',
      statusReason: { reason: 'not_graph', detail: 'did not answer like Graph' },
    });
    expect(c.list()[0]!.statusReason).toEqual({ reason: 'not_graph', detail: 'did not answer like Graph' });
    patchSession(c.client, {
      id: 1,
      status: 'CONNECTED',
      qrcode: '',
      retries: 0,
      updatedAt: '2026-01-02T00:01:00.000Z',
    });
    expect(c.list()[0]!.status).toBe('CONNECTED');
    expect(c.list()[0]!.statusReason).toBeUndefined();
  });

  test('a delete removes it', () => {
    const c = cache([conn({ id: 1 }), conn({ id: 2, name: 'B' })]);
    dropWhatsapp(c.client, 1);
    expect(c.list().map((w) => w.id)).toEqual([2]);
  });
});

describe('connection form', () => {
  const cloud = conn({
    channel: 'cloud_api',
    channelConfig: {
      phoneNumberId: '123',
      graphBaseUrl: 'https://graph.facebook.com',
      accessToken: SECRET_MASK,
      appSecret: SECRET_MASK,
      verifyToken: SECRET_MASK,
    },
  });

  test('new connections start with the defaults of docs/product.md#entities', () => {
    expect(formValues(null)).toMatchObject({
      channel: 'baileys',
      expiresTicket: '0',
      timeUseBotQueues: '0',
      maxUseBotQueues: '3',
    });
  });

  test('masked secrets are never sent back; unchanged Cloud API settings are not sent at all', () => {
    const initial = formValues(cloud);
    expect(initial.accessToken).toBe('');
    expect(cloudConfig(initial, initial, true)).toBeUndefined();
    expect(cloudConfig({ ...initial, phoneNumberId: '456' }, initial, true)).toEqual({
      phoneNumberId: '456',
      graphBaseUrl: 'https://graph.facebook.com',
    });
    expect(
      cloudConfig({ ...initial, appSecret: 'new-secret', accessToken: SECRET_MASK }, initial, true),
    ).toEqual({
      phoneNumberId: '123',
      graphBaseUrl: 'https://graph.facebook.com',
      appSecret: 'new-secret',
    });
  });

  test('the WhatsApp Business Account id is sent when set, digits only', () => {
    const initial = formValues(cloud);
    expect(initial.businessAccountId).toBe('');
    expect(cloudConfig({ ...initial, businessAccountId: ' 102290129340398 ' }, initial, true)).toEqual({
      phoneNumberId: '123',
      businessAccountId: '102290129340398',
      graphBaseUrl: 'https://graph.facebook.com',
    });
    const stored = new Set(['accessToken', 'appSecret'] as const);
    const form = { ...initial, name: 'Meta', businessAccountId: 'waba-1' };
    expect(
      makeSchema(stored)
        .safeParse(form)
        .error?.issues.map((i) => i.path.join('.')),
    ).toEqual(['businessAccountId']);
  });

  test('Cloud API secrets are required only when none is stored', () => {
    const empty = { ...formValues(null), name: 'Meta', channel: 'cloud_api' as const, phoneNumberId: '123' };
    const issues = makeSchema(new Set())
      .safeParse(empty)
      .error?.issues.map((i) => i.path.join('.'));
    expect(issues).toEqual(['accessToken', 'appSecret']);
    expect(makeSchema(new Set(['accessToken', 'appSecret'])).safeParse(empty).success).toBe(true);
    expect(makeSchema(new Set()).safeParse({ ...empty, channel: 'simulator' }).success).toBe(true);
  });

  test('the Graph base URL takes no query string or fragment (the server refuses them too)', () => {
    const stored = new Set(['accessToken', 'appSecret'] as const);
    const form = { ...formValues(null), name: 'Meta', channel: 'cloud_api' as const, phoneNumberId: '123' };
    const ok = (graphBaseUrl: string) => makeSchema(stored).safeParse({ ...form, graphBaseUrl }).success;
    expect(ok('https://graph.facebook.com')).toBe(true);
    expect(ok('https://proxy.example.com/graph/')).toBe(true);
    expect(ok('https://graph.facebook.com?')).toBe(false);
    expect(ok('https://graph.facebook.com/?x=1')).toBe(false);
    expect(ok('https://graph.facebook.com#x')).toBe(false);
    expect(ok('ftp://graph.facebook.com')).toBe(false);
  });
});
