import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type {
  Campaign,
  CampaignReport,
  ContactList,
  Prompt,
  QuickMessage,
  Queue,
  Tag,
  UserView,
  Whatsapp,
} from '@recado/contracts';
import type { ListData } from '../components/useInfiniteList.js';
import { campaignKeys, campaignResource } from './campaigns.js';
import { contactListKeys, contactListResource } from './contact-lists.js';
import { queueKeys, queueResource } from './queues.js';
import { quickMessageKeys, quickMessageResource } from './quick-messages.js';
import { patchPromptQueues, promptKeys, promptResource } from './prompts.js';
import { kanbanKeys, tagKeys, tagResource } from './tags.js';

/** The cache side of the resource kit, once for every resource defined with it. */

const tag = (over: Partial<Tag>): Tag =>
  ({ id: 1, name: 'x', color: '#000000', kanban: 0, ticketsCount: 0, companyId: 1, ...over }) as Tag;

const pages = <T>(client: QueryClient, key: readonly unknown[]) =>
  client.getQueryData<ListData<T>>(key)?.pages.flatMap((p) => p.items);
const seed = <T>(client: QueryClient, key: readonly unknown[], items: T[], hasMore = false) =>
  client.setQueryData<ListData<T>>(key, { pages: [{ items, hasMore }], pageParams: [1] });

describe('defineResource: paged lists', () => {
  test('keys: one list per trimmed, lower-case search under the lists prefix', () => {
    expect(tagResource.keys.list('  Ab ')).toEqual([...tagKeys.pages(), 'ab']);
    expect(tagResource.keys.list('')).toEqual(tagKeys.page(''));
  });

  test('put places a record in every list whose search it matches, in server order; drop removes it', () => {
    const client = new QueryClient();
    seed(client, tagResource.keys.list(''), [tag({ id: 1, name: 'Beta' })]);
    seed(client, tagResource.keys.list('al'), [] as Tag[]);
    tagResource.put(client, tag({ id: 2, name: 'alfa' }));
    tagResource.put(client, tag({ id: 3, name: 'Gama' }));
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.id)).toEqual([2, 1, 3]);
    expect(pages<Tag>(client, tagResource.keys.list('al'))!.map((x) => x.id)).toEqual([2]);
    // Renamed out of a search: it leaves that list and is replaced where it is in the others.
    tagResource.put(client, tag({ id: 2, name: 'Zeta' }));
    expect(pages<Tag>(client, tagResource.keys.list('al'))).toEqual([]);
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.name)).toEqual([
      'Zeta',
      'Beta',
      'Gama',
    ]);
    tagResource.drop(client, 1);
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.id)).toEqual([2, 3]);
  });

  test('a record past the loaded rows waits for its page', () => {
    const client = new QueryClient();
    seed(client, tagResource.keys.list(''), [tag({ id: 1, name: 'a' }), tag({ id: 2, name: 'b' })], true);
    tagResource.put(client, tag({ id: 3, name: 'z' }));
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.id)).toEqual([1, 2]);
  });

  test("the resource's own side effects run with put and drop (tags: picker list and lanes)", () => {
    const client = new QueryClient();
    client.setQueryData<Tag[]>(tagKeys.options(), [tag({ id: 1, name: 'b' })]);
    client.setQueryData<Tag[]>(kanbanKeys.lanes(), []);
    tagResource.put(client, tag({ id: 2, name: 'a', kanban: 1 }));
    expect(client.getQueryData<Tag[]>(tagKeys.options())!.map((x) => x.id)).toEqual([2, 1]);
    expect(client.getQueryData<Tag[]>(kanbanKeys.lanes())!.map((x) => x.id)).toEqual([2]);
    tagResource.drop(client, 2);
    expect(client.getQueryData<Tag[]>(tagKeys.options())!.map((x) => x.id)).toEqual([1]);
    expect(client.getQueryData<Tag[]>(kanbanKeys.lanes())).toEqual([]);
  });
});

describe("resources' own caches", () => {
  test('quick messages: the "/" suggestions hold only active entries', () => {
    const client = new QueryClient();
    const q = (over: Partial<QuickMessage>) =>
      ({ id: 1, shortcode: 'b', message: 'm', status: true, ...over }) as QuickMessage;
    client.setQueryData<QuickMessage[]>(quickMessageKeys.suggestions(), [q({ id: 1 })]);
    quickMessageResource.put(client, q({ id: 2, shortcode: 'a' }));
    expect(client.getQueryData<QuickMessage[]>(quickMessageKeys.suggestions())!.map((x) => x.id)).toEqual([
      2, 1,
    ]);
    quickMessageResource.put(client, q({ id: 1, status: false }));
    quickMessageResource.drop(client, 2);
    expect(client.getQueryData(quickMessageKeys.suggestions())).toEqual([]);
  });

  test('contact lists: the open list follows, and goes with its deletion', () => {
    const client = new QueryClient();
    const l = { id: 5, name: 'VIP', contactsCount: 3 } as ContactList;
    contactListResource.put(client, l);
    expect(client.getQueryData(contactListKeys.detail(5))).toEqual(l);
    contactListResource.drop(client, 5);
    expect(client.getQueryData(contactListKeys.detail(5))).toBeUndefined();
  });
});

describe('campaigns', () => {
  test('the open report follows a saved campaign and goes with its deletion', () => {
    const client = new QueryClient();
    const report = { id: 3, name: 'Old', counts: { valid: 1 } } as unknown as CampaignReport;
    client.setQueryData(campaignKeys.report(3), report);
    campaignResource.put(client, { id: 3, name: 'New' } as Campaign);
    expect(client.getQueryData(campaignKeys.report(3))).toEqual({ ...report, name: 'New' });
    campaignResource.drop(client, 3);
    expect(client.getQueryData(campaignKeys.report(3))).toBeUndefined();
  });
});

describe('defineResource: unpaged lists (prompts)', () => {
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
    baseUrl: '',
    queue: { id: 7, name: 'Vendas', color: '#000001' },
    createdAt: '2026-01-01T10:00:00.000Z',
    updatedAt: '2026-01-01T10:00:00.000Z',
    ...over,
  });
  const list = (client: QueryClient) => client.getQueryData<Prompt[]>(promptKeys.list())!;

  test('put keeps server order and never goes back in time; drop removes', () => {
    const client = new QueryClient();
    client.setQueryData(promptKeys.list(), [prompt({ id: 1, name: 'Bravo' })]);
    promptResource.put(client, prompt({ id: 2, name: 'Alfa' }));
    promptResource.put(client, prompt({ id: 3, name: 'Charlie' }));
    expect(list(client).map((p) => p.id)).toEqual([2, 1, 3]);
    promptResource.put(client, prompt({ id: 1, name: 'Delta', updatedAt: '2026-01-01T11:00:00.000Z' }));
    expect(list(client).map((p) => p.name)).toEqual(['Alfa', 'Charlie', 'Delta']);
    // An older snapshot arriving late is ignored.
    promptResource.put(client, prompt({ id: 1, name: 'Bravo', updatedAt: '2026-01-01T10:30:00.000Z' }));
    expect(list(client).find((p) => p.id === 1)!.name).toBe('Delta');
    promptResource.drop(client, 2);
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
    promptResource.put(client, prompt({}));
    promptResource.drop(client, 1);
    expect(client.getQueryData(promptKeys.list())).toBeUndefined();
  });
});

describe('defineResource: unpaged lists (queues, with the copies other records hold)', () => {
  const queue = (over: Partial<Queue>): Queue => ({
    id: 1,
    companyId: 1,
    name: 'Q',
    color: '#000001',
    orderQueue: null,
    greetingMessage: '',
    outOfHoursMessage: '',
    completionMessage: '',
    schedules: [],
    integrationId: null,
    promptId: null,
    assignmentPolicy: 'manual',
    capacity: null,
    waitingMessage: '',
    waitingMessageStep: 1,
    waitingMessageInterval: 5,
    createdAt: '2026-01-01T10:00:00.000Z',
    updatedAt: '2026-01-01T10:00:00.000Z',
    ...over,
  });

  test('live events keep the list in server order and never go back in time', () => {
    const client = new QueryClient();
    client.setQueryData(queueKeys.list(), [queue({ id: 1, name: 'B', orderQueue: 2 })]);
    queueResource.put(client, queue({ id: 2, name: 'A', orderQueue: 2 }));
    queueResource.put(client, queue({ id: 3, name: 'Z', orderQueue: 1 }));
    queueResource.put(client, queue({ id: 4, name: 'None' }));
    const ids = () => client.getQueryData<Queue[]>(queueKeys.list())!.map((q) => q.id);
    expect(ids()).toEqual([3, 2, 1, 4]);
    queueResource.put(
      client,
      queue({ id: 3, name: 'Old', orderQueue: 9, updatedAt: '2025-01-01T00:00:00.000Z' }),
    );
    expect(client.getQueryData<Queue[]>(queueKeys.list())!.find((q) => q.id === 3)!.name).toBe('Z');
    queueResource.drop(client, 2);
    expect(ids()).toEqual([3, 1, 4]);
  });

  test("a renamed or deleted queue is patched in the users' and connections' copies", () => {
    const client = new QueryClient();
    const ref = { id: 7, name: 'Old', color: '#111111' };
    const other = { id: 8, name: 'Other', color: '#222222' };
    client.setQueryData(['users', 'list', ''], {
      pages: [{ items: [{ id: 1, queues: [ref, other] } as UserView], hasMore: false }],
      pageParams: [1],
    });
    client.setQueryData(['whatsapps', 'list'], [{ id: 5, queues: [ref] } as Whatsapp]);
    client.setQueryData(['whatsapps', 'detail', 5], { id: 5, queues: [ref] } as Whatsapp);
    queueResource.put(client, queue({ id: 7, name: 'New', color: '#333333' }));
    const users = () =>
      client.getQueryData<{ pages: { items: UserView[] }[] }>(['users', 'list', ''])!.pages[0]!.items[0]!;
    expect(users().queues).toEqual([{ id: 7, name: 'New', color: '#333333' }, other]);
    expect(client.getQueryData<Whatsapp[]>(['whatsapps', 'list'])![0]!.queues[0]!.name).toBe('New');
    queueResource.drop(client, 7);
    expect(users().queues).toEqual([other]);
    expect(client.getQueryData<Whatsapp[]>(['whatsapps', 'list'])![0]!.queues).toEqual([]);
    expect(client.getQueryData<Whatsapp>(['whatsapps', 'detail', 5])!.queues).toEqual([]);
  });
});
