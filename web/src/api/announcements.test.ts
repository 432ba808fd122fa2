import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Announcement, AnnouncementFeed } from '@recado/contracts';
import { announcementKeys, announcementResource, byPriority } from './announcements.js';

const record = (id: number, over: Partial<Announcement> = {}): Announcement => ({
  id,
  title: `A${id}`,
  text: 'x',
  priority: 3,
  status: true,
  mediaName: null,
  mediaPath: null,
  seen: false,
  createdAt: new Date(2026, 0, id).toISOString(),
  updatedAt: new Date(2026, 0, id).toISOString(),
  ...over,
});

describe('the top bar feed follows saves and events', () => {
  test('new ones light the dot in priority order; seen stays seen; inactive and deleted ones leave', () => {
    const client = new QueryClient();
    client.setQueryData<AnnouncementFeed>(announcementKeys.feed(), {
      records: [record(1, { seen: true })],
      unseen: 0,
    });
    const feed = () => client.getQueryData<AnnouncementFeed>(announcementKeys.feed())!;
    announcementResource.put(client, record(2, { priority: 1 }));
    expect(feed().records.map((r) => r.id)).toEqual([2, 1]);
    expect(feed().unseen).toBe(1);
    // An update of a seen one (events carry seen: false) keeps this user's mark.
    announcementResource.put(client, record(1, { title: 'changed' }));
    expect(feed().records.find((r) => r.id === 1)).toMatchObject({ title: 'changed', seen: true });
    expect(feed().unseen).toBe(1);
    announcementResource.put(client, record(2, { priority: 1, status: false }));
    expect(feed().records.map((r) => r.id)).toEqual([1]);
    expect(feed().unseen).toBe(0);
    announcementResource.drop(client, 1);
    expect(feed()).toEqual({ records: [], unseen: 0 });
  });

  test('priority 1 first, then newest', () => {
    const list = [
      record(1, { priority: 2 }),
      record(2, { priority: 3 }),
      record(3, { priority: 2 }),
      record(4, { priority: 1 }),
    ];
    expect([...list].sort(byPriority).map((r) => r.id)).toEqual([4, 3, 1, 2]);
  });
});
