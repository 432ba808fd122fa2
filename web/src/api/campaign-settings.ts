import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { campaignSettingsFrom, type CampaignSetting, type CampaignSettingsValues } from '@recado/contracts';
import { api } from './client.js';

const KEY = ['campaignSettings'] as const;

/** GET /campaign-settings, as values (defaults where a key was never saved). */
export function useCampaignSettings() {
  return useQuery({
    queryKey: KEY,
    queryFn: async () => campaignSettingsFrom(await api.get<CampaignSetting[]>('/campaign-settings')),
  });
}

export function useSaveCampaignSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (settings: Partial<CampaignSettingsValues>) =>
      campaignSettingsFrom(await api.post<CampaignSetting[]>('/campaign-settings', { settings })),
    onSuccess: (values) => client.setQueryData(KEY, values),
  });
}
