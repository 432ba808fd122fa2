import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Prompt, Queue } from '@recado/contracts';
import { dropPrompt, patchPromptQueues, promptKeys, putPrompt } from '../../api/prompts.js';

const prompt = (over: Partial<Prompt>): Prompt => ({
  id: 1,
  companyId: 1,
  name: 'Assistente',
  prompt: 'x'.repeat(50),
  model: 'gpt-3.5-turbo-1106',
  maxTokens: 100,
  temperature: 1,
  apiKey: '********',
  queueId: 7,
  maxMessages: 10,
  queue: { id: 7, name: 'Vendas', color: '#000001' },
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  ...over,
});

const list = (client: QueryClient) => client.getQueryData<Prompt[]>(promptKeys.list())!;

describe('prompt cache', () => {
  test('live events keep the list in name order and never go back in time', () => {
    const client = new QueryClient();
    client.setQueryData(promptKeys.list(), [prompt({ id: 1, name: 'Bravo' })]);
    putPrompt(client, prompt({ id: 2, name: 'Alfa' }));
    putPrompt(client, prompt({ id: 3, name: 'Charlie' }));
    expect(list(client).map((p) => p.id)).toEqual([2, 1, 3]);
    putPrompt(client, prompt({ id: 1, name: 'Delta', updatedAt: '2026-01-01T11:00:00.000Z' }));
    expect(list(client).map((p) => p.name)).toEqual(['Alfa', 'Charlie', 'Delta']);
    // An older snapshot arriving late is ignored.
    putPrompt(client, prompt({ id: 1, name: 'Bravo', updatedAt: '2026-01-01T10:30:00.000Z' }));
    expect(list(client).find((p) => p.id === 1)!.name).toBe('Delta');
    dropPrompt(client, 2);
    expect(list(client).map((p) => p.id)).toEqual([3, 1]);
  });

  test('a queue event renames the queue of its prompts, and a deleted queue takes them away', () => {
    const client = new QueryClient();
    client.setQueryData(promptKeys.list(), [
      prompt({ id: 1, name: 'A', queueId: 7 }),
      prompt({ id: 2, name: 'B', queueId: 8, queue: { id: 8, name: 'Suporte', color: '#000002' } }),
    ]);
    patchPromptQueues(client, {
      action: 'update',
      queue: { id: 7, name: 'Vendas B2B', color: '#ABCDEF' } as Queue,
    });
    expect(list(client)[0]!.queue).toEqual({ id: 7, name: 'Vendas B2B', color: '#ABCDEF' });
    expect(list(client)[1]!.queue!.name).toBe('Suporte');
    patchPromptQueues(client, { action: 'delete', queueId: 8 });
    expect(list(client).map((p) => p.id)).toEqual([1]);
  });

  test('nothing cached, nothing written', () => {
    const client = new QueryClient();
    putPrompt(client, prompt({}));
    dropPrompt(client, 1);
    expect(client.getQueryData(promptKeys.list())).toBeUndefined();
  });
});
