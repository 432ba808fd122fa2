import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  type Macro,
  type MacroInput,
  type MacroRunResult,
  type MacroUpdate,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

export const macroKeys = {
  lists: () => ['macros', 'page'] as const,
  all: () => ['macros', 'all'] as const,
};

/** Server order: name without case, then id. */
const byName = (a: Macro, b: Macro) =>
  a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;

/** Who may change a macro, as the server decides it: its owner (personal), the admins (company). */
export const canEditMacro = (
  me: { id: number; profile: string; super?: boolean } | null | undefined,
  m: Pick<Macro, 'userId' | 'visibility'>,
) =>
  Boolean(me) &&
  (m.visibility === 'company' ? me!.profile === 'admin' || Boolean(me!.super) : m.userId === me!.id);

/** #32.1 Macros: GET /macros?searchParam&pageNumber, `company-{id}-macro` (company ones) or the owner's. */
export const macroResource = defineResource<Macro, MacroInput | MacroUpdate>({
  spec: RESOURCES.macro,
  listsKey: macroKeys.lists(),
  paged: true,
  compare: byName,
  matches: (s, m) => !s || m.name.toLowerCase().includes(s),
  fromEvent: (m, me) => ({ ...m, canEdit: canEditMacro(me, m) }),
  onPut: (client, record) =>
    client.setQueryData<Macro[]>(macroKeys.all(), (list) =>
      list ? [...list.filter((m) => m.id !== record.id), record].sort(byName) : list,
    ),
  onDrop: (client, id) =>
    client.setQueryData<Macro[]>(macroKeys.all(), (list) => list?.filter((m) => m.id !== id)),
});

/** GET /macros/list: every macro the user may run (chat header, ticket list, command bar). */
export function useAllMacros(enabled = true) {
  return useQuery({
    queryKey: macroKeys.all(),
    queryFn: () => api.get<Macro[]>('/macros/list'),
    enabled,
    staleTime: 60_000,
  });
}

/** POST /macros/{id}/run: per-ticket results. */
export function useRunMacro() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ticketIds }: { id: number; ticketIds: number[] }) =>
      api.post<MacroRunResult>(`/macros/${id}/run`, { ticketIds }),
    onSettled: () => client.invalidateQueries({ queryKey: ['tickets'] }),
  });
}
