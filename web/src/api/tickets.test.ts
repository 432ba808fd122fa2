import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { TicketView } from '@recado/contracts';
import { newerOf, ticketKeys } from './tickets.js';

const view = (updatedAt: string, automation: TicketView['automation']) =>
  ({ id: 7, uuid: 'u7', status: 'pending', updatedAt, automation }) as unknown as TicketView;

describe("a ticket's read never undoes a newer announced change", () => {
  test('a read that left before the change keeps the newer cached copy; a newer read replaces it', () => {
    const client = new QueryClient();
    const failed = view('2026-11-27T10:00:02.000Z', {
      status: 'failed',
      kind: 'prompt',
      error: '401',
    } as never);
    // The change came by event into the pending list while the ticket's own read was on its way.
    client.setQueryData([...ticketKeys.lists(), { status: 'pending' }], {
      pages: [{ items: [failed], hasMore: false }],
      pageParams: [1],
    });
    const before = view('2026-11-27T10:00:01.000Z', { status: 'active', kind: 'prompt' } as never);
    expect(newerOf(client, before)).toBe(failed);
    const after = view('2026-11-27T10:00:03.000Z', null);
    expect(newerOf(client, after)).toBe(after);
    // Nothing cached: the read is the answer.
    expect(newerOf(new QueryClient(), before)).toBe(before);
  });
});
