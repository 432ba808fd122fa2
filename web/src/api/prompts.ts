import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { RESOURCES, type Prompt, type PromptUpdate, type QueueEvent } from '@recado/contracts';
import { defineResource } from './resource.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const promptKeys = {
  all: ['prompts'] as const,
  list: () => ['prompts', 'list'] as const,
};

/** Server order of GET /prompt: name, then id. */
export const byPromptName = (a: Prompt, b: Prompt) => a.name.localeCompare(b.name) || a.id - b.id;

/**
 * Prompts: GET /prompt answers every prompt ({ prompts }), `company-{id}-prompt`. Saved or live prompts go
 * into the cached list in server order, never older over newer (answers and events may cross).
 */
export const promptResource = defineResource<Prompt, PromptUpdate>({
  spec: RESOURCES.prompt,
  listsKey: promptKeys.list(),
  paged: false,
  compare: byPromptName,
  newestWins: true,
});
export const putPrompt = promptResource.put;
export const dropPrompt = promptResource.drop;

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
export const usePrompts = promptResource.useAll;

/** `company-{id}-prompt` patches the cached list, and so do queue events (a prompt shows its queue). */
export function usePromptsRealtime(enabled = true) {
  const client = useQueryClient();
  promptResource.useRealtime(enabled);
  // A prompt shows its queue's name and goes with its queue (the database cascades, no prompt event).
  useCompanyEvent('queue', (data) => patchPromptQueues(client, data), enabled);
}

/** The list screen's hooks: the resource's, with the queue events. */
export const promptListResource = { ...promptResource, useRealtime: usePromptsRealtime };
export const useSavePrompt = promptResource.useSave;
