import makeWASocket, {
  Browsers,
  DisconnectReason,
  downloadMediaMessage,
  generateMessageIDV2,
  isLidUser,
  isPnUser,
  jidDecode,
  jidNormalizedUser,
  makeCacheableSignalKeyStore,
  type AnyMessageContent,
  type BaileysEventEmitter,
  type ConnectionState,
  type Contact,
  type UserFacingSocketConfig,
  type WACallEvent,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
} from 'baileys';
import { pino } from 'pino';
import { legacyBrazilianNumber, normalizeNumber } from '@recado/contracts';
import type { Db } from '../../../db/client.js';
import type { SecretBox } from '../../../lib/crypto.js';
import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type ChannelFactory,
  type MediaPayload,
  type OutboundOptions,
  type SendResult,
  type StateUpdate,
} from '../../channel.js';
// #33.3 What WhatsApp delivers on reconnect is kept in the database until stored.
import { baileysInboxStore, oldestFirst, type InboxSource } from './baileys-inbox.js';
import { dbAuthState, type DbAuthState } from './baileys-auth-store.js';
import { mapAckStatus, mapCall, mapMessage, resolveAddress } from './baileys-mapping.js';
import { watchLidEvents } from './baileys-lid-events.js';

/** The part of a Baileys socket this channel uses (what a test's fake socket must provide). */
export type BaileysSocket = Pick<
  WASocket,
  | 'user'
  | 'end'
  | 'logout'
  | 'sendMessage'
  | 'readMessages'
  | 'onWhatsApp'
  | 'profilePictureUrl'
  | 'chatModify'
  | 'updateMediaMessage'
  // #33.4 Calls the connection rejects.
  | 'rejectCall'
> & {
  ev: Pick<BaileysEventEmitter, 'on'>;
  signalRepository?: { lidMapping: { getPNForLID(lid: string): Promise<string | null> } };
};
export type MakeSocket = (config: UserFacingSocketConfig) => BaileysSocket;

type Log = Pick<pino.Logger, 'warn' | 'error' | 'info' | 'debug'>;

export interface BaileysDeps {
  db: Db;
  /** secretBox(APP_SECRET) sealing the session state at rest; defaults to the context's. */
  box?: SecretBox;
  /** Defaults to makeWASocket; tests inject a scripted socket. */
  makeSocket?: MakeSocket;
  /** Our own log lines (sink failures, reconnections). */
  log?: Log;
  /** Baileys' internal logger; silent by default (it logs per stanza). */
  baileysLogger?: UserFacingSocketConfig['logger'];
  /** Reconnection back-off: baseMs · 2^(retries-1), capped at maxMs. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** QR codes shown without pairing before the session gives up with TIMEOUT. */
  maxQrCodes?: number;
}

const RECENT_CAP = 2000;
const SINK_ATTEMPTS = 3;

/**
 * A WhatsApp Web (multi-device) session through Baileys 7.
 * - State: QR → `qrcode`; connecting → OPENING; open → CONNECTED; a drop reconnects with back-off and
 *   reports OPENING with `retries`; logged out → credentials cleared, DISCONNECTED; too many unscanned
 *   QR codes → TIMEOUT (no reconnection until the session is started again).
 * - Inbound: `messages.upsert` of both types (notify = live, append = what arrived while offline and what
 *   was sent from the phone) goes to the sink one at a time in arrival order, each awaited, with acks and
 *   calls in the same queue, so a chat's order is the order WhatsApp delivered it.
 */
export function baileysChannel(
  ctx: ChannelContext,
  deps: BaileysDeps,
): Channel & { readonly status: StateUpdate['status'] } {
  const { whatsappId, sink } = ctx;
  const makeSocket: MakeSocket = deps.makeSocket ?? ((config) => makeWASocket(config));
  const log: Log = deps.log ?? pino({ level: 'warn', base: { whatsappId } });
  const baileysLogger = deps.baileysLogger ?? pino({ level: 'silent' });
  const baseMs = deps.backoff?.baseMs ?? 1000;
  const maxMs = deps.backoff?.maxMs ?? 60_000;
  const maxQrCodes = deps.maxQrCodes ?? 5;
  const box = deps.box ?? ctx.box;
  const loadAuth = () => {
    if (!box) throw new Error('baileys channel needs a secret box (APP_SECRET) for its session state');
    return dbAuthState(deps.db, whatsappId, box);
  };

  let sock: BaileysSocket | null = null;
  let auth: DbAuthState | null = null;
  let connected = false;
  let running = false;
  /** Events of an older socket (one we replaced or ended) are ignored. */
  let generation = 0;
  let retries = 0;
  let qrCount = 0;
  let status: StateUpdate['status'] = 'DISCONNECTED';
  let reconnectTimer: NodeJS.Timeout | undefined;

  /** Recent messages both ways: quoting, read receipts and Baileys' resend requests need the original. */
  const recent = new Map<string, WAMessage>();
  const sentHere = new Set<string>();
  const remember = (m: WAMessage) => {
    if (!m.key?.id) return;
    recent.delete(m.key.id);
    recent.set(m.key.id, m);
    if (recent.size > RECENT_CAP) {
      const oldest = recent.keys().next().value!;
      recent.delete(oldest);
      sentHere.delete(oldest);
    }
  };
  const contacts = new Map<string, Contact>();

  // One queue for everything that reaches the sink: states, messages, acks, calls.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (what: string, fn: () => Promise<void>) => {
    queue = queue.then(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn();
        } catch (err) {
          if (attempt >= SINK_ATTEMPTS) {
            log.error({ err, whatsappId, what }, 'baileys: sink failed, giving up');
            return;
          }
          log.warn({ err, whatsappId, what, attempt }, 'baileys: sink failed, retrying');
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    });
    return queue;
  };
  const setState = (s: StateUpdate) => {
    status = s.status;
    return enqueue(`state ${s.status}`, () => sink.state(s));
  };

  const ownNumber = (s: BaileysSocket) => {
    const user = jidDecode(s.user?.id)?.user;
    return user ? normalizeNumber(user) : '';
  };

  /** Fills in the phone number of a LID sender from Baileys' mapping store when the message lacks it. */
  async function resolveLids(s: BaileysSocket, msg: WAMessage) {
    const lidMapping = s.signalRepository?.lidMapping;
    const key = msg.key;
    if (!lidMapping || !key) return;
    const mine = (jid?: string | null) =>
      !!jid &&
      (jidDecode(jid)?.user === jidDecode(s.user?.id)?.user ||
        jidDecode(jid)?.user === jidDecode(s.user?.lid)?.user);
    const lookup = async (lid: string) => {
      try {
        return await lidMapping.getPNForLID(lid);
      } catch {
        return null;
      }
    };
    if (key.remoteJid?.endsWith('@g.us')) {
      if (isLidUser(key.participant ?? undefined) && !isPnUser(key.participantAlt)) {
        const pn = await lookup(key.participant!);
        if (pn) key.participantAlt = pn;
      }
    } else if (isLidUser(key.remoteJid ?? undefined)) {
      const alt = key.remoteJidAlt;
      if (!isPnUser(alt) || (key.fromMe && mine(alt))) {
        const pn = await lookup(key.remoteJid!);
        if (pn && !mine(pn)) key.remoteJidAlt = pn;
        else if (key.fromMe && mine(alt)) delete key.remoteJidAlt;
      }
    }
  }

  /**
   * One message to the sink, in the queue. #33.3 `recovered`: delivered on reconnect (offline notifications,
   * history sync) and kept in the inbox (`inboxId`) until the sink took it; `s` null for what a previous
   * owner left there (the socket of the moment then serves LIDs and media).
   */
  const deliverMessage = (
    s0: BaileysSocket | null,
    msg: WAMessage,
    recovered?: InboxSource,
    inboxId?: Promise<number | null | undefined>,
  ) =>
    enqueue(`message ${msg.key?.id}`, async () => {
      const s = s0 ?? sock;
      const finish = async () => {
        const id = await inboxId;
        if (id) await inbox.done([id]);
      };
      if (msg.key?.id && sentHere.has(msg.key.id)) return finish(); // our own send echoed back
      if (s) await resolveLids(s, msg);
      remember(msg);
      const mapped = mapMessage(msg, {
        me: { id: s?.user?.id, lid: s?.user?.lid },
        download: (m) =>
          downloadMediaMessage(
            m,
            'buffer',
            {},
            {
              reuploadRequest: (x) => (s ?? requireSock()).updateMediaMessage(x),
              logger: baileysLogger,
            },
          ),
      });
      if (mapped) await sink.message(recovered ? { ...mapped, recovered } : mapped);
      await finish();
    });

  // #33.3 Offline notifications and history sync: into the inbox at once, then through the queue in order.
  const inbox = baileysInboxStore(deps.db, whatsappId);
  const deliverRecovered = (s: BaileysSocket, list: WAMessage[], source: InboxSource) => {
    const saved = inbox.save(list, source).catch((err) => {
      log.warn({ err, whatsappId }, 'baileys: inbox not written; storing straight away');
      return [] as (number | null)[];
    });
    list.forEach(
      (msg, i) =>
        void deliverMessage(
          s,
          msg,
          source,
          saved.then((ids) => ids[i]),
        ),
    );
  };
  /** What a previous owner of the connection received and did not store (a crash): first in the queue. */
  async function drainInbox() {
    for (const left of await inbox.left())
      void deliverMessage(null, left.message, left.source, Promise.resolve(left.id));
  }

  function scheduleReconnect(immediate: boolean) {
    if (!immediate) retries++;
    const delay = immediate ? 0 : Math.min(baseMs * 2 ** (retries - 1), maxMs);
    void setState({ status: 'OPENING', retries, qrcode: '' });
    log.info({ whatsappId, retries, delay }, 'baileys: reconnecting');
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect().catch((err) => {
        log.error({ err, whatsappId }, 'baileys: reconnect failed');
        if (running) scheduleReconnect(false);
      });
    }, delay);
  }

  function detach() {
    generation++;
    connected = false;
    const s = sock;
    sock = null;
    return s;
  }

  async function timeout() {
    running = false;
    const s = detach();
    await s?.end(undefined).catch(() => undefined);
    await setState({ status: 'TIMEOUT', qrcode: '', retries, data: { reason: 'qrcode_not_scanned' } });
  }

  async function onConnection(s: BaileysSocket, u: Partial<ConnectionState>) {
    if (u.qr) {
      qrCount++;
      if (qrCount > maxQrCodes) return timeout();
      await setState({ status: 'qrcode', qrcode: u.qr, retries });
    }
    if (u.connection === 'connecting') await setState({ status: 'OPENING', retries, qrcode: '' });
    if (u.connection === 'open') {
      connected = true;
      retries = 0;
      qrCount = 0;
      await setState({ status: 'CONNECTED', number: ownNumber(s), retries: 0, qrcode: '' });
    }
    if (u.connection === 'close') {
      detach();
      if (!running) return;
      const error = u.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined;
      const code = error?.output?.statusCode;
      if (code === DisconnectReason.loggedOut) {
        // The phone removed this device: the credentials are worthless now.
        running = false;
        await auth?.clear();
        auth = null;
        await setState({ status: 'DISCONNECTED', qrcode: '', retries: 0, data: { reason: 'logged_out' } });
        return;
      }
      if (code === DisconnectReason.connectionReplaced || code === DisconnectReason.forbidden) {
        // Another client took the session (or the number is barred): fighting back would loop.
        running = false;
        log.warn({ whatsappId, code }, 'baileys: session replaced or forbidden');
        await setState({
          status: 'DISCONNECTED',
          qrcode: '',
          retries,
          data: { reason: code === DisconnectReason.forbidden ? 'forbidden' : 'replaced' },
        });
        return;
      }
      if (!auth?.state.creds.registered && qrCount >= maxQrCodes) {
        running = false;
        await setState({ status: 'TIMEOUT', qrcode: '', retries, data: { reason: 'qrcode_not_scanned' } });
        return;
      }
      // After pairing WhatsApp asks for a restart: that is not a failure.
      scheduleReconnect(code === DisconnectReason.restartRequired);
    }
  }

  async function connect() {
    if (!running) return;
    auth ??= await loadAuth();
    const current = auth;
    const gen = ++generation;
    const s = makeSocket({
      auth: {
        creds: current.state.creds,
        keys: makeCacheableSignalKeyStore(current.state.keys, baileysLogger),
      },
      browser: Browsers.ubuntu('Chrome'),
      logger: baileysLogger,
      markOnlineOnConnect: false,
      syncFullHistory: false,
      // Messages sent through this socket are stored by the sender; their echo must not come back as inbound.
      emitOwnEvents: false,
      getMessage: async (key: WAMessageKey) =>
        key.id ? (recent.get(key.id)?.message ?? undefined) : undefined,
    });
    sock = s;
    const live = () => gen === generation;
    s.ev.on('connection.update', (u) => {
      if (live())
        void onConnection(s, u).catch((err) =>
          log.error({ err, whatsappId }, 'baileys: state handling failed'),
        );
    });
    s.ev.on('creds.update', () => {
      if (live())
        void current
          .saveCreds()
          .catch((err) => log.error({ err, whatsappId }, 'baileys: saving creds failed'));
    });
    s.ev.on('messages.upsert', ({ messages, type }) => {
      if (!live()) return;
      // #33.3 'append': what WhatsApp held while we were away (to customers and from the phone itself).
      if (type === 'append') deliverRecovered(s, messages, 'offline');
      else for (const msg of messages) void deliverMessage(s, msg);
    });
    s.ev.on('messages.update', (updates) => {
      if (!live()) return;
      for (const { key, update } of updates) {
        // Our own sends only: a status on a received message is our reading it.
        if (update.status == null || !key.id || key.fromMe === false) continue;
        const ack = mapAckStatus(update.status);
        const providerId = key.id;
        if (ack !== null) void enqueue(`ack ${providerId}`, () => sink.ack({ providerId, ack }));
      }
    });
    s.ev.on('call', (calls: WACallEvent[]) => {
      if (!live()) return;
      for (const c of calls) {
        const mapped = mapCall(c);
        // #33.4 The pipeline rejects it when the connection says so (and says why to the caller).
        const reject = async (text: string) => {
          if (!live()) return null;
          await s.rejectCall(c.id, c.from);
          return text && mapped ? send(mapped.replyTo, { text }) : null;
        };
        if (mapped) void enqueue(`call ${c.id}`, () => sink.message({ ...mapped, reject }));
      }
    });
    const keepContacts = (list: Partial<Contact>[]) => {
      for (const c of list) if (c.id) contacts.set(c.id, { ...contacts.get(c.id), ...c } as Contact);
    };
    s.ev.on('contacts.upsert', (list) => live() && keepContacts(list));
    s.ev.on('contacts.update', (list) => live() && keepContacts(list));
    s.ev.on('messaging-history.set', ({ contacts: list, messages }) => {
      if (!live()) return;
      keepContacts(list);
      // #33.3 Only what was sent during the last outage is kept (the pipeline decides); duplicates are no-ops.
      if (messages?.length) deliverRecovered(s, oldestFirst(messages), 'history');
    });
    // #33.6 Every event that pairs a LID with its phone (baileys-lid-events.ts), in the sink's queue.
    watchLidEvents(s.ev, live, (pairs, source) => {
      if (sink.lids) void enqueue(`lids ${source}`, () => sink.lids!(pairs, source));
    });
  }

  const requireSock = (): BaileysSocket => {
    if (!sock || !connected) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED');
    return sock;
  };
  const toJid = (to: string) =>
    to.includes('@') ? jidNormalizedUser(to) : `${to.replace(/\D/g, '')}@s.whatsapp.net`;
  const quotedFor = (jid: string, id: string | undefined): WAMessage | undefined => {
    if (!id) return undefined;
    // Unknown here (sent before a restart): WhatsApp still links the quote by id, without its preview text.
    return recent.get(id) ?? { key: { remoteJid: jid, id, fromMe: false }, message: { conversation: '' } };
  };

  async function send(to: string, content: AnyMessageContent, opts?: OutboundOptions): Promise<SendResult> {
    const s = requireSock();
    const jid = toJid(to);
    // A caller-chosen id (campaign sends) makes a resend after a crash the same message for WhatsApp.
    const messageId = opts?.providerId ?? generateMessageIDV2(s.user?.id);
    sentHere.add(messageId);
    let sent: WAMessage | undefined;
    try {
      // #32.9 A forward shows "Encaminhada" on the phone (contextInfo.isForwarded).
      const marked = opts?.forwarded
        ? ({ ...content, contextInfo: { isForwarded: true, forwardingScore: 1 } } as AnyMessageContent)
        : content;
      sent = await s.sendMessage(jid, marked, { messageId, quoted: quotedFor(jid, opts?.quotedProviderId) });
    } catch (err) {
      sentHere.delete(messageId);
      throw new ChannelError('ERR_SENDING_WAPP_MSG', (err as Error)?.message);
    }
    if (!sent?.key?.id) throw new ChannelError('ERR_SENDING_WAPP_MSG');
    remember(sent);
    sentHere.add(sent.key.id);
    const ts = Number(sent.messageTimestamp ?? 0);
    return { providerId: sent.key.id, timestamp: ts ? new Date(ts * 1000) : new Date() };
  }

  function mediaContent(media: MediaPayload & { caption?: string; asVoice?: boolean }): AnyMessageContent {
    const { data, mimetype, filename, caption } = media;
    const top = mimetype.split('/')[0];
    if (top === 'image' && mimetype !== 'image/svg+xml') return { image: data, mimetype, caption };
    if (top === 'video') return { video: data, mimetype, caption };
    if (top === 'audio') {
      // Voice notes must be Opus in OGG to play as such on the phone.
      const voiceMime = mimetype.startsWith('audio/ogg') ? 'audio/ogg; codecs=opus' : mimetype;
      return media.asVoice ? { audio: data, mimetype: voiceMime, ptt: true } : { audio: data, mimetype };
    }
    return { document: data, mimetype, fileName: filename, caption };
  }

  return {
    kind: 'baileys',
    chosenIds: true,
    get status() {
      return status;
    },

    async start() {
      if (running) return;
      running = true;
      retries = 0;
      qrCount = 0;
      try {
        // #33.3 What a previous owner received and did not store goes first.
        await drainInbox();
        await connect();
      } catch (err) {
        running = false;
        throw err;
      }
    },

    async stop() {
      running = false;
      clearTimeout(reconnectTimer);
      const s = detach();
      await s?.end(undefined).catch(() => undefined);
      await queue; // what was already received reaches the sink before the lease is handed over
    },

    async logout() {
      running = false;
      clearTimeout(reconnectTimer);
      const s = detach();
      if (s)
        await s.logout().catch((err) => log.warn({ err, whatsappId }, 'baileys: logout on the phone failed'));
      const a = auth ?? (await loadAuth().catch(() => null));
      await a?.clear();
      auth = null;
      await setState({ status: 'DISCONNECTED', qrcode: '', retries: 0 });
      await queue;
    },

    sendText: (to, body, opts) => send(to, { text: body }, opts),

    sendMedia: (to, media, opts) => send(to, mediaContent(media), opts),

    async markRead(to, providerIds) {
      const s = requireSock();
      const jid = toJid(to);
      const keys = providerIds.map((id) => recent.get(id)?.key ?? { remoteJid: jid, id, fromMe: false });
      if (keys.length) await s.readMessages(keys);
    },

    async deleteMessage(to, providerId, fromMe) {
      const s = requireSock();
      const jid = toJid(to);
      const key = recent.get(providerId)?.key ?? { remoteJid: jid, id: providerId, fromMe };
      try {
        if (fromMe) await s.sendMessage(jid, { delete: { ...key, fromMe: true } });
        else
          await s.chatModify(
            { deleteForMe: { key, deleteMedia: false, timestamp: Math.floor(Date.now() / 1000) } },
            jid,
          );
      } catch (err) {
        throw new ChannelError('ERR_DELETE_WAPP_MSG', (err as Error)?.message);
      }
    },

    async editMessage(to, providerId, body) {
      const s = requireSock();
      const jid = toJid(to);
      try {
        await s.sendMessage(jid, { text: body, edit: { remoteJid: jid, id: providerId, fromMe: true } });
      } catch (err) {
        throw new ChannelError('ERR_SENDING_WAPP_MSG', (err as Error)?.message);
      }
    },

    // #33.7 WhatsApp's reaction message; its key names the message reacted to ('' removes the reaction).
    async sendReaction(to, target, emoji) {
      const s = requireSock();
      const jid = toJid(to);
      const key = recent.get(target.providerId)?.key ?? {
        remoteJid: jid,
        id: target.providerId,
        fromMe: target.fromMe,
      };
      try {
        await s.sendMessage(jid, { react: { text: emoji, key } });
      } catch (err) {
        throw new ChannelError('ERR_SENDING_WAPP_MSG', (err as Error)?.message);
      }
    },

    async checkNumber(number) {
      const s = requireSock();
      const canonical = normalizeNumber(number);
      if (!canonical) return { exists: false };
      // A Brazilian mobile registered before the ninth digit still has its 12-digit account.
      const forms = [canonical, legacyBrazilianNumber(canonical)].filter((f): f is string => !!f);
      let found: { jid: string; exists: boolean }[] | undefined;
      try {
        found = await s.onWhatsApp(...forms);
      } catch (err) {
        throw new ChannelError('ERR_WAPP_CHECK_CONTACT', (err as Error)?.message);
      }
      const hit = found?.find((r) => r.exists);
      return hit
        ? { exists: true, replyTo: jidNormalizedUser(hit.jid), number: canonical }
        : { exists: false };
    },

    async profilePicture(replyTo) {
      if (!sock || !connected) return null;
      try {
        return (await sock.profilePictureUrl(toJid(replyTo), 'image')) ?? null;
      } catch {
        return null; // no picture, or hidden by the contact's privacy settings
      }
    },

    async addressBook() {
      const byNumber = new Map<string, string>();
      for (const c of contacts.values()) {
        if (c.id.endsWith('@g.us') || c.id.endsWith('@broadcast') || c.id.endsWith('@newsletter')) continue;
        const { number } = resolveAddress(c.id, c.phoneNumber, c.lid);
        if (!number) continue; // only a hidden id: not an address-book entry
        const name = c.name || c.notify || c.verifiedName || byNumber.get(number) || number;
        byNumber.set(number, name);
      }
      return [...byNumber].map(([number, name]) => ({ number, name }));
    },
  };
}

/** The factory the session manager uses: ChannelContext carries no database or secret, so they are bound here. */
export const baileysChannelFactory =
  (deps: BaileysDeps): ChannelFactory =>
  (ctx) =>
    baileysChannel(ctx, deps);
