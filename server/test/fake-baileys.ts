import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { BufferJSON, proto, type UserFacingSocketConfig, type WAMessage } from 'baileys';
import type { BaileysSocket, MakeSocket } from '../src/messaging/channels/baileys/baileys-channel.js';

/** A Baileys fixture (server/src/messaging/channels/baileys/fixtures/<name>.json) as Baileys hands it over. */
export function baileysFixture(name: string): WAMessage {
  const raw = JSON.parse(
    readFileSync(new URL(`../src/messaging/channels/baileys/fixtures/${name}.json`, import.meta.url), 'utf8'),
    BufferJSON.reviver,
  );
  if (raw.message) raw.message = proto.Message.fromObject(raw.message);
  return raw as WAMessage;
}

/** A sent-content record of the scripted socket: the JID and what `sendMessage` was given. */
export interface SentContent {
  jid: string;
  content: Record<string, unknown>;
  id: string;
}

/**
 * A scripted Baileys socket for whole-app tests: the test plays WhatsApp's side (`emit`, `upsert`, `open`) and
 * reads what the app sent (`sent`). `lids` answers Baileys' own LID store (signalRepository.lidMapping).
 */
export class ScriptedSocket {
  readonly ev = new EventEmitter();
  user: BaileysSocket['user'] = undefined;
  lids: Record<string, string> = {};
  readonly sent: SentContent[] = [];
  readonly signalRepository = {
    lidMapping: { getPNForLID: async (lid: string) => this.lids[lid] ?? null },
  };
  private n = 0;
  constructor(readonly config: UserFacingSocketConfig) {}

  end = async (error: Error | undefined) => {
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  };
  logout = async () => undefined;
  sendMessage = async (
    jid: string,
    content: Record<string, unknown>,
    opts?: { messageId?: string },
  ): Promise<WAMessage> => {
    const id = opts?.messageId ?? `SCRIPTED${++this.n}`;
    this.sent.push({ jid, content, id });
    const text = (content as { text?: string }).text;
    return {
      key: { remoteJid: jid, fromMe: true, id },
      messageTimestamp: Math.floor(Date.now() / 1000),
      ...(text ? { message: { conversation: text } } : {}),
    };
  };
  readMessages = async () => undefined;
  onWhatsApp = async (...numbers: string[]) =>
    numbers.map((n) => ({ jid: `${n}@s.whatsapp.net`, exists: true }));
  profilePictureUrl = async () => undefined;
  chatModify = async () => undefined;
  updateMediaMessage = async (m: WAMessage) => m;

  emit(event: string, arg: unknown) {
    this.ev.emit(event, arg);
  }
  open(id = '551133334444:7@s.whatsapp.net', lid = '11112222333344:7@lid') {
    this.user = { id, lid };
    this.emit('connection.update', { connection: 'open' });
  }
  upsert(messages: WAMessage[], type: 'notify' | 'append' = 'notify') {
    this.emit('messages.upsert', { messages, type });
  }
}

/** The app's Baileys sockets, scripted: every socket the app makes, newest last. */
export function scriptedBaileys() {
  const sockets: ScriptedSocket[] = [];
  const makeSocket = ((config: UserFacingSocketConfig) => {
    const s = new ScriptedSocket(config);
    sockets.push(s);
    return s as unknown as BaileysSocket;
  }) as MakeSocket;
  return { sockets, makeSocket, last: () => sockets[sockets.length - 1]! };
}
