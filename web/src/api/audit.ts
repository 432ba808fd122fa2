import { useInfiniteQuery } from '@tanstack/react-query';
import type { AuditLogPage } from '@recado/contracts';
import { api } from './client.js';

/** The audit log's filters (docs/audit.md): instants (ISO), actor (id or part of the e-mail), action prefix. */
export interface AuditFilters {
  from?: string;
  to?: string;
  actor?: string;
  action?: string;
  scope?: 'company' | 'platform';
}

const params = (f: AuditFilters) =>
  Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >;

export const auditKeys = { list: (f: AuditFilters) => ['audit-log', params(f)] as const };

/** GET /audit-log: the newest first, 50 a page (admins; super users also ?scope=platform). */
export function useAuditLog(f: AuditFilters) {
  return useInfiniteQuery({
    queryKey: auditKeys.list(f),
    queryFn: ({ pageParam }) => api.get<AuditLogPage>('/audit-log', { ...params(f), pageNumber: pageParam }),
    initialPageParam: 1,
    getNextPageParam: (last, pages) => (last.hasMore ? pages.length + 1 : undefined),
    placeholderData: (prev) => prev,
  });
}

/** GET /audit-log.csv with the same filters, saved by the browser (the export is itself recorded). */
export async function downloadAuditCsv(f: AuditFilters) {
  const csv = await api.get<string>('/audit-log.csv', params(f));
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${f.scope === 'platform' ? 'platform-audit' : 'audit'}-${new Date().toISOString().slice(0, 10)}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
