import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ChannelError } from '../../channel.js';
import { checkSignature, parseWebhook, verifyChallenge, waIdToNumber } from './cloud-api-webhook.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'));
const PHONE_ID = '106540352242922';

describe('verifyChallenge', () => {
  const q = { 'hub.mode': 'subscribe', 'hub.verify_token': 'my-verify-token', 'hub.challenge': '1158201444' };
  test('answers the challenge when mode and token match', () => {
    expect(verifyChallenge(q, 'my-verify-token')).toBe('1158201444');
  });
  test('refuses a wrong token, a wrong mode, a missing challenge or an empty configured token', () => {
    expect(verifyChallenge(q, 'other-token')).toBeNull();
    expect(verifyChallenge({ ...q, 'hub.mode': 'unsubscribe' }, 'my-verify-token')).toBeNull();
    expect(verifyChallenge({ ...q, 'hub.challenge': undefined }, 'my-verify-token')).toBeNull();
    expect(verifyChallenge({ ...q, 'hub.verify_token': '' }, '')).toBeNull();
    expect(verifyChallenge(undefined, 'my-verify-token')).toBeNull();
  });
});

describe('checkSignature', () => {
  const secret = 'app-secret-123';
  const body = Buffer.from(JSON.stringify(fixture('text-with-quote')));
  const sign = (b: Buffer, s = secret) => `sha256=${createHmac('sha256', s).update(b).digest('hex')}`;

  test('accepts the HMAC-SHA256 of the raw body, in either hex case', () => {
    expect(checkSignature(body, sign(body), secret)).toBe(true);
    expect(checkSignature(body, sign(body).toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(true);
  });
  test('refuses another secret, a changed body, a missing or malformed header', () => {
    expect(checkSignature(body, sign(body, 'other'), secret)).toBe(false);
    const changed = Buffer.from(body.toString().replace('azul', 'verde'));
    expect(checkSignature(changed, sign(body), secret)).toBe(false);
    expect(checkSignature(body, undefined, secret)).toBe(false);
    expect(checkSignature(body, sign(body).replace('sha256=', 'sha1='), secret)).toBe(false);
    expect(checkSignature(body, sign(body).slice(0, -2), secret)).toBe(false);
    expect(checkSignature(body, sign(body), '')).toBe(false);
  });
  test('is computed over bytes: re-serialised JSON does not pass', () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    expect(checkSignature(pretty, sign(body), secret)).toBe(false);
  });
});

describe('parseWebhook', () => {
  test('a text that quotes a message: normalised number, raw reply address, name, quote, time', () => {
    const { messages, acks } = parseWebhook(fixture('text-with-quote'));
    expect(acks).toEqual([]);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toEqual({
      providerId: 'wamid.HBgMNTU0MTg4ODg3Nzc3FQIAEhggQTNBMEY0QjQ1QkE2N0YyRkE1RjhCRjM0NjdBNDY0NTgA',
      kind: 'message',
      // Meta's wa_id lacks the ninth digit; the contact is stored in the canonical form...
      from: '5541988887777',
      // ...and answered at the address Meta knows.
      replyTo: '554188887777',
      name: 'Maria Souza',
      fromMe: false,
      isGroup: false,
      body: 'Ainda tem na cor azul?',
      quotedProviderId: 'wamid.HBgMNTU0MTg4ODg3Nzc3FQIAERgSQjY4RDVGRkE2NTk0RjRBNjhCAA==',
      timestamp: new Date(1749416383 * 1000),
    });
  });

  test('wa_ids are international: a US number is not mistaken for a Brazilian local one', () => {
    expect(waIdToNumber('12995551234')).toBe('12995551234');
    expect(waIdToNumber('5511987654321')).toBe('5511987654321');
    expect(waIdToNumber('554188887777')).toBe('5541988887777');
  });

  test('media messages: types, captions, file names, lazy download through the given downloader', async () => {
    const asked: string[] = [];
    const { messages } = parseWebhook(fixture('media'), {
      downloadMedia: async (id) => {
        asked.push(id);
        return { data: Buffer.from(`bytes of ${id}`), mimetype: 'application/octet-stream' };
      },
    });
    expect(asked).toEqual([]); // nothing downloaded while parsing
    expect(messages.map((m) => [m.mediaType, m.body, m.from, m.name])).toEqual([
      ['image', 'The broken part', '12995551234', 'John Miller'],
      ['audio', '', '12995551234', 'John Miller'],
      ['video', '', '12995551234', 'John Miller'],
      ['application', 'invoice-2291.pdf', '12995551234', 'John Miller'],
      ['sticker', '', '12995551234', 'John Miller'],
    ]);
    expect(messages[1]!.data).toMatchObject({ mediaId: '1003383421387257', voice: true });

    const doc = await messages[3]!.media!();
    expect(asked).toEqual(['1003383421387259']);
    expect(doc).toEqual({
      data: Buffer.from('bytes of 1003383421387259'),
      mimetype: 'application/pdf', // Meta's declared type wins over the download's
      filename: 'invoice-2291.pdf',
    });
    const image = await messages[0]!.media!();
    expect(image.filename).toBe('1003383421387256.jpg');
    const voice = await messages[1]!.media!();
    expect(voice.filename).toBe('1003383421387257.ogg');
  });

  test('media without a downloader fails as a download error, not silently', async () => {
    const { messages } = parseWebhook(fixture('media'));
    await expect(messages[0]!.media!()).rejects.toBeInstanceOf(ChannelError);
    await expect(messages[0]!.media!()).rejects.toMatchObject({ code: 'ERR_WAPP_DOWNLOAD_MEDIA' });
  });

  test('location and contacts', () => {
    const { messages } = parseWebhook(fixture('location-contacts'));
    const [loc, card] = messages;
    expect(loc!.mediaType).toBe('locationMessage');
    expect(loc!.body).toBe(
      'MASP\nAv. Paulista, 1578 - Bela Vista, São Paulo\nhttps://maps.google.com/maps?q=-23.561414%2C-46.655881&z=17',
    );
    expect(loc!.data).toEqual({
      latitude: -23.561414,
      longitude: -46.655881,
      name: 'MASP',
      address: 'Av. Paulista, 1578 - Bela Vista, São Paulo',
    });
    expect(card!.mediaType).toBe('vcard');
    expect(card!.body).toBe(
      [
        'BEGIN:VCARD',
        'VERSION:3.0',
        'N:Lima;Carlos;;;',
        'FN:Carlos Lima',
        'ORG:Lima\\; Filhos',
        'TITLE:Gerente',
        'TEL;type=CELL;waid=554188887777:+55 41 8888-7777',
        'EMAIL;type=WORK:carlos@example.com',
        'END:VCARD',
      ].join('\n'),
    );
    expect(card!.data).toEqual({ contacts: [{ name: 'Carlos Lima', numbers: ['5541988887777'] }] });
  });

  test('reactions, button and list replies, template quick replies, unsupported; welcome requests skipped', () => {
    const { messages } = parseWebhook(fixture('replies-and-reactions'));
    expect(
      messages.map((m) => [m.providerId, m.kind, m.body, m.targetProviderId, m.quotedProviderId]),
    ).toEqual([
      ['wamid.REACTION1', 'reaction', '👍', 'wamid.OUTBOUND1', undefined],
      ['wamid.REACTION2', 'reaction', '', 'wamid.OUTBOUND1', undefined],
      ['wamid.BUTTON1', 'message', 'Financeiro', undefined, 'wamid.MENU1'],
      ['wamid.LIST1', 'message', 'Suporte técnico', undefined, 'wamid.MENU2'],
      ['wamid.QUICKREPLY1', 'message', 'Confirmar', undefined, 'wamid.TEMPLATE1'],
      ['wamid.UNSUPPORTED1', 'message', '', undefined, undefined],
    ]);
    expect(messages[2]!.data).toEqual({ reply: { type: 'button_reply', id: 'opt-2' } });
    expect(messages[3]!.data).toEqual({ reply: { type: 'list_reply', id: 'sup-1' } });
    expect(messages[4]!.data).toEqual({ reply: { type: 'button', id: 'CONFIRM_ORDER' } });
    expect(messages[5]!.data).toEqual({ unsupported: 'unsupported', error: 'Message type unknown' });
  });

  test('statuses become acks in order; a failure is ack 0 with Meta error', () => {
    const { messages, acks } = parseWebhook(fixture('statuses'));
    expect(messages).toEqual([]);
    expect(acks).toEqual([
      { providerId: 'wamid.OUT1', ack: 1 },
      { providerId: 'wamid.OUT1', ack: 2 },
      { providerId: 'wamid.OUT1', ack: 3 },
      { providerId: 'wamid.OUT2', ack: 4 },
      {
        providerId: 'wamid.OUT3',
        ack: 0,
        data: {
          error: {
            code: 131047,
            title: 'Re-engagement message',
            message: 'Re-engagement message',
            details:
              'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
          },
        },
      },
    ]);
  });

  test('keeps only the connection’s own phone number and the messages field', () => {
    const all = parseWebhook(fixture('two-numbers'));
    expect(all.messages.map((m) => m.providerId)).toEqual(['wamid.OTHERNUMBER1', 'wamid.OURNUMBER1']);
    const ours = parseWebhook(fixture('two-numbers'), { phoneNumberId: PHONE_ID });
    expect(ours.messages.map((m) => m.providerId)).toEqual(['wamid.OURNUMBER1']);
  });

  test('never throws on junk; skips malformed items one by one', () => {
    for (const junk of [
      null,
      42,
      'x',
      {},
      { object: 'page', entry: [] },
      { object: 'whatsapp_business_account' },
    ])
      expect(parseWebhook(junk)).toEqual({ messages: [], acks: [] });
    const payload = fixture('text-with-quote') as {
      entry: { changes: { value: { messages: unknown[] } }[] }[];
    };
    payload.entry[0]!.changes[0]!.value.messages.unshift({ type: 'text' }, 'garbage');
    expect(parseWebhook(payload).messages).toHaveLength(1);
  });
});
