import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { normalizeNumber, type SimulatorEvent, type SimulatorInbound } from '@recado/contracts';
import { api, currentToken, refreshToken } from './client.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { joinRoom, leaveRoom } from '../realtime/socket.js';

/** One message as the customer's phone sees it (GET /simulator/{id}/conversations/{number}). */
export interface SimulatorMessage {
  id: string;
  number: string;
  /** true: sent by the company; false: sent by the customer. */
  fromMe: boolean;
  body: string;
  mediaType: string | null;
  mediaUrl: string | null;
  /** The file's name (absent on the page's own copy until the server's arrives). */
  mediaName?: string | null;
  /** 0 while the page is still sending it; 1 sent, 2 delivered, 3 read. */
  ack: number;
  isDeleted: boolean;
  /** Changed by the company after it was sent. */
  isEdited?: boolean;
  /** The message this one answers. */
  quoted?: { id: string; fromMe: boolean; body: string; mediaType: string | null } | null;
  createdAt: string;
  /** Only on messages this page sends, until the server's copy replaces them. */
  local?: { url?: string; filename?: string; mimetype?: string; failed?: boolean };
}

export interface SimulatorCustomer {
  number: string;
  name: string;
  lastMessage: string;
  /** The last message's file kind and name: a file without a caption still shows in the list. */
  lastMediaType?: string | null;
  lastMediaName?: string | null;
  lastAt: string;
}

/** `company-{id}-simulator`: one definition in contracts (ServerEvents). */
export type { SimulatorEvent };

export const simulatorKeys = {
  customers: (whatsappId: number) => ['simulator', whatsappId, 'customers'] as const,
  conversation: (whatsappId: number, number: string) =>
    ['simulator', whatsappId, 'conversation', number] as const,
};

/** Replaces a message by id (acks only move forward, a quote stays) or appends it. */
export function upsertMessage(list: SimulatorMessage[], message: SimulatorMessage): SimulatorMessage[] {
  const i = list.findIndex((m) => m.id === message.id);
  if (i < 0) return [...list, message];
  const current = list[i]!;
  const next = [...list];
  next[i] = {
    ...message,
    ack: Math.max(current.ack, message.ack),
    // An update that does not carry the quote (an ack) keeps the one already known.
    quoted: message.quoted ?? current.quoted ?? null,
    local: message.local ?? current.local,
  };
  return next;
}

/** The server's media kinds: image, audio, video, or application for everything else. */
export const mediaTypeOf = (mimetype: string) => {
  const top = mimetype.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'application';
};

function touchCustomer(client: QueryClient, whatsappId: number, message: SimulatorMessage, name?: string) {
  client.setQueryData<SimulatorCustomer[]>(simulatorKeys.customers(whatsappId), (list) => {
    if (!list) return list;
    const current = list.find((c) => c.number === message.number);
    const customer: SimulatorCustomer = {
      number: message.number,
      name: name || current?.name || message.number,
      lastMessage: message.body,
      lastMediaType: message.mediaType,
      lastMediaName: message.mediaName ?? message.local?.filename ?? null,
      lastAt: message.createdAt,
    };
    return [customer, ...list.filter((c) => c.number !== message.number)];
  });
}

/** GET /simulator/{id}/conversations: the customers of this simulator, newest conversation first. */
export function useSimulatorCustomers(whatsappId: number, enabled = true) {
  return useQuery({
    queryKey: simulatorKeys.customers(whatsappId),
    queryFn: () => api.get<SimulatorCustomer[]>(`/simulator/${whatsappId}/conversations`),
    enabled,
  });
}

/** GET /simulator/{id}/conversations/{number}: every message both ways, oldest first. */
export function useSimulatorConversation(whatsappId: number, number: string | null) {
  const query = useQuery({
    queryKey: simulatorKeys.conversation(whatsappId, number ?? ''),
    queryFn: () => api.get<SimulatorMessage[]>(`/simulator/${whatsappId}/conversations/${number}`),
    enabled: Boolean(number),
  });
  const { refetch } = query;
  // The conversation's events reach admins and the sockets following it (the server checks the user may
  // see its ticket); once the join is confirmed, read again what happened in between.
  useEffect(() => {
    const digits = number ? normalizeNumber(number) : '';
    if (!digits) return;
    const room = `simulator-${whatsappId}-${digits}`;
    const onJoined = () => void refetch();
    joinRoom(room, onJoined);
    return () => leaveRoom(room, onJoined);
  }, [whatsappId, number, refetch]);
  return query;
}

/**
 * `company-{id}-simulator` keeps the open simulator live: new messages both ways and ack changes are patched
 * into the cached conversation and the customer list. The page asks for the whole connection's room
 * (`simulator-{whatsappId}`: granted to those who may read every conversation) and the open conversation's
 * (above); once the connection's room is confirmed, the customer list is read again.
 */
export function useSimulatorRealtime(whatsappId: number, onMessage?: (event: SimulatorEvent) => void) {
  const client = useQueryClient();
  useEffect(() => {
    const room = `simulator-${whatsappId}`;
    const onJoined = () => void client.invalidateQueries({ queryKey: simulatorKeys.customers(whatsappId) });
    joinRoom(room, onJoined);
    return () => leaveRoom(room, onJoined);
  }, [whatsappId, client]);
  useCompanyEvent('simulator', (data) => {
    if (Number(data.whatsappId) !== whatsappId || !data.message) return;
    const message = data.message;
    client.setQueryData<SimulatorMessage[]>(simulatorKeys.conversation(whatsappId, message.number), (list) =>
      list ? upsertMessage(list, message) : list,
    );
    if (data.action === 'message') touchCustomer(client, whatsappId, message);
    onMessage?.(data);
  });
}

/** A provider id made by the page, so a retried send is never a duplicate. */
export const newMessageId = () =>
  `SIMWEB${Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase()}`;

/**
 * POST /simulator/{id}/inbound: the customer sends a message. It shows at once (ack 0, a clock) and the
 * server's copy replaces it; the id is made here, so a retry is never a duplicate.
 */
export function useSendAsCustomer(whatsappId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: SimulatorInbound & { id: string; localUrl?: string }) => {
      const { localUrl: _l, ...body } = input;
      return api.post<{ id: string }>(`/simulator/${whatsappId}/inbound`, body);
    },
    onMutate: (input) => {
      const number = normalizeNumber(input.from);
      const message: SimulatorMessage = {
        id: input.id,
        number,
        fromMe: false,
        body: input.body ?? '',
        mediaType: input.media ? mediaTypeOf(input.media.mimetype) : null,
        mediaUrl: null,
        ack: 0,
        isDeleted: false,
        createdAt: new Date().toISOString(),
        local: input.media
          ? { url: input.localUrl, filename: input.media.filename, mimetype: input.media.mimetype }
          : {},
      };
      const key = simulatorKeys.conversation(whatsappId, number);
      client.setQueryData<SimulatorMessage[]>(key, (list) => upsertMessage(list ?? [], message));
      touchCustomer(client, whatsappId, message, input.name);
      return { key, id: input.id };
    },
    onSuccess: (_answer, _input, ctx) => {
      client.setQueryData<SimulatorMessage[]>(ctx.key, (list) =>
        list?.map((m) => (m.id === ctx.id ? { ...m, ack: Math.max(m.ack, 1) } : m)),
      );
    },
    onError: (_err, _input, ctx) => {
      if (!ctx) return;
      client.setQueryData<SimulatorMessage[]>(ctx.key, (list) =>
        list?.map((m) => (m.id === ctx.id ? { ...m, local: { ...m.local, failed: true } } : m)),
      );
    },
  });
}

/** POST /simulator/{id}/read/{number}: the customer has read the company's messages (ack 3). */
export const customerRead = (whatsappId: number, number: string) =>
  api.post<{ read: number }>(`/simulator/${whatsappId}/read/${number}`);

/** Fetches media that needs the bearer token (one refresh on an expired token). */
export async function fetchMedia(url: string): Promise<Blob> {
  const get = () => fetch(url, { headers: { authorization: `Bearer ${currentToken() ?? ''}` } });
  let res = await get();
  if (res.status === 403) {
    await refreshToken();
    res = await get();
  }
  if (!res.ok) throw new Error(`media ${res.status}`);
  return res.blob();
}

/** An object URL of the media at `url` (fetched with the token), revoked when no longer used. */
export function useMediaUrl(url: string | null | undefined): { src: string | null; failed: boolean } {
  const [state, setState] = useState<{ url: string; src: string | null; failed: boolean } | null>(null);
  useEffect(() => {
    if (!url) return;
    let objectUrl: string | null = null;
    let cancelled = false;
    fetchMedia(url)
      .then((blob) => {
        if (cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setState({ url, src: objectUrl, failed: false });
      })
      .catch(() => {
        if (!cancelled) setState({ url, src: null, failed: true });
      });
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url]);
  if (!url || state?.url !== url) return { src: null, failed: false };
  return { src: state.src, failed: state.failed };
}
