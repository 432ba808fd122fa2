import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  BufferJSON,
  DisconnectReason,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
} from 'baileys';
import { openDatabase, type Database } from '../../../db/client.js';
import { channelAuth, companies, plans, whatsapps } from '../../../db/schema/index.js';
import { SEED_PLANS } from '../../../db/seed.js';
import { secretBox } from '../../../lib/crypto.js';
import {
  ChannelError,
  type AckUpdate,
  type ChannelSink,
  type InboundMessage,
  type StateUpdate,
} from '../../channel.js';
import { baileysChannel, type BaileysSocket } from './baileys-channel.js';

let database: Database;
let companyId: number;
const box = secretBox('channel-test-secret-0123456789abcdef');

beforeAll(async () => {
  database = await openDatabase({});
  await database.migrate();
  await database.db.insert(plans).values(SEED_PLANS[0]!);
  const [c] = await database.db
    .insert(companies)
    .values({ name: 'Channel Co', planId: SEED_PLANS[0]!.id })
    .returning({ id: companies.id });
  companyId = c!.id;
});
afterAll(() => database.close());
afterEach(() => {
  vi.useRealTimers();
});

/** Waits for queued work (sink calls, database writes) with room for a busy machine. */
const eventually = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 10_000, interval: 10 });

let seq = 0;
async function newConnection() {
  const [w] = await database.db
    .insert(whatsapps)
    .values({ companyId, name: `wa-${++seq}` })
    .returning({ id: whatsapps.id });
  return w!.id;
}
const authRows = (id: number) => database.db.select().from(channelAuth).where(eq(channelAuth.whatsappId, id));

function fixture(name: string): WAMessage {
  const raw = JSON.parse(
    readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'),
    BufferJSON.reviver,
  );
  if (raw.message) raw.message = proto.Message.fromObject(raw.message);
  return raw as WAMessage;
}
const withId = (m: WAMessage, id: string, text?: string): WAMessage => ({
  ...m,
  key: { ...m.key, id },
  ...(text ? { message: proto.Message.fromObject({ conversation: text }) } : {}),
});

/** A scripted stand-in for a Baileys socket: the test plays WhatsApp's side through `ev`. */
class FakeSocket {
  readonly ev = new EventEmitter();
  user: BaileysSocket['user'] = undefined;
  lids: Record<string, string> = {};
  readonly signalRepository = { lidMapping: { getPNForLID: async (lid: string) => this.lids[lid] ?? null } };
  readonly end = vi.fn(async (error: Error | undefined) => {
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  });
  readonly logout = vi.fn(async () => this.drop(DisconnectReason.loggedOut));
  readonly sendMessage = vi.fn(
    async (jid: string, content: unknown, opts?: { messageId?: string }): Promise<WAMessage> => {
      const text = (content as { text?: string }).text;
      return {
        key: { remoteJid: jid, fromMe: true, id: opts?.messageId ?? 'GENERATED' },
        messageTimestamp: 1732291300,
        ...(text ? { message: { conversation: text } } : {}),
      };
    },
  );
  readonly readMessages = vi.fn(async (_keys: WAMessageKey[]) => undefined);
  readonly onWhatsApp = vi.fn(
    async (..._n: string[]): Promise<{ jid: string; exists: boolean }[] | undefined> => [],
  );
  readonly profilePictureUrl = vi.fn(async (_jid: string): Promise<string | undefined> => undefined);
  readonly chatModify = vi.fn(async () => undefined);
  readonly updateMediaMessage = vi.fn(async (m: WAMessage) => m);
  constructor(readonly config: UserFacingSocketConfig) {}

  emit(event: string, arg: unknown) {
    this.ev.emit(event, arg);
  }
  qr(code: string) {
    this.emit('connection.update', { qr: code });
  }
  open(id = '551187654321:21@s.whatsapp.net', lid = '99887766554433:21@lid') {
    this.user = { id, lid };
    this.emit('connection.update', { connection: 'open' });
  }
  drop(statusCode: number) {
    const error = Object.assign(new Error('closed'), { output: { statusCode } });
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  }
  upsert(messages: WAMessage[], type: 'notify' | 'append' = 'notify') {
    this.emit('messages.upsert', { messages, type });
  }
}

function recordingSink(onMessage?: (m: InboundMessage) => Promise<void>) {
  const states: StateUpdate[] = [];
  const messages: InboundMessage[] = [];
  const acks: AckUpdate[] = [];
  const sink: ChannelSink = {
    async message(m) {
      await onMessage?.(m);
      messages.push(m);
    },
    async ack(a) {
      acks.push(a);
    },
    async state(s) {
      states.push(s);
    },
  };
  return { sink, states, messages, acks };
}

async function setup(opts: { sink?: ReturnType<typeof recordingSink>; maxQrCodes?: number } = {}) {
  const whatsappId = await newConnection();
  const rec = opts.sink ?? recordingSink();
  const sockets: FakeSocket[] = [];
  const log = { warn: vi.fn(), error: vi.fn(), info: vi.fn(), debug: vi.fn() };
  const channel = baileysChannel(
    { whatsappId, companyId, config: {}, sink: rec.sink, box },
    {
      db: database.db,
      log,
      maxQrCodes: opts.maxQrCodes,
      makeSocket: (config) => {
        const s = new FakeSocket(config);
        sockets.push(s);
        return s as unknown as BaileysSocket;
      },
    },
  );
  const last = () => sockets[sockets.length - 1]!;
  /** Lets queued sink calls run (they are chained promises). */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await new Promise((r) => setImmediate(r));
  };
  return { whatsappId, channel, sockets, last, settle, log, ...rec };
}

describe('connection state machine', () => {
  test('QR code, then open: qrcode state, then CONNECTED with the canonical own number', async () => {
    const t = await setup();
    await t.channel.start();
    expect(t.sockets).toHaveLength(1);
    const config = t.last().config;
    expect(config.markOnlineOnConnect).toBe(false);
    expect(config.syncFullHistory).toBe(false);
    expect(config.emitOwnEvents).toBe(false);
    expect(config.browser).toHaveLength(3);
    expect(config.auth?.creds.registered).toBe(false);

    t.last().emit('connection.update', { connection: 'connecting' });
    t.last().qr('2@qr-code-one');
    t.last().open();
    await t.settle();
    expect(t.states).toEqual([
      expect.objectContaining({ status: 'OPENING' }),
      expect.objectContaining({ status: 'qrcode', qrcode: '2@qr-code-one' }),
      { status: 'CONNECTED', number: '5511987654321', retries: 0, qrcode: '' },
    ]);
    expect(t.channel.status).toBe('CONNECTED');
    await t.channel.stop();
  });

  test('creds.update is saved, sealed, in channel_auth', async () => {
    const t = await setup();
    await t.channel.start();
    t.last().config.auth!.creds.me = { id: '5511987654321:21@s.whatsapp.net' };
    t.last().emit('creds.update', { me: { id: '5511987654321:21@s.whatsapp.net' } });
    await eventually(async () => expect(await authRows(t.whatsappId)).toHaveLength(1));
    const [row] = await authRows(t.whatsappId);
    expect(row!.key).toBe('creds');
    expect(row!.value).not.toContain('5511987654321');
    await t.channel.stop();
  });

  test('a drop reconnects with exponential back-off, capped, and resets once open', async () => {
    const t = await setup();
    await t.channel.start();
    t.last().open();
    await t.settle();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

    const expectDelay = async (ms: number, retries: number) => {
      const before = t.sockets.length;
      t.last().drop(DisconnectReason.connectionLost);
      await t.settle();
      expect(t.states.at(-1)).toEqual({ status: 'OPENING', retries, qrcode: '' });
      await vi.advanceTimersByTimeAsync(ms - 1);
      expect(t.sockets).toHaveLength(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(t.sockets).toHaveLength(before + 1);
    };
    await expectDelay(1000, 1);
    await expectDelay(2000, 2);
    await expectDelay(4000, 3);
    await expectDelay(8000, 4);
    await expectDelay(16000, 5);
    await expectDelay(32000, 6);
    await expectDelay(60000, 7); // 64 s capped
    await expectDelay(60000, 8);

    t.last().open();
    await t.settle();
    expect(t.states.at(-1)).toMatchObject({ status: 'CONNECTED', retries: 0 });
    await expectDelay(1000, 1);
    await t.channel.stop();
  });

  test('restart required (after pairing) reconnects at once without counting a retry', async () => {
    const t = await setup();
    await t.channel.start();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    t.last().drop(DisconnectReason.restartRequired);
    await t.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.sockets).toHaveLength(2);
    expect(t.states.at(-1)).toMatchObject({ status: 'OPENING', retries: 0 });
    await t.channel.stop();
  });

  test('logged out: credentials cleared, DISCONNECTED, no reconnection', async () => {
    const t = await setup();
    await t.channel.start();
    const auth = t.last().config.auth!;
    await auth.keys.set({ session: { '5511987654321.0': Buffer.from('s') } });
    t.last().emit('creds.update', {});
    await eventually(async () => expect(await authRows(t.whatsappId)).toHaveLength(2));
    t.last().open();
    await t.settle();

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    t.last().drop(DisconnectReason.loggedOut);
    await eventually(() => expect(t.states.at(-1)?.status).toBe('DISCONNECTED'));
    expect(t.states.at(-1)).toEqual({
      status: 'DISCONNECTED',
      qrcode: '',
      retries: 0,
      data: { reason: 'logged_out' },
    });
    expect(await authRows(t.whatsappId)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.sockets).toHaveLength(1);
    await expect(t.channel.sendText('5511987654321@s.whatsapp.net', 'oi')).rejects.toMatchObject({
      code: 'ERR_WAPP_NOT_INITIALIZED',
    });
  });

  test('QR codes nobody scans end in TIMEOUT, without reconnecting', async () => {
    const t = await setup({ maxQrCodes: 3 });
    await t.channel.start();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    for (const code of ['qr1', 'qr2', 'qr3', 'qr4']) t.last().qr(code);
    await t.settle();
    expect(t.states.filter((s) => s.status === 'qrcode').map((s) => s.qrcode)).toEqual(['qr1', 'qr2', 'qr3']);
    expect(t.states.at(-1)).toMatchObject({
      status: 'TIMEOUT',
      qrcode: '',
      data: { reason: 'qrcode_not_scanned' },
    });
    expect(t.last().end).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.sockets).toHaveLength(1);
  });

  test('QR codes expiring across reconnects still count towards TIMEOUT', async () => {
    const t = await setup({ maxQrCodes: 4 });
    await t.channel.start();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    t.last().qr('a');
    t.last().qr('b');
    t.last().drop(DisconnectReason.timedOut); // WhatsApp ran out of QR refs
    await t.settle();
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.sockets).toHaveLength(2);
    t.last().qr('c');
    t.last().qr('d');
    t.last().drop(DisconnectReason.timedOut);
    await t.settle();
    expect(t.states.at(-1)).toMatchObject({ status: 'TIMEOUT' });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.sockets).toHaveLength(2);
  });

  test('stop() ends the socket without logging out; later events are ignored', async () => {
    const t = await setup();
    await t.channel.start();
    const s = t.last();
    s.open();
    await t.settle();
    await t.channel.stop();
    expect(s.end).toHaveBeenCalled();
    expect(s.logout).not.toHaveBeenCalled();
    s.upsert([fixture('text-conversation')]);
    s.drop(DisconnectReason.connectionLost);
    await t.settle();
    expect(t.messages).toHaveLength(0);
    expect(t.sockets).toHaveLength(1);
    expect(t.states.at(-1)?.status).toBe('CONNECTED');
  });

  test('logout() logs out on the phone, clears the credentials and reports DISCONNECTED', async () => {
    const t = await setup();
    await t.channel.start();
    t.last().emit('creds.update', {});
    await eventually(async () => expect(await authRows(t.whatsappId)).toHaveLength(1));
    t.last().open();
    await t.settle();
    await t.channel.logout();
    expect(t.last().logout).toHaveBeenCalled();
    expect(await authRows(t.whatsappId)).toHaveLength(0);
    expect(t.states.filter((s) => s.status === 'DISCONNECTED')).toHaveLength(1);
  });
});

describe('inbound', () => {
  test('messages of both upsert types reach the sink in order, one at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const rec = recordingSink(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    });
    const t = await setup({ sink: rec });
    await t.channel.start();
    t.last().open();
    const base = fixture('text-conversation');
    t.last().upsert(
      [withId(base, 'M1', 'um'), fixture('status-broadcast'), withId(base, 'M2', 'dois')],
      'append',
    );
    t.last().upsert([withId(base, 'M3', 'três')], 'notify');
    t.last().upsert([withId(fixture('group'), 'M4')], 'notify');
    await eventually(() => expect(t.messages).toHaveLength(4));
    expect(t.messages.map((m) => [m.providerId, m.body])).toEqual([
      ['M1', 'um'],
      ['M2', 'dois'],
      ['M3', 'três'],
      ['M4', 'Bom dia, grupo!'],
    ]);
    expect(maxInFlight).toBe(1);
    await t.channel.stop();
  });

  test('a sink failure is retried, and the messages behind it wait', async () => {
    let failures = 1;
    const rec = recordingSink(async (m) => {
      if (m.providerId === 'A' && failures-- > 0) throw new Error('db busy');
    });
    const t = await setup({ sink: rec });
    await t.channel.start();
    const base = fixture('text-conversation');
    t.last().upsert([withId(base, 'A', 'a'), withId(base, 'B', 'b')]);
    await eventually(() => expect(t.messages.map((m) => m.providerId)).toEqual(['A', 'B']));
    expect(t.log.warn).toHaveBeenCalledTimes(1);
    expect(t.log.error).not.toHaveBeenCalled();
    await t.channel.stop();
  });

  test('a LID sender without alternate is resolved through Baileys’ LID mapping', async () => {
    const t = await setup();
    await t.channel.start();
    t.last().lids['187654321098765@lid'] = '551176543210@s.whatsapp.net';
    t.last().open();
    t.last().upsert([fixture('lid-without-alt')]);
    await eventually(() => expect(t.messages).toHaveLength(1));
    expect(t.messages[0]).toMatchObject({
      from: '5511976543210',
      lid: '187654321098765@lid',
      replyTo: '551176543210@s.whatsapp.net',
    });
    await t.channel.stop();
  });

  test('acks of our messages are mapped; statuses of received messages are not acks', async () => {
    const t = await setup();
    await t.channel.start();
    t.last().open();
    const S = proto.WebMessageInfo.Status;
    const key = (id: string, fromMe = true) => ({ remoteJid: '5511987654321@s.whatsapp.net', fromMe, id });
    t.last().emit('messages.update', [
      { key: key('S1'), update: { status: S.SERVER_ACK } },
      { key: key('S1'), update: { status: S.DELIVERY_ACK } },
      { key: key('S1'), update: { status: S.READ } },
      { key: key('S2'), update: { status: S.PLAYED } },
      { key: key('S4'), update: { status: S.ERROR } },
      { key: key('IN', false), update: { status: S.READ } },
      { key: key('S3'), update: { message: null, messageStubType: 1 } },
    ]);
    await eventually(() => expect(t.acks).toHaveLength(5));
    await t.settle();
    expect(t.acks).toEqual([
      { providerId: 'S1', ack: 1 },
      { providerId: 'S1', ack: 2 },
      { providerId: 'S1', ack: 3 },
      { providerId: 'S2', ack: 4 },
      { providerId: 'S4', ack: 0 },
    ]);
    await t.channel.stop();
  });

  test('a call offer arrives as a call log message', async () => {
    const t = await setup();
    await t.channel.start();
    const raw = JSON.parse(readFileSync(new URL('./fixtures/call-offer.json', import.meta.url), 'utf8'));
    t.last().emit('call', [
      { ...raw, date: new Date(raw.date) },
      { ...raw, status: 'terminate', date: new Date(raw.date) },
    ]);
    await eventually(() => expect(t.messages).toHaveLength(1));
    expect(t.messages[0]).toMatchObject({ kind: 'call', mediaType: 'call_log', from: '5511987654321' });
    await t.channel.stop();
  });
});

describe('outbound', () => {
  async function connected() {
    const t = await setup();
    await t.channel.start();
    t.last().open();
    await t.settle();
    return t;
  }

  test('sending before the socket is open is ERR_WAPP_NOT_INITIALIZED', async () => {
    const t = await setup();
    await t.channel.start();
    const err = await t.channel.sendText('5511987654321@s.whatsapp.net', 'oi').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelError);
    expect((err as ChannelError).code).toBe('ERR_WAPP_NOT_INITIALIZED');
    await t.channel.stop();
  });

  test('sendText quotes the received message and its echo is not taken for an inbound one', async () => {
    const t = await connected();
    const received = fixture('text-conversation');
    t.last().upsert([received]);
    await eventually(() => expect(t.messages).toHaveLength(1));

    const res = await t.channel.sendText('5511987654321@s.whatsapp.net', 'Já verifico', {
      quotedProviderId: '3EB0A1B2C3D4E5F60718',
    });
    const [jid, content, opts] = t.last().sendMessage.mock.calls[0]! as unknown as [
      string,
      unknown,
      { messageId: string; quoted: WAMessage },
    ];
    expect(jid).toBe('5511987654321@s.whatsapp.net');
    expect(content).toEqual({ text: 'Já verifico' });
    expect(opts.quoted.key.id).toBe('3EB0A1B2C3D4E5F60718');
    expect(opts.quoted.message?.conversation).toBe('Olá, quero saber do meu pedido');
    expect(res.providerId).toBe(opts.messageId);
    expect(res.timestamp).toEqual(new Date(1732291300 * 1000));

    // Baileys (or the phone) echoing our own send back must not create an inbound copy.
    t.last().upsert(
      [
        {
          key: { remoteJid: jid, fromMe: true, id: res.providerId },
          message: { conversation: 'Já verifico' },
        },
      ],
      'append',
    );
    t.last().upsert([withId(received, 'AFTER', 'depois')]);
    await eventually(() => expect(t.messages).toHaveLength(2));
    expect(t.messages[1]!.providerId).toBe('AFTER');
    // Resend requests find what we sent.
    expect(await t.last().config.getMessage!({ id: res.providerId })).toEqual({
      conversation: 'Já verifico',
    });
    expect(await t.last().config.getMessage!({ id: 'NEVER-SEEN' })).toBeUndefined();
    await t.channel.stop();
  });

  test('sendMedia picks the message kind from the mimetype', async () => {
    const t = await connected();
    const data = Buffer.from('x');
    await t.channel.sendMedia('5511987654321@s.whatsapp.net', {
      mimetype: 'audio/ogg',
      filename: 'a.ogg',
      data,
      asVoice: true,
    });
    await t.channel.sendMedia('5511987654321@s.whatsapp.net', {
      mimetype: 'image/png',
      filename: 'p.png',
      data,
      caption: 'c',
    });
    await t.channel.sendMedia('5511987654321@s.whatsapp.net', {
      mimetype: 'video/mp4',
      filename: 'v.mp4',
      data,
    });
    await t.channel.sendMedia('5511987654321', {
      mimetype: 'application/pdf',
      filename: 'boleto.pdf',
      data,
      caption: 'ok',
    });
    const calls = t.last().sendMessage.mock.calls.map((c) => [c[0], c[1]]);
    expect(calls).toEqual([
      ['5511987654321@s.whatsapp.net', { audio: data, mimetype: 'audio/ogg; codecs=opus', ptt: true }],
      ['5511987654321@s.whatsapp.net', { image: data, mimetype: 'image/png', caption: 'c' }],
      ['5511987654321@s.whatsapp.net', { video: data, mimetype: 'video/mp4', caption: undefined }],
      [
        '5511987654321@s.whatsapp.net',
        { document: data, mimetype: 'application/pdf', fileName: 'boleto.pdf', caption: 'ok' },
      ],
    ]);
    await t.channel.stop();
  });

  test('a failing send is ERR_SENDING_WAPP_MSG', async () => {
    const t = await connected();
    t.last().sendMessage.mockRejectedValueOnce(new Error('socket closed'));
    await expect(t.channel.sendText('5511987654321@s.whatsapp.net', 'x')).rejects.toMatchObject({
      code: 'ERR_SENDING_WAPP_MSG',
    });
    await t.channel.stop();
  });

  test('markRead, delete for everyone and edit address the right keys', async () => {
    const t = await connected();
    const group = fixture('group');
    t.last().upsert([group]);
    await eventually(() => expect(t.messages).toHaveLength(1));
    await t.channel.markRead('120363041234567890@g.us', ['3AA9B8C7D6E5F4031201']);
    expect(t.last().readMessages).toHaveBeenCalledWith([
      expect.objectContaining({ id: '3AA9B8C7D6E5F4031201', participant: '203838457876552@lid' }),
    ]);

    await t.channel.deleteMessage('5511987654321@s.whatsapp.net', 'MINE', true);
    expect(t.last().sendMessage).toHaveBeenLastCalledWith('5511987654321@s.whatsapp.net', {
      delete: { remoteJid: '5511987654321@s.whatsapp.net', id: 'MINE', fromMe: true },
    });
    await t.channel.editMessage!('5511987654321@s.whatsapp.net', 'MINE', 'corrigido');
    expect(t.last().sendMessage).toHaveBeenLastCalledWith('5511987654321@s.whatsapp.net', {
      text: 'corrigido',
      edit: { remoteJid: '5511987654321@s.whatsapp.net', id: 'MINE', fromMe: true },
    });
    await t.channel.stop();
  });

  test('checkNumber tries the legacy Brazilian form and answers with WhatsApp’s JID', async () => {
    const t = await connected();
    t.last().onWhatsApp.mockResolvedValueOnce([{ jid: '551187654321@s.whatsapp.net', exists: true }]);
    expect(await t.channel.checkNumber('(11) 98765-4321')).toEqual({
      exists: true,
      replyTo: '551187654321@s.whatsapp.net',
      number: '5511987654321',
    });
    expect(t.last().onWhatsApp).toHaveBeenCalledWith('5511987654321', '551187654321');
    t.last().onWhatsApp.mockResolvedValueOnce([]);
    expect(await t.channel.checkNumber('+1 415 555 0100')).toEqual({ exists: false });
    expect(t.last().onWhatsApp).toHaveBeenLastCalledWith('14155550100');
    await t.channel.stop();
  });

  test('profilePicture is null on error; addressBook lists contacts with a phone number', async () => {
    const t = await connected();
    t.last().profilePictureUrl.mockRejectedValueOnce(new Error('item-not-found'));
    expect(await t.channel.profilePicture('5511987654321@s.whatsapp.net')).toBeNull();
    t.last().profilePictureUrl.mockResolvedValueOnce('https://pps.whatsapp.net/v/t61/x.jpg');
    expect(await t.channel.profilePicture('5511987654321@s.whatsapp.net')).toBe(
      'https://pps.whatsapp.net/v/t61/x.jpg',
    );

    t.last().emit('contacts.upsert', [
      { id: '551187654321@s.whatsapp.net', name: 'Carlos' },
      { id: '187654321098765@lid', notify: 'Só LID' },
      { id: '203838457876552@lid', phoneNumber: '5521998765432@s.whatsapp.net', notify: 'Ana' },
      { id: '120363041234567890@g.us', name: 'Grupo' },
    ]);
    t.last().emit('contacts.update', [{ id: '203838457876552@lid', name: 'Ana Lima' }]);
    const book = await t.channel.addressBook!();
    expect(book.sort((a, b) => a.number.localeCompare(b.number))).toEqual([
      { number: '5511987654321', name: 'Carlos' },
      { number: '5521998765432', name: 'Ana Lima' },
    ]);
    await t.channel.stop();
  });
});
