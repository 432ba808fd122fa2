import { describe, expect, test } from 'vitest';
import { mediaTypeOf, upsertMessage, type SimulatorMessage } from '../../api/simulator.js';

const msg = (over: Partial<SimulatorMessage>): SimulatorMessage => ({
  id: 'a',
  number: '5511988880001',
  fromMe: false,
  body: 'Oi',
  mediaType: null,
  mediaUrl: null,
  ack: 1,
  isDeleted: false,
  createdAt: '2026-01-01T10:00:00.000Z',
  ...over,
});

describe('simulator conversation cache', () => {
  test('messages are appended, replaced by id, and acks only move forward', () => {
    let list = upsertMessage([], msg({ id: 'a', ack: 0, local: { url: 'blob:x', filename: 'f.png' } }));
    list = upsertMessage(list, msg({ id: 'b', fromMe: true }));
    list = upsertMessage(list, msg({ id: 'a', ack: 1, mediaUrl: '/api/simulator/1/media/a' }));
    expect(list.map((m) => m.id)).toEqual(['a', 'b']);
    expect(list[0]).toMatchObject({ ack: 1, mediaUrl: '/api/simulator/1/media/a', local: { url: 'blob:x' } });
    list = upsertMessage(list, msg({ id: 'b', fromMe: true, ack: 3 }));
    list = upsertMessage(list, msg({ id: 'b', fromMe: true, ack: 2 }));
    expect(list[1]!.ack).toBe(3);
  });

  test('an ack update without the quote keeps the quote and takes the edited mark', () => {
    const quoted = { id: 'q', fromMe: false, body: 'Pedido', mediaType: null };
    let list = upsertMessage([], msg({ id: 'c', fromMe: true, quoted }));
    list = upsertMessage(list, msg({ id: 'c', fromMe: true, ack: 3, quoted: null, isEdited: true }));
    expect(list[0]).toMatchObject({ ack: 3, quoted, isEdited: true });
  });

  test('media kinds follow the server', () => {
    expect(['image/png', 'audio/ogg', 'video/mp4', 'application/pdf', 'text/plain'].map(mediaTypeOf)).toEqual(
      ['image', 'audio', 'video', 'application', 'application'],
    );
  });
});
