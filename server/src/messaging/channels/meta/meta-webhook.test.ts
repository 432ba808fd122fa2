import { describe, expect, test } from 'vitest';
import { splitText } from '../../../lib/text.js';
import { parseMetaWebhook } from './meta-webhook.js';

/** #34 The Messenger Platform's webhook payloads as the channel reads them (pure; no server). */
const PAGE = '110200300400500';
const IG = '17841400000000001';
const opts = { channel: 'messenger' as const, accountId: PAGE };
const page = (...messaging: unknown[]) => ({ object: 'page', entry: [{ id: PAGE, time: 1, messaging }] });
const from = (customer: string, rest: Record<string, unknown>) => ({
  sender: { id: customer },
  recipient: { id: PAGE },
  timestamp: 1_700_000_000_000,
  ...rest,
});

describe('parseMetaWebhook', () => {
  test("a text: identity, no phone number, the reply address, Meta's time", () => {
    const { messages } = parseMetaWebhook(page(from('2401', { message: { mid: 'm_1', text: 'Oi' } })), opts);
    expect(messages).toEqual([
      expect.objectContaining({
        providerId: 'm_1',
        kind: 'message',
        from: '',
        identity: { kind: 'messenger', value: '2401' },
        replyTo: '2401',
        fromMe: false,
        body: 'Oi',
        timestamp: new Date(1_700_000_000_000),
      }),
    ]);
  });

  test('reactions, unreactions, Instagram unsends and unsupported attachments', () => {
    const { messages } = parseMetaWebhook(
      page(
        from('2401', { reaction: { mid: 'm_1', action: 'react', emoji: '❤️', reaction: 'love' } }),
        from('2401', { reaction: { mid: 'm_1', action: 'unreact' }, timestamp: 1_700_000_000_500 }),
        from('2401', { message: { mid: 'm_2', is_deleted: true } }),
        from('2401', {
          message: { mid: 'm_3', attachments: [{ type: 'location', payload: { title: 'Loja' } }] },
        }),
      ),
      opts,
    );
    expect(messages.map((m) => [m.kind, m.targetProviderId, m.body])).toEqual([
      ['reaction', 'm_1', '❤️'],
      ['reaction', 'm_1', ''],
      ['revoke', 'm_2', ''],
      ['message', undefined, 'Loja'],
    ]);
    expect(messages[3]!.data).toEqual({ unsupported: 'location' });
    // Two reactions to the same message are two events (each its own provider id).
    expect(messages[0]!.providerId).not.toBe(messages[1]!.providerId);
  });

  test('several attachments are several messages; the text goes with the first', () => {
    const { messages } = parseMetaWebhook(
      page(
        from('2401', {
          message: {
            mid: 'm_4',
            text: 'fotos',
            attachments: [
              { type: 'image', payload: { url: 'https://scontent.xx.fbcdn.net/a.jpg' } },
              { type: 'image', payload: { url: 'https://scontent.xx.fbcdn.net/b.jpg' } },
            ],
          },
        }),
      ),
      opts,
    );
    expect(messages.map((m) => [m.providerId, m.body, m.mediaType])).toEqual([
      ['m_4', 'fotos', 'image'],
      ['m_4:1', '', 'image'],
    ]);
  });

  test('another object, another account, the page writing to itself and malformed events are skipped', () => {
    const text = from('2401', { message: { mid: 'm_5', text: 'x' } });
    expect(
      parseMetaWebhook({ object: 'instagram', entry: [{ id: PAGE, messaging: [text] }] }, opts).messages,
    ).toEqual([]);
    expect(
      parseMetaWebhook({ object: 'page', entry: [{ id: IG, messaging: [text] }] }, opts).messages,
    ).toEqual([]);
    expect(
      parseMetaWebhook(page({ sender: {}, message: { mid: 'x' } }, 'junk', null), opts).messages,
    ).toEqual([]);
    expect(parseMetaWebhook('not json at all', opts).messages).toEqual([]);
    const self = { sender: { id: PAGE }, recipient: { id: PAGE }, message: { mid: 'm_6', text: 'eu' } };
    expect(parseMetaWebhook(page(self), opts).messages).toEqual([]);
  });

  test('deliveries and Instagram reads name their mids; Messenger reads a watermark', () => {
    const parsed = parseMetaWebhook(
      page(
        from('2401', { delivery: { mids: ['m_a', 'm_b'], watermark: 1 } }),
        from('2401', { read: { watermark: 1_700_000_000_000 } }),
        from('2401', { read: { mid: 'm_c' } }),
      ),
      opts,
    );
    expect(parsed.acks).toEqual([
      { providerId: 'm_a', ack: 2 },
      { providerId: 'm_b', ack: 2 },
      { providerId: 'm_c', ack: 3 },
    ]);
    expect(parsed.reads).toEqual([{ customer: '2401', watermark: new Date(1_700_000_000_000) }]);
  });
});

describe('splitText', () => {
  test('pieces of at most the limit, cut at a line break when there is one, emojis kept whole', () => {
    expect(splitText('curto', 10)).toEqual(['curto']);
    expect(splitText('', 10)).toEqual(['']);
    expect(splitText('abcdef\nghijkl', 10)).toEqual(['abcdef', 'ghijkl']);
    expect(splitText('a'.repeat(25), 10)).toEqual(['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(5)]);
    const emoji = `${'a'.repeat(9)}😀b`;
    const parts = splitText(emoji, 10);
    expect(parts).toEqual(['a'.repeat(9), '😀b']);
    expect(parts.join('')).toBe(emoji);
  });
});
