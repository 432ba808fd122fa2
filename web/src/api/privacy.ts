import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ContactConsent,
  ContactEraseResult,
  OptedOutContacts,
  PrivacySettings,
  PrivacySettingsInput,
  RetentionPreview,
} from '@recado/contracts';
import { api, currentToken, refreshToken, ApiError } from './client.js';
import { contactKeys } from './contacts.js';

/** #35 Privacy (docs/privacy.md): settings, consent, opt-outs, data subject requests and retention. */
export const privacyKeys = {
  settings: ['privacy', 'settings'] as const,
  preview: ['privacy', 'preview'] as const,
  optedOut: ['privacy', 'opted-out'] as const,
  consent: (contactId: number) => ['privacy', 'consent', contactId] as const,
};

export const usePrivacySettings = (enabled = true) =>
  useQuery({
    queryKey: privacyKeys.settings,
    queryFn: () => api.get<PrivacySettings>('/settings/privacy'),
    enabled,
  });

export function useSavePrivacySettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: PrivacySettingsInput) => api.put<PrivacySettings>('/settings/privacy', input),
    onSuccess: (saved) => {
      client.setQueryData(privacyKeys.settings, saved);
      void client.invalidateQueries({ queryKey: privacyKeys.preview });
    },
  });
}

export const useRetentionPreview = (enabled = true) =>
  useQuery({
    queryKey: privacyKeys.preview,
    queryFn: () => api.get<RetentionPreview>('/privacy/retention/preview'),
    enabled,
  });

export const useContactConsent = (contactId: number, enabled = true) =>
  useQuery({
    queryKey: privacyKeys.consent(contactId),
    queryFn: () => api.get<ContactConsent>(`/contacts/${contactId}/consent`),
    enabled,
    retry: false,
  });

/** The company's opted-out contacts (refused consent or sent the opt-out word), as a set of ids. */
export function useOptedOut(enabled = true) {
  const q = useQuery({
    queryKey: privacyKeys.optedOut,
    queryFn: () => api.get<OptedOutContacts>('/privacy/opted-out'),
    enabled,
    staleTime: 60_000,
    select: (d) => new Set(d.ids),
  });
  return q.data;
}

/**
 * A signed-in GET of a file, saved by the browser under `filename` (one token refresh on an expired session).
 * Also the company archive's download (api/company-transfer.ts).
 */
export async function downloadAuthenticated(path: string, filename: string) {
  const get = () =>
    fetch(`/api${path}`, {
      headers: { authorization: `Bearer ${currentToken() ?? ''}` },
      credentials: 'include',
    });
  let res = await get();
  if (res.status === 403) {
    const body = (await res
      .clone()
      .json()
      .catch(() => ({}))) as { error?: string };
    if (body.error === 'ERR_SESSION_EXPIRED') {
      await refreshToken();
      res = await get();
    }
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
    throw new ApiError(res.status, body.error ?? 'ERR_INTERNAL_SERVER_ERROR', body.message ?? res.statusText);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** GET /contacts/{id}/export: the ZIP, saved by the browser (the request is recorded in the audit log). */
export const downloadContactExport = (contactId: number) =>
  downloadAuthenticated(`/contacts/${contactId}/export`, `contact-${contactId}.zip`);

export function useEraseContact() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (contactId: number) =>
      api.post<ContactEraseResult>(`/contacts/${contactId}/erase`, { confirm: true }),
    onSuccess: (_r, contactId) => {
      void client.invalidateQueries({ queryKey: contactKeys.all });
      void client.invalidateQueries({ queryKey: ['tickets'] });
      void client.invalidateQueries({ queryKey: ['messages'] });
      void client.invalidateQueries({ queryKey: privacyKeys.consent(contactId) });
      void client.invalidateQueries({ queryKey: privacyKeys.optedOut });
    },
  });
}
