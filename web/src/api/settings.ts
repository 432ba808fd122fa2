import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SETTING_DEFAULTS, type Setting, type SettingKey } from '@recado/contracts';
import { api } from './client.js';
import { useAuth } from '../app/auth.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const settingKeys = { all: ['settings'] as const };

function replaceSetting(list: Setting[] | undefined, setting: Setting): Setting[] {
  const rest = (list ?? []).filter((s) => s.key !== setting.key);
  return [...rest, setting];
}

/**
 * GET /settings: the company's key/value list, live. Starts from the settings that came with the
 * session (user.company.settings) and stays current through `company-{id}-settings`.
 */
export function useSettings() {
  const { user } = useAuth();
  const client = useQueryClient();
  useCompanyEvent('settings', (data) => {
    if (data.action === 'update' && data.setting)
      client.setQueryData<Setting[]>(settingKeys.all, (list) => replaceSetting(list, data.setting));
  });
  return useQuery({
    queryKey: settingKeys.all,
    queryFn: () => api.get<Setting[]>('/settings'),
    placeholderData: user?.company.settings as Setting[] | undefined,
    enabled: Boolean(user),
  });
}

/** One setting's value, falling back to its default while loading. */
export function useSetting(key: SettingKey): string {
  const { data } = useSettings();
  return data?.find((s) => s.key === key)?.value ?? SETTING_DEFAULTS[key];
}

/** PUT /settings/{key} { value }. */
export function useUpdateSetting() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value }: Setting) => api.put<Setting>(`/settings/${key}`, { value }),
    onSuccess: (setting) =>
      client.setQueryData<Setting[]>(settingKeys.all, (list) => replaceSetting(list, setting)),
  });
}
