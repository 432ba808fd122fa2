/**
 * npm run bench:dashboard — the dashboard routes on a big company: 100,000 tickets over six months, 1,000,000
 * messages and 30 attendants (seeded like bench/tickets.ts, with set-based SQL: accepted, first-response and
 * close times, ratings, bot states and source tracking), then p50/p95 of every dashboard route over 90 days
 * (and 7 days) through the real app. DATABASE_URL selects PostgreSQL; without it, embedded PGlite.
 *   BENCH_TICKETS (default 100000), BENCH_MESSAGES (1000000), BENCH_REQUESTS (100 per route)
 */

import { runHistoryBench, type Route } from './history.js';

await runHistoryBench({
  bench: 'dashboard',
  requests: 100,
  dashboard: true,
  routes: ({ admin, queueIds }) => {
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const today = day(new Date());
    const ago = (n: number) => day(new Date(Date.now() - n * 86_400_000));
    const range = (n: number) => `initialDate=${ago(n - 1)}&finalDate=${today}`;
    const length = (j: unknown) => (Array.isArray(j) ? j.length : 1);
    const routes: Route[] = [
      {
        name: 'dashboard90',
        token: admin,
        path: () => '/api/dashboard?days=90',
        check: (j) => (j as { supportFinished: number }).supportFinished,
      },
      {
        name: 'dashboard7',
        token: admin,
        path: () => '/api/dashboard?days=7',
        check: (j) => (j as { supportFinished: number }).supportFinished,
      },
      {
        name: 'dashboard90Queue',
        token: admin,
        path: (i) => `/api/dashboard?days=90&queueId=${queueIds[i % queueIds.length]}`,
        check: (j) => (j as { supportFinished: number }).supportFinished,
      },
      {
        name: 'ticketsUsers90',
        token: admin,
        path: () => `/api/dashboard/ticketsUsers?${range(90)}`,
        check: length,
      },
      {
        name: 'ticketsDay90',
        token: admin,
        path: () => `/api/dashboard/ticketsDay?${range(90)}`,
        check: length,
      },
      {
        name: 'sourceTracking90',
        token: admin,
        path: () => `/api/dashboard/sourceTracking?${range(90)}`,
        check: (j) => (j as { count: number }).count,
      },
    ];
    return routes;
  },
});
