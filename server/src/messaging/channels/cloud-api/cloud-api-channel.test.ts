import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../../test/helpers.js';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { secretBox } from '../../../lib/crypto.js';
import type { AckUpdate, ChannelSink, InboundMessage, StateUpdate } from '../../channel.js';
import { cloudApiChannel, type CloudApiChannel } from './cloud-api-channel.js';
import { sealCloudConfig } from './cloud-api-config.js';
import { graphClient, mediaUrlProblem } from './graph-client.js';
import { startFakeGraph, type FakeGraph } from './fake-graph-api.js';

let graph: FakeGraph;
beforeAll(async () => {
  graph = await startFakeGraph();
});
afterAll(() => graph.close());
beforeEach(() => {
  graph.requests.length = 0;
  graph.badNumbers.clear();
});

function recordingSink() {
  const events: (
    { t: 'message'; m: InboundMessage } | { t: 'ack'; a: AckUpdate } | { t: 'state'; s: StateUpdate }
  )[] = [];
  const sink: ChannelSink = {
    message: async (m) => void events.push({ t: 'message', m }),
    ack: async (a) => void events.push({ t: 'ack', a }),
    state: async (s) => void events.push({ t: 'state', s }),
  };
  return { sink, events, states: () => events.filter((e) => e.t === 'state').map((e) => e.s) };
}

const box = secretBox('test-app-secret-0123456789abcdef0123');
const storedConfig = (over: Record<string, unknown> = {}) =>
  sealCloudConfig(
    {
      phoneNumberId: graph.phoneNumberId,
      accessToken: graph.token,
      appSecret: 'meta-app-secret',
      verifyToken: 'verify-token-123',
      graphBaseUrl: graph.url,
      ...over,
    },
    box,
    undefined,
    // The fake Graph listens on loopback: allowed explicitly, as ALLOW_PRIVATE_URLS does for the server.
    { allowPrivateUrls: true },
  ) as unknown as Record<string, unknown>;

/** A started channel; the requests start() made are cleared unless asked to keep them. */
async function started(config = storedConfig(), keepRequests = false) {
  const rec = recordingSink();
  const channel = cloudApiChannel({
    whatsappId: 7,
    companyId: 3,
    config,
    sink: rec.sink,
    box,
    allowPrivateUrls: true,
  });
  await channel.start();
  if (!keepRequests) graph.requests.length = 0;
  return { channel, ...rec };
}

const lastRequest = () => graph.requests.at(-1)!;

describe('start', () => {
  test('a valid config connects and learns its own number from Graph', async () => {
    const { states } = await started(storedConfig(), true);
    expect(states()).toEqual([{ status: 'CONNECTED', number: graph.displayPhoneNumber }]);
    expect(lastRequest()).toMatchObject({
      method: 'GET',
      path: `/v21.0/${graph.phoneNumberId}`,
      authorization: `Bearer ${graph.token}`,
    });
  });

  test('missing or undecryptable settings: DISCONNECTED with a reason, no Graph call', async () => {
    for (const config of [
      {},
      { phoneNumberId: '1' },
      storedConfig({}),
      null as unknown as Record<string, unknown>,
    ]) {
      const rec = recordingSink();
      const otherKey =
        config && 'accessTokenSealed' in config ? secretBox('another-secret-entirely-000000000') : box;
      await cloudApiChannel({
        whatsappId: 7,
        companyId: 3,
        config,
        sink: rec.sink,
        box: otherKey,
        allowPrivateUrls: true,
      }).start();
      const [s] = rec.states();
      expect(s!.status).toBe('DISCONNECTED');
      expect(s!.data).toEqual({ reason: 'config_invalid', detail: expect.stringMatching(/Cloud API/) });
      expect(JSON.stringify(s)).not.toContain(graph.token);
    }
    expect(graph.requests).toEqual([]);
  });

  test('a token Graph rejects: DISCONNECTED with Graph message, token never in it', async () => {
    const rec = recordingSink();
    const channel = cloudApiChannel({
      whatsappId: 7,
      companyId: 3,
      config: storedConfig({ accessToken: 'EAAG-wrong-token' }),
      sink: rec.sink,
      box,
      allowPrivateUrls: true,
    });
    await channel.start();
    const [s] = rec.states();
    expect(s).toEqual({
      status: 'DISCONNECTED',
      data: { reason: 'graph_rejected', detail: expect.stringContaining('Invalid OAuth') },
    });
    expect(JSON.stringify(s)).not.toContain('EAAG-wrong-token');
    await expect(channel.sendText('5511987654321', 'hi')).rejects.toMatchObject({
      code: 'ERR_WAPP_NOT_INITIALIZED',
    });
  });

  test('Graph unreachable: TIMEOUT with the reason, never CONNECTED; asked again until it answers', async () => {
    // A port nobody listens on, then the fake Graph's: the retry connects once Graph answers.
    const rec = recordingSink();
    let config = storedConfig({ graphBaseUrl: 'http://127.0.0.1:9' });
    const channel = cloudApiChannel({
      whatsappId: 7,
      companyId: 3,
      get config() {
        return config;
      },
      sink: rec.sink,
      box,
      allowPrivateUrls: true,
      retryMs: 20,
    });
    await channel.start();
    expect(rec.states()[0]).toEqual({
      status: 'TIMEOUT',
      data: { reason: 'graph_unreachable', detail: expect.stringMatching(/unreachable/) },
    });
    config = storedConfig();
    await waitFor(() => rec.states().some((s) => s.status === 'CONNECTED'));
    expect(rec.states().at(-1)).toEqual({ status: 'CONNECTED', number: graph.displayPhoneNumber });
    await channel.stop();
  });

  test('a base URL that answers, but not like Graph, is DISCONNECTED with a clear reason', async () => {
    const servers: Server[] = [];
    const serve = async (handler: RequestListener) => {
      const server = createServer(handler);
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    try {
      const answers = [
        await serve((_q, r) => r.end('<html>It works!</html>')),
        await serve((_q, r) => r.end(JSON.stringify({ ok: true }))),
        await serve((_q, r) => r.end(JSON.stringify({ id: '999' }))),
      ];
      for (const base of answers) {
        const { states } = await started(storedConfig({ graphBaseUrl: base }));
        expect(states()).toEqual([
          {
            status: 'DISCONNECTED',
            data: {
              reason: 'not_graph',
              detail: expect.stringMatching(/did not answer like Meta's Graph API/),
            },
          },
        ]);
      }
    } finally {
      for (const s of servers) s.close();
    }
  });

  test('without ALLOW_PRIVATE_URLS a loopback base URL is refused at save, at start and at send time', async () => {
    expect(() =>
      sealCloudConfig({ phoneNumberId: '1', accessToken: 'x', appSecret: 'y', graphBaseUrl: graph.url }, box),
    ).toThrow(expect.objectContaining({ code: 'ERR_URL_NOT_ALLOWED', statusCode: 400 }));
    // Stored before this rule existed (or resolved to loopback later): refused when the channel starts.
    const rec = recordingSink();
    await cloudApiChannel({
      whatsappId: 7,
      companyId: 3,
      config: storedConfig(),
      sink: rec.sink,
      box,
    }).start();
    expect(rec.states()).toEqual([
      {
        status: 'DISCONNECTED',
        data: {
          reason: 'url_refused',
          detail: expect.stringMatching(/Graph API refused: 127\.0\.0\.1 is a loopback address/),
        },
      },
    ]);
    // And every Graph call refuses it too, before a byte is sent.
    const client = graphClient({
      graphBaseUrl: graph.url,
      apiVersion: 'v21.0',
      phoneNumberId: graph.phoneNumberId,
      accessToken: graph.token,
    });
    await expect(client.sendText('5511987654321', 'hi')).rejects.toMatchObject({
      code: 'ERR_SENDING_WAPP_MSG',
      message: expect.stringMatching(/refused/),
    });
    await expect(client.downloadMedia(graph.addMedia(Buffer.from('x'), 'image/jpeg'))).rejects.toMatchObject({
      code: 'ERR_WAPP_DOWNLOAD_MEDIA',
    });
    expect(graph.requests).toEqual([]);
  });

  test('an opened config works without a key; logout reports DISCONNECTED', async () => {
    const rec = recordingSink();
    const channel = cloudApiChannel({
      whatsappId: 7,
      companyId: 3,
      config: {
        phoneNumberId: graph.phoneNumberId,
        accessToken: graph.token,
        appSecret: 's',
        verifyToken: 'verify-token-123',
        graphBaseUrl: graph.url,
      },
      sink: rec.sink,
      allowPrivateUrls: true,
    });
    await channel.start();
    await channel.logout();
    expect(rec.states().map((s) => s.status)).toEqual(['CONNECTED', 'DISCONNECTED']);
    await expect(channel.markRead('1', ['wamid.x'])).rejects.toMatchObject({
      code: 'ERR_WAPP_NOT_INITIALIZED',
    });
  });
});

describe('sending', () => {
  test('text with a quote', async () => {
    const { channel } = await started();
    const sent = await channel.sendText('554188887777', 'Temos sim!', { quotedProviderId: 'wamid.IN1' });
    expect(sent.providerId).toMatch(/^wamid\./);
    expect(sent.timestamp).toBeInstanceOf(Date);
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: `/v21.0/${graph.phoneNumberId}/messages`,
      authorization: `Bearer ${graph.token}`,
      json: {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '554188887777',
        type: 'text',
        text: { preview_url: false, body: 'Temos sim!' },
        context: { message_id: 'wamid.IN1' },
      },
    });
  });

  test('media is uploaded, then sent by id (image with caption, voice note, document with name)', async () => {
    const { channel } = await started();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await channel.sendMedia('5511987654321', {
      mimetype: 'image/png',
      filename: 'a.png',
      data: png,
      caption: 'Veja',
    });
    const [upload, send] = graph.requests;
    expect(upload).toMatchObject({ method: 'POST', path: `/v21.0/${graph.phoneNumberId}/media` });
    expect(upload!.form).toMatchObject({ messaging_product: 'whatsapp', type: 'image/png' });
    const file = upload!.form!.file as { type: string; name: string; data: Buffer };
    expect([file.type, file.name, file.data.equals(png)]).toEqual(['image/png', 'a.png', true]);
    const mediaId = [...graph.media.keys()].at(-1)!;
    expect(send!.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511987654321',
      type: 'image',
      image: { id: mediaId, caption: 'Veja' },
    });

    graph.requests.length = 0;
    const ogg = Buffer.from('OggS fake opus');
    await channel.sendMedia(
      '5511987654321',
      { mimetype: 'audio/ogg; codecs=opus', filename: 'voice.ogg', data: ogg, asVoice: true },
      { quotedProviderId: 'wamid.Q' },
    );
    expect(graph.requests[1]!.json).toMatchObject({
      type: 'audio',
      audio: { id: expect.any(String), voice: true },
      context: { message_id: 'wamid.Q' },
    });
    expect(graph.requests).toHaveLength(2);

    graph.requests.length = 0;
    await channel.sendMedia('5511987654321', {
      mimetype: 'application/pdf',
      filename: 'boleto.pdf',
      data: Buffer.from('%PDF-1.4'),
      caption: 'Segue o boleto',
    });
    expect(graph.requests[1]!.json).toMatchObject({
      type: 'document',
      document: { id: expect.any(String), filename: 'boleto.pdf', caption: 'Segue o boleto' },
    });
  });

  test('an audio caption follows as its own text instead of being dropped', async () => {
    const { channel } = await started();
    await channel.sendMedia('5511987654321', {
      mimetype: 'audio/mpeg',
      filename: 'aviso.mp3',
      data: Buffer.from('ID3'),
      caption: 'Ouça o aviso',
    });
    expect(graph.requests.map((r) => r.json?.type ?? 'upload')).toEqual(['upload', 'audio', 'text']);
    expect(graph.requests[1]!.json!.audio).not.toHaveProperty('caption');
    expect(graph.requests[2]!.json!.text).toMatchObject({ body: 'Ouça o aviso' });
  });

  test('markRead sends a read status for the newest message', async () => {
    const { channel } = await started();
    await channel.markRead('5511987654321', ['wamid.A', 'wamid.B']);
    expect(graph.requests).toHaveLength(1);
    expect(lastRequest().json).toEqual({
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: 'wamid.B',
    });
  });

  test('a Graph error becomes ChannelError ERR_SENDING_WAPP_MSG with Meta message, no token', async () => {
    const { channel } = await started();
    graph.badNumbers.add('15550001111');
    const err = await channel.sendText('15550001111', 'oi').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'ERR_SENDING_WAPP_MSG',
      message: expect.stringContaining('(#131030) Recipient phone number not in allowed list'),
    });
    expect(String((err as Error).message)).not.toContain(graph.token);
    await expect(
      channel.sendMedia('15550001111', { mimetype: 'image/jpeg', filename: 'x.jpg', data: Buffer.from('x') }),
    ).rejects.toMatchObject({ code: 'ERR_SENDING_WAPP_MSG' });
  });

  test('unsupported operations and the number check', async () => {
    const { channel } = await started();
    await expect(channel.deleteMessage('5511987654321', 'wamid.X', true)).rejects.toMatchObject({
      code: 'ERR_DELETE_WAPP_MSG',
    });
    expect(channel.editMessage).toBeUndefined();
    expect(await channel.profilePicture('5511987654321')).toBeNull();
    expect(await channel.checkNumber('(41) 8888-7777')).toEqual({
      exists: true,
      replyTo: '5541988887777',
      number: '5541988887777',
    });
    expect(await channel.checkNumber('123')).toEqual({ exists: false });
  });
});

describe('handleWebhook', () => {
  const fixture = (name: string): unknown =>
    JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'));

  test('feeds messages then acks into the sink, only for its own number', async () => {
    const { channel, events } = await started();
    events.length = 0;
    await channel.handleWebhook(fixture('two-numbers'));
    await channel.handleWebhook(fixture('statuses'));
    expect(
      events.map((e) =>
        e.t === 'message' ? e.m.providerId : e.t === 'ack' ? `${e.a.providerId}:${e.a.ack}` : e.t,
      ),
    ).toEqual([
      'wamid.OURNUMBER1',
      'wamid.OUT1:1',
      'wamid.OUT1:2',
      'wamid.OUT1:3',
      'wamid.OUT2:4',
      'wamid.OUT3:0',
    ]);
  });

  test('inbound media downloads through Graph with the bearer token', async () => {
    const { channel, events } = await started();
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9]);
    const mediaId = graph.addMedia(jpeg, 'image/jpeg');
    const payload = fixture('media') as {
      entry: { changes: { value: { messages: { image?: { id: string } }[] } }[] }[];
    };
    payload.entry[0]!.changes[0]!.value.messages[0]!.image!.id = mediaId;
    events.length = 0;
    await channel.handleWebhook(payload);
    const image = events.find((e) => e.t === 'message' && e.m.mediaType === 'image');
    if (image?.t !== 'message') throw new Error('no image message');
    graph.requests.length = 0;
    const media = await image.m.media!();
    expect(media).toEqual({ data: jpeg, mimetype: 'image/jpeg', filename: `${mediaId}.jpg` });
    expect(graph.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ['GET', `/v21.0/${mediaId}`, `Bearer ${graph.token}`],
      ['GET', `/media-download/${mediaId}`, `Bearer ${graph.token}`],
    ]);

    // Media Meta no longer holds: a download error, not a crash.
    const video = events.find((e) => e.t === 'message' && e.m.mediaType === 'video');
    if (video?.t !== 'message') throw new Error('no video message');
    await expect(video.m.media!()).rejects.toMatchObject({ code: 'ERR_WAPP_DOWNLOAD_MEDIA' });
  });

  test("a media URL Graph names outside Meta's hosts is never fetched (no SSRF through media)", async () => {
    const internal: string[] = [];
    const secretServer = createServer((req, res) => {
      internal.push(req.url!);
      res.end('internal-secret');
    });
    await new Promise<void>((r) => secretServer.listen(0, '127.0.0.1', r));
    const secretUrl = `http://127.0.0.1:${(secretServer.address() as AddressInfo).port}/admin/secret`;
    try {
      const { channel, events } = await started();
      const mediaId = graph.addMedia(Buffer.from('x'), 'image/jpeg');
      graph.mediaUrls.set(mediaId, secretUrl);
      const payload = fixture('media') as {
        entry: { changes: { value: { messages: { image?: { id: string } }[] } }[] }[];
      };
      payload.entry[0]!.changes[0]!.value.messages[0]!.image!.id = mediaId;
      await channel.handleWebhook(payload);
      const image = events.find((e) => e.t === 'message' && e.m.mediaType === 'image');
      if (image?.t !== 'message') throw new Error('no image message');
      await expect(image.m.media!()).rejects.toMatchObject({
        code: 'ERR_WAPP_DOWNLOAD_MEDIA',
        message: expect.stringMatching(/not one of Meta's/),
      });
      expect(internal).toEqual([]);
    } finally {
      secretServer.close();
    }
  });

  test("media hosts: Meta's (https) always; the base URL's own origin only when customised with ALLOW_PRIVATE_URLS", () => {
    const meta = { graphBaseUrl: 'https://graph.facebook.com' };
    const local = { graphBaseUrl: 'http://127.0.0.1:4000', allowPrivate: true };
    const cases: [string, typeof meta | typeof local, boolean][] = [
      ['https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1', meta, true],
      ['https://mmg.whatsapp.net/v/t62/abc', meta, true],
      ['https://scontent.xx.fbcdn.net/v/abc.jpg', meta, true],
      ['https://graph.facebook.com/media/1', meta, true],
      ['http://lookaside.fbsbx.com/x', meta, false], // not https
      ['https://lookaside.fbsbx.com:8443/x', meta, false], // another port
      ['https://lookaside.fbsbx.com.evil.example/x', meta, false],
      ['https://evilfbcdn.net/x', meta, false],
      ['http://127.0.0.1:4000/media-download/1', meta, false],
      ['http://127.0.0.1:4000/media-download/1', local, true],
      ['http://127.0.0.1:4001/admin/secret', local, false], // same host, another port
      ['http://127.0.0.1:4000/media-download/1', { ...local, allowPrivate: false }, false],
    ];
    for (const [url, opts, ok] of cases)
      expect([url, mediaUrlProblem(new URL(url), opts) === null]).toEqual([url, ok]);
  });

  test('refuses to run before start', async () => {
    const rec = recordingSink();
    const channel: CloudApiChannel = cloudApiChannel({
      whatsappId: 7,
      companyId: 3,
      config: storedConfig(),
      sink: rec.sink,
      box,
      allowPrivateUrls: true,
    });
    await expect(channel.handleWebhook(fixture('text-with-quote'))).rejects.toMatchObject({
      code: 'ERR_WAPP_NOT_INITIALIZED',
    });
    expect(rec.events).toEqual([]);
  });
});
