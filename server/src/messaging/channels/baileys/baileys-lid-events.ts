import type { BaileysEventEmitter, Chat, Contact } from 'baileys';
import type { LidPair } from '../../channel.js';
import { resolveAddress } from './baileys-mapping.js';

/** A LID and a phone from any two or three JIDs that name one person (either order); null without both. */
export function lidPairOf(...jids: (string | null | undefined)[]): LidPair | null {
  const [primary, ...alts] = jids.filter((j): j is string => typeof j === 'string' && j.includes('@'));
  if (!primary || primary.endsWith('@g.us')) return null;
  const a = resolveAddress(primary, ...alts);
  return a.number && a.lid ? { lid: a.lid, number: a.number } : null;
}

const pairs = <T>(list: T[] | undefined | null, of: (x: T) => LidPair | null) =>
  (list ?? []).map(of).filter((p): p is LidPair => p !== null);

const ofContact = (c: Partial<Contact>) => lidPairOf(c.id, c.lid, c.phoneNumber);
const ofChat = (c: Partial<Chat>) => lidPairOf(c.id, c.lidJid, c.pnJid);
const ofMapping = (m: { lid?: string; pn?: string }) => lidPairOf(m.pn, m.lid);

/**
 * #33.6 Every Baileys event that reveals a LID and its phone, reported as pairs (docs/messaging.md "LID
 * numbers"): `lid-mapping.update` (Baileys 7's own mapping store), contacts (`lid` + `phoneNumber`), chats
 * (`lidJid` / `pnJid`) and history sync (`lidPnMappings`, contacts, chats). Message keys' alternates are read
 * by the inbound side (lid-map.ts) from the mapped message.
 */
export function watchLidEvents(
  ev: Pick<BaileysEventEmitter, 'on'>,
  live: () => boolean,
  report: (pairs: LidPair[], source: string) => void,
) {
  const emit = (found: LidPair[], source: string) => {
    if (live() && found.length) report(found, source);
  };
  ev.on('lid-mapping.update', (m) => {
    const list = (Array.isArray(m) ? m : [m]) as { lid?: string; pn?: string }[];
    emit(pairs(list, ofMapping), 'lid-mapping');
  });
  ev.on('contacts.upsert', (list) => emit(pairs(list, ofContact), 'contacts'));
  ev.on('contacts.update', (list) => emit(pairs(list, ofContact), 'contacts'));
  ev.on('chats.upsert', (list) => emit(pairs(list, ofChat), 'chats'));
  ev.on('chats.update', (list) => emit(pairs(list as Partial<Chat>[], ofChat), 'chats'));
  ev.on('messaging-history.set', (h) =>
    emit(
      [...pairs(h.lidPnMappings, ofMapping), ...pairs(h.contacts, ofContact), ...pairs(h.chats, ofChat)],
      'history',
    ),
  );
}
