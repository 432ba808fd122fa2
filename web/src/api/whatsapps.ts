import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type {
  InboundFailureList,
  Whatsapp,
  WhatsappEvent,
  WhatsappInput,
  WhatsappSessionEvent,
  WhatsappUpdate,
} from '@recado/contracts';
import { api } from './client.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const whatsappKeys = {
  all: ['whatsapps'] as const,
  list: () => ['whatsapps', 'list'] as const,
  detail: (id: number) => ['whatsapps', 'detail', id] as const,
  inboundFailures: (id: number) => ['whatsapps', 'inbound-failures', id] as const,
};

/** Server order of GET /whatsapp: name. */
const byName = (a: Whatsapp, b: Whatsapp) => a.name.localeCompare(b.name) || a.id - b.id;

export type { WhatsappEvent, WhatsappSessionEvent };
/** The fields a session event carries (docs/product.md#states: status, qrcode, retries, updatedAt). */
export type WhatsappSession = WhatsappSessionEvent['session'];

/** An older snapshot never overwrites a newer one (answers and events may cross). */
const isStale = (current: Whatsapp | undefined, next: { updatedAt?: string }) =>
  Boolean(current && next.updatedAt && Date.parse(next.updatedAt) < Date.parse(current.updatedAt));

function putInList(client: QueryClient, whatsapp: Whatsapp) {
  client.setQueryData<Whatsapp[]>(whatsappKeys.list(), (list) => {
    if (!list) return list;
    const current = list.find((w) => w.id === whatsapp.id);
    if (isStale(current, whatsapp)) return list;
    // One default connection per company: a new default takes the flag from the others.
    const others = list
      .filter((w) => w.id !== whatsapp.id)
      .map((w) => (whatsapp.isDefault && w.isDefault ? { ...w, isDefault: false } : w));
    return [...others, whatsapp].sort(byName);
  });
}

/** Puts a connection in the list and its detail; no refetch. */
export function putWhatsapp(client: QueryClient, whatsapp: Whatsapp) {
  putInList(client, whatsapp);
  client.setQueryData<Whatsapp>(whatsappKeys.detail(whatsapp.id), (current) =>
    isStale(current, whatsapp) ? current : whatsapp,
  );
}

/** Merges a session update (status, qrcode, retries, number, updatedAt) into the cached connection. */
export function patchSession(client: QueryClient, session: WhatsappSession) {
  const id = Number(session.id);
  const merge = (w: Whatsapp): Whatsapp =>
    isStale(w, session)
      ? w
      : {
          ...w,
          status: session.status ?? w.status,
          qrcode: session.qrcode ?? w.qrcode,
          retries: session.retries ?? w.retries,
          number: session.number ?? w.number,
          updatedAt: session.updatedAt ?? w.updatedAt,
          // A state event says why it is down, or (no reason) that nothing is wrong any more.
          statusReason: session.status ? session.statusReason : w.statusReason,
        };
  client.setQueryData<Whatsapp[]>(whatsappKeys.list(), (list) => {
    if (!list) return list;
    if (list.some((w) => w.id === id)) return list.map((w) => (w.id === id ? merge(w) : w));
    // A connection this list has not seen yet: only a full view can be added.
    return session.name ? [...list, session as Whatsapp].sort(byName) : list;
  });
  client.setQueryData<Whatsapp>(whatsappKeys.detail(id), (w) => (w ? merge(w) : w));
}

export function dropWhatsapp(client: QueryClient, id: number) {
  const list = client.getQueryData<Whatsapp[]>(whatsappKeys.list());
  const wasDefault = list?.find((w) => w.id === id)?.isDefault;
  client.setQueryData<Whatsapp[]>(whatsappKeys.list(), (l) => l?.filter((w) => w.id !== id));
  client.removeQueries({ queryKey: whatsappKeys.detail(id) });
  // The server made another connection the default one without an event for it: read the list once.
  if (wasDefault && list && list.length > 1) void client.invalidateQueries({ queryKey: whatsappKeys.list() });
}

/** GET /whatsapp: the company's connections. */
export function useWhatsapps(enabled = true) {
  return useQuery({
    queryKey: whatsappKeys.list(),
    queryFn: () => api.get<Whatsapp[]>('/whatsapp'),
    enabled,
  });
}

/** GET /whatsapp/{id}/inbound-failures (admins): customer messages the server gave up on. */
export function useInboundFailures(id: number, enabled = true) {
  return useQuery({
    queryKey: whatsappKeys.inboundFailures(id),
    queryFn: () => api.get<InboundFailureList>(`/whatsapp/${id}/inbound-failures`),
    enabled,
  });
}

/**
 * GET /whatsapp/{id}, seeded from the list when it is cached; what it reads goes into the list too.
 * `fresh` reads it again whenever it is shown (the QR dialog wants the current code).
 */
export function useWhatsapp(id: number | null | undefined, opts: { fresh?: boolean } = {}) {
  const client = useQueryClient();
  return useQuery({
    queryKey: whatsappKeys.detail(Number(id)),
    queryFn: async () => {
      const whatsapp = await api.get<Whatsapp>(`/whatsapp/${id}`);
      putInList(client, whatsapp);
      return whatsapp;
    },
    enabled: Boolean(id),
    ...(opts.fresh ? { staleTime: 0 } : {}),
    initialData: () => client.getQueryData<Whatsapp[]>(whatsappKeys.list())?.find((w) => w.id === id),
    initialDataUpdatedAt: () => client.getQueryState(whatsappKeys.list())?.dataUpdatedAt,
  });
}

/** `company-{id}-whatsapp` and `company-{id}-whatsappSession` patch the cache in place: no refetch. */
export function useWhatsappsRealtime(enabled = true) {
  const client = useQueryClient();
  useCompanyEvent(
    'whatsapp',
    (data) => {
      if (data.action === 'delete') dropWhatsapp(client, Number(data.whatsappId));
      else if (data.action === 'update' && data.whatsapp) putWhatsapp(client, data.whatsapp);
    },
    enabled,
  );
  useCompanyEvent(
    'whatsappSession',
    (data) => {
      if (data.action === 'update' && data.session) patchSession(client, data.session);
    },
    enabled,
  );
}

export function useSaveWhatsapp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (
      args: { id: number; input: WhatsappUpdate } | { id?: undefined; input: Partial<WhatsappInput> },
    ) =>
      args.id
        ? api.put<Whatsapp>(`/whatsapp/${args.id}`, args.input)
        : api.post<Whatsapp>('/whatsapp', args.input),
    onSuccess: (whatsapp) => putWhatsapp(client, whatsapp),
  });
}

export function useDeleteWhatsapp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/whatsapp/${id}`),
    onSuccess: (_answer, id) => dropWhatsapp(client, id),
  });
}

export type SessionAction = 'start' | 'renew' | 'stop';
const SESSION_METHOD = { start: 'post', renew: 'put', stop: 'delete' } as const;

/** POST (start / try again), PUT (new QR code) and DELETE (disconnect) /whatsappsession/{id}. */
export function useSessionAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: SessionAction }) =>
      api[SESSION_METHOD[action]]<Whatsapp>(`/whatsappsession/${id}`),
    onSuccess: (whatsapp) => {
      if (whatsapp && typeof whatsapp === 'object') patchSession(client, whatsapp);
    },
  });
}
