import type { UserView } from '@recado/contracts';
import { describe, expect, test } from 'vitest';
import type { Events } from '../../realtime/events.js';
import { invalidatingEvents, sessionCache } from './session-cache.js';

const tenant = (sessionId: string, userId = 1) => ({
  userId,
  companyId: 1,
  profile: 'admin',
  super: false,
  sessionId,
});

describe('session cache', () => {
  test('one look-up for a burst; later requests read memory', async () => {
    const cache = sessionCache();
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return tenant('s1');
    };
    const all = await Promise.all(Array.from({ length: 10 }, () => cache.lookup('s1', 1, load)));
    expect(all.every((t) => t?.sessionId === 's1')).toBe(true);
    expect(await cache.lookup('s1', 1, load)).toMatchObject({ sessionId: 's1' });
    expect(loads).toBe(1);
    // Another user id on the same session id is not served from memory.
    expect(await cache.lookup('s1', 2, async () => null)).toBeNull();
  });

  test('a forget wins over a look-up that was already under way', async () => {
    const cache = sessionCache();
    let release: () => void = () => undefined;
    const slow = cache.lookup('s1', 1, () => new Promise((r) => (release = () => r(tenant('s1')))));
    cache.forgetSessions(['s1']);
    release();
    await slow;
    let loads = 0;
    expect(
      await cache.lookup('s1', 1, async () => {
        loads++;
        return null;
      }),
    ).toBeNull();
    expect(loads).toBe(1);
  });

  test('ending sessions and changing a user through the events forgets them', async () => {
    const cache = sessionCache();
    const quiet: Events = {
      toCompany: () => undefined,
      toAdmins: () => undefined,
      toUser: () => undefined,
      toRoom: () => undefined,
      toRoomNamed: () => undefined,
      endSessions: () => undefined,
    };
    const events = invalidatingEvents(quiet, cache);
    await cache.lookup('a', 1, async () => tenant('a', 1));
    await cache.lookup('b', 2, async () => tenant('b', 2));
    events.endSessions(['a'], 'logout');
    events.toCompany(1, 'user', { action: 'update', user: { id: 2 } as UserView });
    let loads = 0;
    const none = async () => {
      loads++;
      return null;
    };
    expect(await cache.lookup('a', 1, none)).toBeNull();
    expect(await cache.lookup('b', 2, none)).toBeNull();
    expect(loads).toBe(2);
  });
});
