import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiTokenInput, ApiTokenKind, ApiTokenScope } from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

/** A token as the lists answer it (contracts' ApiToken, on the wire): never the token itself. */
export interface ApiTokenRow {
  id: number;
  kind: ApiTokenKind;
  name: string;
  scope: ApiTokenScope;
  hint: string;
  userId: number;
  userName: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

const resource = (path: string, kind: ApiTokenKind) =>
  defineResource<ApiTokenRow>({
    spec: { path, listField: 'tokens' },
    listsKey: ['api-tokens', kind],
    paged: false,
    compare: (a, b) => b.id - a.id,
  });

/**
 * API tokens (docs/api.md "API tokens"): the user's own (`/api-tokens`) and, for admins, the company's
 * (`/api-tokens/company`). One unpaged list each, newest first; the server sends no event for them.
 */
export const apiTokenResources = {
  user: resource('/api-tokens', 'user'),
  company: resource('/api-tokens/company', 'company'),
} satisfies Record<ApiTokenKind, unknown>;

/** POST: the answer's token goes to the caller once (the dialog that shows it), never into the cache. */
export function useCreateApiToken(kind: ApiTokenKind) {
  const client = useQueryClient();
  const r = apiTokenResources[kind];
  return useMutation({
    mutationFn: (input: ApiTokenInput) => api.post<ApiTokenRow & { token: string }>(r.spec.path, input),
    onSuccess: ({ token: _shownOnce, ...row }) => r.put(client, row),
  });
}
