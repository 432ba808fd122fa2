import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { Company, CompanyInput, CompanyUpdate, DaySchedule } from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';

export const companyKeys = {
  all: ['companies'] as const,
  lists: () => ['companies', 'list'] as const,
  list: (search: string) => ['companies', 'list', search] as const,
  detail: (id: number) => ['companies', 'detail', id] as const,
};

const byName = (a: Company, b: Company) => a.name.localeCompare(b.name) || a.id - b.id;
const matchesSearch = (key: QueryKey, c: Company) => {
  const search = String(key[2] ?? '');
  return !search || containsSearch(c.name, search) || containsSearch(c.email, search);
};

/** GET /companies?searchParam&pageNumber (super user), paged while hasMore. */
export function useCompaniesList(search: string, enabled = true) {
  const searchParam = search.trim().toLowerCase();
  return useInfiniteList<Company>({
    queryKey: companyKeys.list(searchParam),
    enabled,
    fetchPage: async (pageNumber) => {
      const r = await api.get<{ companies: Company[]; hasMore: boolean }>('/companies', {
        searchParam,
        pageNumber,
      });
      return { items: r.companies, hasMore: r.hasMore };
    },
  });
}

/** GET /companies/{id}: the signed-in user's own company (schedules) or any company for the super user. */
export function useCompany(id: number | undefined) {
  return useQuery({
    queryKey: companyKeys.detail(id ?? 0),
    queryFn: () => api.get<Company>(`/companies/${id}`),
    enabled: Boolean(id),
  });
}

function useCompanyCachePatch() {
  const client = useQueryClient();
  return (company: Company) => {
    upsertListItem(client, companyKeys.lists(), company, { matches: matchesSearch, compare: byName });
    client.setQueryData(companyKeys.detail(company.id), company);
  };
}

export function useCreateCompany() {
  const patch = useCompanyCachePatch();
  return useMutation({
    mutationFn: (input: CompanyInput) => api.post<Company>('/companies', input),
    onSuccess: patch,
  });
}

export function useUpdateCompany() {
  const patch = useCompanyCachePatch();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input: CompanyUpdate }) =>
      api.put<Company>(`/companies/${id}`, input),
    onSuccess: patch,
  });
}

export function useDeleteCompany() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/companies/${id}`),
    onSuccess: (_answer, id) => {
      removeListItem(client, companyKeys.lists(), id);
      client.removeQueries({ queryKey: companyKeys.detail(id) });
    },
  });
}

/** PUT /companies/{id}/schedules { schedules }: the company's opening hours. */
export function useSaveCompanySchedules() {
  const patch = useCompanyCachePatch();
  return useMutation({
    mutationFn: ({ id, schedules }: { id: number; schedules: DaySchedule[] }) =>
      api.put<Company>(`/companies/${id}/schedules`, { schedules }),
    onSuccess: patch,
  });
}
