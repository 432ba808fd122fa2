import { useQuery } from '@tanstack/react-query';
import type { Campaign, FileList, FlowReferenceKind, Tag } from '@recado/contracts';
import { api } from '../../api/client.js';
import { fetchAllPages, useAllFlows } from '../../api/flows.js';
import { useQueues } from '../../api/queues.js';
import { usePrompts } from '../../api/prompts.js';
import { useQueueIntegrationOptions } from '../../api/queue-integrations.js';
import { usePlanFlag } from '../../app/guards.js';

export interface PickOption {
  id: number;
  name: string;
  /** Integrations: typebot, n8n...; file list entries: the list's id. */
  kind?: string;
  color?: string;
}

/**
 * The company's lists the side panel and the import mapping pick from: queues, users, prompts, integrations,
 * file lists (with their files), tags, flows and campaigns. Each is read once, while the editor is open;
 * lists the plan does not include are not read.
 */
export function useFlowPickers(enabled = true) {
  const ai = usePlanFlag('useOpenAi');
  const integrationsAllowed = usePlanFlag('useIntegrations');
  const campaignsAllowed = usePlanFlag('useCampaigns');
  const queues = useQueues(enabled);
  const users = useQuery({
    queryKey: ['users', 'options'],
    queryFn: () => api.get<{ id: number; name: string }[]>('/users/list'),
    enabled,
    staleTime: 5 * 60_000,
  });
  const prompts = usePrompts(enabled && ai);
  const integrations = useQueueIntegrationOptions(enabled && integrationsAllowed);
  const fileLists = useQuery({
    queryKey: ['fileLists', 'all'],
    queryFn: ({ signal }) => fetchAllPages<FileList>('/files', 'files', signal),
    enabled,
  });
  const tags = useQuery({
    queryKey: ['tags', 'list', 'options'],
    queryFn: () => api.get<Tag[]>('/tags/list'),
    enabled,
    staleTime: 5 * 60_000,
  });
  const flows = useAllFlows(enabled);
  const campaigns = useQuery({
    queryKey: ['campaigns', 'all'],
    queryFn: ({ signal }) => fetchAllPages<Campaign>('/campaigns', 'records', signal),
    enabled: enabled && campaignsAllowed,
  });

  const lists: Record<FlowReferenceKind, PickOption[]> = {
    queue: (queues.data ?? []).map((q) => ({ id: q.id, name: q.name, color: q.color })),
    user: (users.data ?? []).map((u) => ({ id: u.id, name: u.name })),
    prompt: (prompts.data ?? []).map((p) => ({ id: p.id, name: p.name })),
    integration: (integrations.data ?? []).map((i) => ({ id: i.id, name: i.name, kind: i.type })),
    fileList: (fileLists.data ?? []).map((f) => ({ id: f.id, name: f.name })),
    file: (fileLists.data ?? []).flatMap((f) =>
      f.options.map((o) => ({ id: o.id, name: `${f.name} · ${o.name}`, kind: String(f.id) })),
    ),
    tag: (tags.data ?? []).map((t) => ({ id: t.id, name: t.name, color: t.color })),
    flow: (flows.data ?? []).map((f) => ({ id: f.id, name: f.name })),
    campaign: (campaigns.data ?? []).map((c) => ({ id: c.id, name: c.name })),
  };
  return { lists, plan: { ai, integrations: integrationsAllowed, campaigns: campaignsAllowed } };
}
export type FlowPickers = ReturnType<typeof useFlowPickers>;
