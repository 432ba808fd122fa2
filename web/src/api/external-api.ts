import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiSendResult, ConnectionToken, ErrorBody } from '@recado/contracts';
import { api, ApiError } from './client.js';

const tokenKey = (id: number) => ['whatsapp-token', id] as const;

/** GET /whatsapp/{id}/token (admins): the connection's API token. */
export function useConnectionToken(id: number | null, enabled: boolean) {
  return useQuery({
    queryKey: tokenKey(id ?? 0),
    queryFn: () => api.get<ConnectionToken>(`/whatsapp/${id}/token`),
    enabled: enabled && Boolean(id),
    staleTime: Infinity,
  });
}

/** POST /whatsapp/{id}/token (admins): a new token; the old one stops working. */
export function useRegenerateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<ConnectionToken>(`/whatsapp/${id}/token`),
    onSuccess: (answer, id) => client.setQueryData(tokenKey(id), answer),
  });
}

/**
 * POST /api/messages/send with a connection token (not the user's session): what an integrator's call does.
 * `form` is JSON fields or a FormData (number, body, medias).
 */
export async function sendWithToken(token: string, form: FormData | Record<string, unknown>) {
  const isForm = form instanceof FormData;
  const res = await fetch('/api/messages/send', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token.trim()}`,
      ...(isForm ? {} : { 'content-type': 'application/json' }),
    },
    body: isForm ? form : JSON.stringify(form),
  });
  const body = (await res.json().catch(() => ({}))) as ErrorBody & Record<string, unknown>;
  if (!res.ok)
    throw new ApiError(
      res.status,
      body.error ?? 'ERR_INTERNAL_SERVER_ERROR',
      body.message ?? res.statusText,
      body,
    );
  return body as unknown as ApiSendResult;
}
