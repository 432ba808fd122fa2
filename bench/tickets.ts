/**
 * npm run bench:tickets — the ticket and message lists on a big company: one company with 100,000 tickets
 * and 1,000,000 messages (seeded with set-based SQL), then p50/p95 of the list routes through the real app.
 * DATABASE_URL selects PostgreSQL (a scratch database is created and dropped); without it, embedded PGlite.
 *   BENCH_TICKETS (default 100000), BENCH_MESSAGES (1000000), BENCH_REQUESTS (300 per route)
 */

import { runHistoryBench, type Route } from './history.js';

await runHistoryBench({
  bench: 'tickets',
  requests: 300,
  customFields: true,
  routes: ({ admin, attendant, t1, tickets, long }) => {
    const longTicket = (i: number) => t1 + (i % long);
    const anyTicket = (i: number) => t1 + ((i * 7919) % tickets);
    const routes: Route[] = [
      {
        name: 'ticketsPending',
        token: admin,
        path: () => '/api/tickets?status=pending&showAll=true',
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      {
        name: 'ticketsOpenUser',
        token: attendant,
        path: () => '/api/tickets?status=open',
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      {
        name: 'ticketsSearchMessage',
        token: admin,
        path: () => '/api/tickets?searchParam=reembolso&showAll=true',
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      {
        name: 'ticketsSearchContact',
        token: admin,
        path: (i) =>
          `/api/tickets?searchParam=${encodeURIComponent(`Karen Rocha ${118 + 120 * (i % 400)}`)}&showAll=true`,
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      // #34.4 The channel filter: the seeded connection's channel (every ticket matches: the common case).
      {
        name: 'ticketsPendingChannel',
        token: admin,
        path: () =>
          `/api/tickets?status=pending&showAll=true&channels=${encodeURIComponent('["simulator"]')}`,
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      // #32.7 Custom-field filters (jsonb containment, GIN): a common value on a list, a rare one on all.
      {
        name: 'ticketsPendingCustomField',
        token: admin,
        path: () =>
          `/api/tickets?status=pending&showAll=true&customFields=${encodeURIComponent('{"plan":"gold"}')}`,
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      {
        name: 'ticketsRareCustomField',
        token: admin,
        path: (i) =>
          `/api/tickets?status=closed&showAll=true&customFields=${encodeURIComponent(`{"order_no":${i % 1000}}`)}`,
        check: (j) => (j as { tickets: unknown[] }).tickets.length,
      },
      {
        name: 'contactsCustomField',
        token: admin,
        path: (i) => `/api/contacts?customFields=${encodeURIComponent(`{"order_no":${i % 1000}}`)}`,
        check: (j) => (j as { contacts: unknown[] }).contacts.length,
      },
      {
        name: 'messagesPage1',
        token: admin,
        path: (i) => `/api/messages/${anyTicket(i)}?pageNumber=1`,
        check: (j) => (j as { messages: unknown[] }).messages.length,
      },
      {
        name: 'messagesPage5',
        token: admin,
        path: (i) => `/api/messages/${longTicket(i)}?pageNumber=5`,
        check: (j) => (j as { messages: unknown[] }).messages.length,
      },
    ];
    return routes;
  },
});
