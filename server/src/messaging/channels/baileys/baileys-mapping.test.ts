import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { BufferJSON, proto, type WACallEvent, type WAMessage } from 'baileys';
import { ChannelError } from '../../channel.js';
import { mapAckStatus, mapCall, mapMessage, resolveAddress, type MapContext } from './baileys-mapping.js';

/**
 * Fixtures are WAMessage objects as Baileys 7 emits them in `messages.upsert`: a plain key (with its
 * remoteJidAlt / participantAlt extras) around a decoded proto.Message. The JSON keeps Buffers in
 * BufferJSON form; `message` is rebuilt as a real proto instance (unknown field names would be dropped,
 * so a misspelt fixture fails its test).
 */
function fixture(name: string): WAMessage {
  const raw = JSON.parse(
    readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'),
    BufferJSON.reviver,
  );
  if (raw.message) raw.message = proto.Message.fromObject(raw.message);
  return raw as WAMessage;
}

const ME: MapContext['me'] = { id: '5511912345678:21@s.whatsapp.net', lid: '99887766554433:21@lid' };
const map = (name: string, ctx: MapContext = {}) => mapMessage(fixture(name), { me: ME, ...ctx });
const when = new Date(1732291200 * 1000);

describe('addresses', () => {
  test('phone-number chat: canonical number, the LID alternate kept beside it', () => {
    const m = map('text-conversation')!;
    expect(m).toMatchObject({
      providerId: '3EB0A1B2C3D4E5F60718',
      kind: 'message',
      from: '5511987654321',
      lid: '203838457876552@lid',
      replyTo: '5511987654321@s.whatsapp.net',
      name: 'Maria Souza',
      fromMe: false,
      isGroup: false,
      body: 'Olá, quero saber do meu pedido',
      timestamp: when,
    });
    expect(m.mediaType).toBeUndefined();
    expect(m.participant).toBeUndefined();
  });

  test('LID chat with the phone number alternate: number from the alternate, answer to the number', () => {
    const m = map('lid-with-alt')!;
    expect(m.from).toBe('5511987654321');
    expect(m.lid).toBe('203838457876552@lid');
    expect(m.replyTo).toBe('5511987654321@s.whatsapp.net');
  });

  test('LID chat without alternate: no number at all, the LID is never taken for one', () => {
    const m = map('lid-without-alt')!;
    expect(m.from).toBe('');
    expect(m.lid).toBe('187654321098765@lid');
    expect(m.replyTo).toBe('187654321098765@lid');
    expect(m.name).toBe('João');
    expect(m.body).toBe('bom dia');
  });

  test('Brazilian mobile without the ninth digit: canonical from, WhatsApp’s own JID to answer', () => {
    const m = map('legacy-ninth-digit')!;
    expect(m.from).toBe('5511987654321');
    expect(m.replyTo).toBe('551187654321@s.whatsapp.net');
    expect(m.lid).toBeUndefined();
  });

  test('group: group id as from, the participant resolved through participantAlt', () => {
    const m = map('group')!;
    expect(m).toMatchObject({
      isGroup: true,
      from: '120363041234567890',
      replyTo: '120363041234567890@g.us',
      participant: { number: '5521998765432', lid: '203838457876552@lid', name: 'Ana Lima' },
      body: 'Bom dia, grupo!',
    });
    expect(m.name).toBeUndefined(); // the push name is the participant's, not the group's
    expect(m.lid).toBeUndefined();
  });

  test('a message we sent from the phone: our own alternate is not the customer', () => {
    const m = map('from-me-lid-own-alt')!;
    expect(m.fromMe).toBe(true);
    expect(m.from).toBe(''); // not 5511912345678, which is us
    expect(m.lid).toBe('187654321098765@lid');
    expect(m.replyTo).toBe('187654321098765@lid');
    expect(m.name).toBeUndefined(); // pushName is ours
    // Without knowing who we are, the alternate would have been believed.
    expect(mapMessage(fixture('from-me-lid-own-alt'))!.from).toBe('5511912345678');
  });

  test('resolveAddress strips devices and accepts the alternate in either position', () => {
    expect(resolveAddress('5511987654321:7@s.whatsapp.net')).toEqual({
      number: '5511987654321',
      lid: undefined,
      jid: '5511987654321@s.whatsapp.net',
    });
    expect(resolveAddress('203838457876552:3@lid', '551187654321@s.whatsapp.net')).toEqual({
      number: '5511987654321',
      lid: '203838457876552@lid',
      jid: '551187654321@s.whatsapp.net',
    });
    expect(resolveAddress('203838457876552@lid', undefined).number).toBe('');
  });
});

describe('ignored', () => {
  test('status broadcasts, newsletters and stubs without content map to null', () => {
    expect(map('status-broadcast')).toBeNull();
    expect(map('newsletter')).toBeNull();
    expect(map('stub-ciphertext')).toBeNull();
  });

  test('protocol messages other than edit and revoke map to null', () => {
    const m = fixture('revoke');
    m.message = proto.Message.fromObject({ protocolMessage: { type: 3, ephemeralExpiration: 604800 } });
    expect(mapMessage(m)).toBeNull();
  });
});

describe('contents', () => {
  test('extended text with a quote', () => {
    const m = map('text-extended-quoted')!;
    expect(m.body).toBe('Esse aqui mesmo');
    expect(m.quotedProviderId).toBe('3EB0B0B0B0B0B0B0B0B0');
  });

  test('image inside an ephemeral wrapper, downloaded lazily', async () => {
    const calls: WAMessage[] = [];
    const m = map('image-ephemeral', {
      download: async (msg) => {
        calls.push(msg);
        return Buffer.from('jpeg-bytes');
      },
    })!;
    expect(m.mediaType).toBe('image');
    expect(m.body).toBe('foto do produto');
    expect(calls).toHaveLength(0);
    const media = await m.media!();
    expect(media).toEqual({
      mimetype: 'image/jpeg',
      filename: '3EB0IMAGE00000000001.jpg',
      data: Buffer.from('jpeg-bytes'),
    });
    expect(calls[0]!.key.id).toBe('3EB0IMAGE00000000001');
  });

  test('a failed download is a ChannelError', async () => {
    const m = map('image-ephemeral', {
      download: () => Promise.reject(Object.assign(new Error('gone'), { status: 410 })),
    })!;
    const err = await m.media!().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelError);
    expect((err as ChannelError).code).toBe('ERR_WAPP_DOWNLOAD_MEDIA');
  });

  test('voice note', async () => {
    const m = map('audio-ptt', { download: async () => Buffer.from('ogg') })!;
    expect(m.mediaType).toBe('audio');
    expect(m.body).toBe('');
    expect(m.data).toEqual({ ptt: true, seconds: 7 });
    expect((await m.media!()).filename).toBe('3EB0AUDIO00000000001.ogg');
    expect((await m.media!()).mimetype).toBe('audio/ogg; codecs=opus');
  });

  test('view-once video is unwrapped and marked', () => {
    const m = map('video-view-once')!;
    expect(m.mediaType).toBe('video');
    expect(m.body).toBe('veja');
    expect(m.data).toEqual({ viewOnce: true });
  });

  test('document with caption: unwrapped, its file name kept, quote read from inside', async () => {
    const m = map('document-with-caption', { download: async () => Buffer.from('%PDF') })!;
    expect(m.mediaType).toBe('application');
    expect(m.body).toBe('segue o comprovante');
    expect(m.quotedProviderId).toBe('3EB0QUOTED0000000001');
    expect(await m.media!()).toMatchObject({ filename: 'boleto.pdf', mimetype: 'application/pdf' });
  });

  test('location with coordinates in data', () => {
    const m = map('location')!;
    expect(m.mediaType).toBe('locationMessage');
    expect(m.data).toEqual({
      latitude: -23.5613991,
      longitude: -46.6565712,
      name: 'MASP',
      address: 'Av. Paulista, 1578 - Bela Vista, São Paulo',
    });
    expect(m.body).toContain('https://maps.google.com/maps?q=-23.5613991,-46.6565712');
    expect(m.media).toBeUndefined();
  });

  test('contact card and several contacts carry the vcard text', () => {
    const one = map('vcard')!;
    expect(one.mediaType).toBe('vcard');
    expect(one.body).toContain('FN:Pedro Silva');
    expect(one.data).toMatchObject({ displayName: 'Pedro Silva' });
    const many = map('contacts-array')!;
    expect(many.mediaType).toBe('contactMessage');
    expect(many.body).toContain('FN:Pedro Silva');
    expect(many.body).toContain('FN:Paula Silva');
    expect((many.data!.contacts as unknown[]).length).toBe(2);
  });

  test('reaction points at its target', () => {
    const m = map('reaction')!;
    expect(m).toMatchObject({ kind: 'reaction', body: '👍', targetProviderId: '3EB0B0B0B0B0B0B0B0B0' });
    expect(m.mediaType).toBeUndefined();
  });

  test('edit (editedMessage → protocolMessage MESSAGE_EDIT) carries the new text', () => {
    const m = map('edit')!;
    expect(m).toMatchObject({
      kind: 'edit',
      providerId: '3EB0EDIT000000000001',
      targetProviderId: '3EB0A1B2C3D4E5F60718',
      body: 'Olá, quero saber do meu pedido 4521',
    });
  });

  test('revoke (protocolMessage type 0) is not mistaken for an empty message', () => {
    const m = map('revoke')!;
    expect(m).toMatchObject({
      kind: 'revoke',
      targetProviderId: '3EB0A1B2C3D4E5F60718',
      from: '5511987654321',
    });
  });
});

describe('calls and acks', () => {
  const call = (): WACallEvent => {
    const raw = JSON.parse(readFileSync(new URL('./fixtures/call-offer.json', import.meta.url), 'utf8'));
    return { ...raw, date: new Date(raw.date) };
  };

  test('a call offer is a call log from the caller’s number', () => {
    const m = mapCall(call())!;
    expect(m).toMatchObject({
      kind: 'call',
      mediaType: 'call_log',
      providerId: '7A1B2C3D4E5F60718293A4B5C6D7E8F9',
      from: '5511987654321',
      lid: '203838457876552@lid',
      replyTo: '5511987654321@s.whatsapp.net',
      isGroup: false,
      fromMe: false,
      data: { isVideo: false, status: 'offer', offline: false },
    });
    expect(m.timestamp.toISOString()).toBe('2024-11-22T16:00:00.000Z');
  });

  test('other call states are not messages; a call without the number keeps only the LID', () => {
    expect(mapCall({ ...call(), status: 'terminate' })).toBeNull();
    const hidden = mapCall({ ...call(), callerPn: undefined })!;
    expect(hidden.from).toBe('');
    expect(hidden.replyTo).toBe('203838457876552@lid');
  });

  test('Baileys statuses map to our acks', () => {
    const S = proto.WebMessageInfo.Status;
    expect([S.ERROR, S.PENDING, S.SERVER_ACK, S.DELIVERY_ACK, S.READ, S.PLAYED].map(mapAckStatus)).toEqual([
      0,
      null,
      1,
      2,
      3,
      4,
    ]);
    expect(mapAckStatus('READ')).toBe(3);
  });
});
