import { describe, expect, test } from 'vitest';
import { eventBus } from './bus.js';

interface Map {
  'ticket.changed': { id: number; step: string };
  'note.added': { text: string };
}

const quietLog = () => {
  const warned: { o: object; m: string }[] = [];
  return { warned, log: { warn: (o: object, m: string) => warned.push({ o, m }) } };
};

/** A promise and the function that settles it, so a listener can be held in the middle of its work. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('event bus', () => {
  test('emit returns before any listener runs; idle() waits for them all', async () => {
    const { log } = quietLog();
    const bus = eventBus<Map>({ log });
    const seen: string[] = [];
    bus.on('note.added', async (e) => {
      await new Promise((r) => setImmediate(r));
      seen.push(e.text);
    });
    bus.emit('note.added', { text: 'a' });
    expect(seen).toEqual([]);
    await bus.idle();
    expect(seen).toEqual(['a']);
  });

  test('a failing listener is logged and neither the emitter nor the other listeners notice', async () => {
    const { log, warned } = quietLog();
    const bus = eventBus<Map>({ log });
    const seen: string[] = [];
    bus.on(
      'note.added',
      () => {
        throw new Error('sync boom');
      },
      'thrower',
    );
    bus.on(
      'note.added',
      async () => {
        throw new Error('async boom');
      },
      'rejecter',
    );
    bus.on('note.added', (e) => void seen.push(e.text), 'survivor');
    expect(() => bus.emit('note.added', { text: 'x' })).not.toThrow();
    await bus.idle();
    expect(seen).toEqual(['x']);
    expect(warned.map((w) => (w.o as { listener: string }).listener)).toEqual(['thrower', 'rejecter']);
    expect(warned[0]!.m).toBe('event listener failed');
  });

  test('events of one key are handled in emit order even when a listener is slow; other keys do not wait', async () => {
    const { log } = quietLog();
    const bus = eventBus<Map>({ log, keyOf: { 'ticket.changed': (e) => `ticket:${e.id}` } });
    const seen: string[] = [];
    const held = gate();
    bus.on('ticket.changed', async (e) => {
      if (e.id === 1 && e.step === 'first') await held.opened;
      seen.push(`${e.id}:${e.step}`);
    });
    bus.emit('ticket.changed', { id: 1, step: 'first' });
    bus.emit('ticket.changed', { id: 1, step: 'second' });
    bus.emit('ticket.changed', { id: 2, step: 'other' });
    // Ticket 2 goes through while ticket 1's first event is still held; ticket 1's second waits for it.
    for (let i = 0; i < 20 && !seen.includes('2:other'); i++) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['2:other']);
    held.open();
    await bus.idle();
    expect(seen).toEqual(['2:other', '1:first', '1:second']);
  });

  test('listeners run in registration order; one removed no longer hears; events emitted by listeners are awaited', async () => {
    const { log } = quietLog();
    const bus = eventBus<Map>({ log, keyOf: { 'ticket.changed': (e) => `ticket:${e.id}` } });
    const seen: string[] = [];
    bus.on('ticket.changed', (e) => {
      seen.push(`first ${e.step}`);
      if (e.step === 'go') bus.emit('note.added', { text: 'follow-up' });
    });
    const off = bus.on('ticket.changed', (e) => void seen.push(`second ${e.step}`));
    bus.on('note.added', async (e) => {
      await new Promise((r) => setImmediate(r));
      seen.push(e.text);
    });
    bus.emit('ticket.changed', { id: 1, step: 'go' });
    await bus.idle();
    expect(seen).toEqual(['first go', 'second go', 'follow-up']);
    off();
    bus.emit('ticket.changed', { id: 1, step: 'again' });
    await bus.idle();
    expect(seen.slice(3)).toEqual(['first again']);
  });

  test("emit's promise resolves once that event's listeners are done, and never rejects", async () => {
    const { log } = quietLog();
    const bus = eventBus<Map>({ log, keyOf: { 'ticket.changed': (e) => `ticket:${e.id}` } });
    const seen: string[] = [];
    const held = gate();
    bus.on('ticket.changed', async (e) => {
      await held.opened;
      seen.push(e.step);
      throw new Error('after the effect');
    });
    let settled = false;
    const done = bus.emit('ticket.changed', { id: 7, step: 'close' }).then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    held.open();
    await done;
    expect(seen).toEqual(['close']);
    await expect(bus.emit('note.added', { text: 'nobody listens' })).resolves.toBeUndefined();
  });

  test('a tap sees every event inside emit, in emit order across keys; idle() waits for its work', async () => {
    const { log, warned } = quietLog();
    const bus = eventBus<Map>({ log, keyOf: { 'ticket.changed': (e) => `ticket:${e.id}` } });
    const seen: string[] = [];
    const done: string[] = [];
    const held = gate();
    bus.tap(({ event, payload }) => {
      const label = event === 'note.added' ? payload.text : `${payload.id}:${payload.step}`;
      seen.push(label);
      if (label === 'boom') throw new Error('tap failed');
      // Its own follow-up work: idle() waits for it.
      return held.opened.then(() => void done.push(label));
    }, 'test-tap');
    // A listener on one key held: the tap does not wait for it (nor for any listener).
    const listenerHeld = gate();
    bus.on('ticket.changed', () => listenerHeld.opened);
    bus.emit('ticket.changed', { id: 1, step: 'a' });
    bus.emit('note.added', { text: 'loose' });
    bus.emit('ticket.changed', { id: 2, step: 'b' });
    bus.emit('note.added', { text: 'boom' });
    bus.emit('ticket.changed', { id: 1, step: 'c' });
    expect(seen).toEqual(['1:a', 'loose', '2:b', 'boom', '1:c']);
    expect(warned.map((w) => w.m)).toEqual(['event tap failed']);
    let idle = false;
    void bus.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    listenerHeld.open();
    held.open();
    await bus.idle();
    expect(done).toEqual(['1:a', 'loose', '2:b', '1:c']);
  });

  test('durable consumers: publish tells whether they succeeded; replay reaches them alone, in key order', async () => {
    const { log } = quietLog();
    const bus = eventBus<Map>({ log, keyOf: { 'ticket.changed': (e) => `ticket:${e.id}` } });
    const seen: string[] = [];
    let fail = true;
    bus.on('ticket.changed', (e) => void seen.push(`bot ${e.step}`), 'bot');
    bus.on(
      'ticket.changed',
      (e, meta) => {
        if (fail) throw new Error('database down');
        seen.push(`timeline ${e.step} ${meta.outboxId ?? '-'}${meta.replay ? ' replay' : ''}`);
      },
      'timeline',
      { durable: true },
    );
    const tapped: string[] = [];
    bus.tap(
      ({ event, meta }) => {
        tapped.push(`${event} ${meta.outboxId ?? '-'}`);
        return Promise.resolve(event === 'ticket.changed');
      },
      'hooks',
      { durable: ['ticket.changed'] },
    );
    expect(bus.hasDurable('ticket.changed')).toBe(true);
    expect(bus.hasDurable('note.added')).toBe(false);
    // A durable listener that throws: not handled (the outbox keeps the event).
    expect(await bus.publish('ticket.changed', { id: 1, step: 'a' }, { outboxId: 'x1' }).durable).toBe(false);
    fail = false;
    expect(await bus.publish('ticket.changed', { id: 1, step: 'b' }, { outboxId: 'x2' }).durable).toBe(true);
    // The replay: the durable listener and tap only, with the same meta.
    expect(await bus.replay('ticket.changed', { id: 1, step: 'a' }, { outboxId: 'x1' })).toBe(true);
    expect(seen).toEqual(['bot a', 'bot b', 'timeline b x2', 'timeline a x1 replay']);
    expect(tapped).toEqual(['ticket.changed x1', 'ticket.changed x2', 'ticket.changed x1']);
    // An event a tap does not name durable: its outcome does not count.
    expect(await bus.publish('note.added', { text: 'n' }).durable).toBe(true);
  });
});
