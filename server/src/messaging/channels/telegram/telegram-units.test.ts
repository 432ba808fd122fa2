import { describe, expect, test } from 'vitest';
import { SECRET_MASK } from '@recado/contracts';
import { secretBox } from '../../../lib/crypto.js';
import { openTelegramConfig, publicTelegramConfig, sealTelegramConfig } from './telegram-config.js';
import { messageIdOf, parseUpdate } from './telegram-updates.js';

/** #34 Telegram's settings and updates, without a server (docs/channels.md "Telegram"). */
const box = secretBox('t'.repeat(40));
const TOKEN = '123456789:AAFakeTokenForRecadoTests_0123456789';

describe('telegram settings', () => {
  test('sealed; the mask or nothing keeps the token and its webhook secret; a new token makes a new secret', () => {
    const first = sealTelegramConfig({ botToken: TOKEN }, box);
    expect(JSON.stringify(first)).not.toContain(TOKEN);
    const open = openTelegramConfig(first, box);
    expect(open.botToken).toBe(TOKEN);
    expect(open.webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sealTelegramConfig({ botToken: SECRET_MASK }, box, first)).toEqual(first);
    expect(sealTelegramConfig({}, box, first)).toEqual(first);
    const other = openTelegramConfig(
      sealTelegramConfig({ botToken: TOKEN.replace('1234', '9876') }, box, first),
      box,
    );
    expect(other.webhookSecret).not.toBe(open.webhookSecret);
    expect(publicTelegramConfig(first)).toEqual({ botToken: SECRET_MASK });
  });

  test('a missing or malformed token is ERR_VALIDATION on the botToken field', () => {
    for (const input of [{}, { botToken: '' }, { botToken: 'abc' }, { botToken: '12:short' }])
      expect(() => sealTelegramConfig(input, box)).toThrow(
        expect.objectContaining({ code: 'ERR_VALIDATION' }),
      );
    expect(() => openTelegramConfig({}, box)).toThrow(/bot token/);
    expect(() =>
      openTelegramConfig(sealTelegramConfig({ botToken: TOKEN }, box), secretBox('x'.repeat(40))),
    ).toThrow(/cannot be decrypted/);
  });
});

describe('telegram updates', () => {
  const download = async () => ({ data: Buffer.from('x'), path: 'documents/file_1.pdf' });
  const base = { message_id: 7, date: 1_700_000_000, chat: { id: 42, type: 'private', first_name: 'Ana' } };

  test('a text, a reply, a location; provider ids are chat:message', () => {
    const [m] = parseUpdate(
      { update_id: 1, message: { ...base, text: 'oi', reply_to_message: { message_id: 3 } } },
      download,
    );
    expect(m).toMatchObject({
      providerId: '42:7',
      kind: 'message',
      from: '',
      replyTo: '42',
      identity: { kind: 'telegram', value: '42' },
      name: 'Ana',
      isGroup: false,
      body: 'oi',
      quotedProviderId: '42:3',
    });
    expect(messageIdOf('42:7')).toBe(7);
    expect(messageIdOf('-100123:8')).toBe(8);
    expect(messageIdOf('local-x')).toBeNull();
    const [loc] = parseUpdate(
      { update_id: 2, message: { ...base, location: { latitude: -23.5, longitude: -46.6 } } },
      download,
    );
    expect(loc).toMatchObject({ mediaType: 'locationMessage', data: { latitude: -23.5, longitude: -46.6 } });
  });

  test('a document keeps its name and type; its file comes through getFile', async () => {
    const [m] = parseUpdate(
      {
        update_id: 3,
        message: {
          ...base,
          caption: 'nota',
          document: { file_id: 'F', mime_type: 'application/pdf', file_name: 'nota.pdf' },
        },
      },
      download,
    );
    expect(m).toMatchObject({ mediaType: 'application', body: 'nota' });
    expect(await m!.media!()).toMatchObject({ filename: 'nota.pdf', mimetype: 'application/pdf' });
  });

  test('an edit targets the message; bots, channel posts and empty service messages are left out', () => {
    const [e] = parseUpdate({ update_id: 4, edited_message: { ...base, text: 'novo' } }, download);
    expect(e).toMatchObject({ kind: 'edit', providerId: 'edit:4', targetProviderId: '42:7', body: 'novo' });
    expect(
      parseUpdate({ update_id: 5, message: { ...base, text: 'x', from: { id: 1, is_bot: true } } }, download),
    ).toEqual([]);
    expect(parseUpdate({ update_id: 6, channel_post: { ...base, text: 'x' } }, download)).toEqual([]);
    expect(parseUpdate({ update_id: 7, message: { ...base, new_chat_members: [] } }, download)).toEqual([]);
    expect(parseUpdate(null, download)).toEqual([]);
  });
});
