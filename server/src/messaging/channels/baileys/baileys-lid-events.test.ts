import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import type { BaileysEventEmitter } from 'baileys';
import type { LidPair } from '../../channel.js';
import { lidPairOf, watchLidEvents } from './baileys-lid-events.js';

function watch(live = () => true) {
  const ev = new EventEmitter();
  const got: { pairs: LidPair[]; source: string }[] = [];
  watchLidEvents(ev as unknown as Pick<BaileysEventEmitter, 'on'>, live, (pairs, source) =>
    got.push({ pairs, source }),
  );
  return { ev, got };
}

describe('#33.6 Baileys events that reveal a LID and its phone', () => {
  test('lidPairOf: either order, device suffixes, ninth digit; nothing without both or for groups', () => {
    expect(lidPairOf('5511987654321@s.whatsapp.net', '203838457876552@lid')).toEqual({
      lid: '203838457876552@lid',
      number: '5511987654321',
    });
    expect(lidPairOf('203838457876552:3@lid', '551187654321:3@s.whatsapp.net')).toEqual({
      lid: '203838457876552@lid',
      number: '5511987654321',
    });
    expect(lidPairOf('203838457876552@lid')).toBeNull();
    expect(lidPairOf('5511987654321@s.whatsapp.net', undefined, null)).toBeNull();
    expect(lidPairOf('120363025246125888@g.us', '203838457876552@lid')).toBeNull();
  });

  test('lid-mapping.update, contacts, chats and history sync all report their pairs, named by source', () => {
    const { ev, got } = watch();
    ev.emit('lid-mapping.update', { lid: '100000000000001@lid', pn: '5511900000001@s.whatsapp.net' });
    ev.emit('contacts.upsert', [
      { id: '100000000000002@lid', phoneNumber: '5511900000002@s.whatsapp.net' },
      { id: '100000000000009@lid', notify: 'only a LID' },
    ]);
    ev.emit('contacts.update', [{ id: '5511900000003@s.whatsapp.net', lid: '100000000000003@lid' }]);
    ev.emit('chats.upsert', [{ id: '100000000000004@lid', pnJid: '5511900000004@s.whatsapp.net' }]);
    ev.emit('chats.update', [{ id: '5511900000005@s.whatsapp.net', lidJid: '100000000000005@lid' }]);
    ev.emit('messaging-history.set', {
      chats: [],
      contacts: [{ id: '100000000000006@lid', phoneNumber: '5511900000006@s.whatsapp.net' }],
      messages: [],
      lidPnMappings: [{ lid: '100000000000007@lid', pn: '5511900000007@s.whatsapp.net' }],
    });
    expect(got.map((g) => [g.source, g.pairs.map((p) => p.number.slice(-1))])).toEqual([
      ['lid-mapping', ['1']],
      ['contacts', ['2']],
      ['contacts', ['3']],
      ['chats', ['4']],
      ['chats', ['5']],
      ['history', ['7', '6']],
    ]);
  });

  test('events of a replaced socket are not reported', () => {
    const { ev, got } = watch(() => false);
    ev.emit('lid-mapping.update', { lid: '100000000000001@lid', pn: '5511900000001@s.whatsapp.net' });
    expect(got).toEqual([]);
  });
});
