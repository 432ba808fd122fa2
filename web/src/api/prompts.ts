import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Prompt, PromptEvent, PromptList, PromptUpdate, QueueEvent } from '@recado/contracts';
import { api } from './client.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const promptKeys = {
  all: ['prompts'] as const,
  list: () => ['prompts', 'list'] as const,
};

/** Server order of GET /prompt: name, then id. */
export const byPromptName = (a: Prompt, b: Prompt) => a.name.localeCompare(b.name) || a.id - b.id;

/** Puts a created or changed prompt in the cached list, in server order; no refetch. */
export function putPrompt(client: QueryClient, prompt: Prompt) {
  client.setQueryData<Prompt[]>(promptKeys.list(), (list) => {
    if (!list) return list;
    const current = list.find((p) => p.id === prompt.id);
    // An older snapshot never overwrites a newer one (answers and events may cross).
    if (current && Date.parse(prompt.updatedAt) < Date.parse(current.updatedAt)) return list;
    return [...list.filter((p) => p.id !== prompt.id), prompt].sort(byPromptName);
  });
}

export function dropPrompt(client: QueryClient, id: number) {
  client.setQueryData<Prompt[]>(promptKeys.list(), (list) => list?.filter((p) => p.id !== id));
}

/** A queue renamed or recoloured shows so in its prompts; a deleted queue takes its prompts (the database cascades). */
export function patchPromptQueues(client: QueryClient, data: QueueEvent) {
  client.setQueryData<Prompt[]>(promptKeys.list(), (list) => {
    if (!list) return list;
    if (data.action === 'delete') return list.filter((p) => p.queueId !== Number(data.queueId));
    const q = data.queue;
    return list.map((p) =>
      p.queueId === q.id ? { ...p, queue: { id: q.id, name: q.name, color: q.color } } : p,
    );
  });
}

/** GET /prompt: the company's prompts (only when the plan has useOpenAi; the API refuses otherwise). */
export function usePrompts(enabled = true) {
  return useQuery({
    queryKey: promptKeys.list(),
    queryFn: async () => (await api.get<PromptList>('/prompt')).prompts,
    enabled,
  });
}

/** `company-{id}-prompt` patches the cached list. */
export function usePromptsRealtime(enabled = true) {
  const client = useQueryClient();
  useCompanyEvent<PromptEvent>(
    'prompt',
    (data) => {
      if (data.action === 'delete') dropPrompt(client, Number(data.promptId));
      else if (data.prompt) putPrompt(client, data.prompt as Prompt);
    },
    enabled,
  );
  // A prompt shows its queue's name and goes with its queue (the database cascades, no prompt event).
  useCompanyEvent<QueueEvent>('queue', (data) => patchPromptQueues(client, data), enabled);
}

export function useSavePrompt() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: { id?: number; input: PromptUpdate }) =>
      args.id ? api.put<Prompt>(`/prompt/${args.id}`, args.input) : api.post<Prompt>('/prompt', args.input),
    onSuccess: (prompt) => putPrompt(client, prompt),
  });
}

export function useDeletePrompt() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/prompt/${id}`),
    onSuccess: (_answer, id) => dropPrompt(client, id),
  });
}
