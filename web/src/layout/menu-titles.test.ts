import { describe, expect, test } from 'vitest';
import pt from '../i18n/pt.json';
import en from '../i18n/en.json';
import es from '../i18n/es.json';
import { menuEntries, type MenuEntry } from './menu-entries.js';

/**
 * Issue 21 §5: one name per screen in each language. Each side-menu entry's label (menu.{key}) is the
 * title its page shows. Entries whose page has no title of its own show the menu label itself (the
 * dashboard, the "coming soon" screens); a group's first child opens the group's own screen.
 */
const PAGE_TITLE: Record<string, string | null> = {
  dashboard: null,
  tickets: 'tickets.title',
  kanban: 'kanban.title',
  quickMessages: 'quickMessages.title',
  contacts: 'contacts.title',
  schedules: 'schedules.title',
  tags: 'tags.title',
  chats: null,
  helps: 'helps.title',
  todolist: 'todo.title',
  campaigns: 'campaigns.title',
  campaignsList: null,
  contactLists: 'contactLists.title',
  campaignsConfig: 'campaignSettings.title',
  announcements: 'announcements.title',
  prompts: 'prompts.title',
  queueIntegration: 'queueIntegrations.title',
  connections: 'connections.title',
  files: 'files.title',
  queues: 'queues.title',
  users: 'users.title',
  messagesApi: null,
  settings: 'settings.title',
  invoices: null,
};

const read = (dict: object, path: string) =>
  path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], dict);

const ALL_FLAGS = {
  useKanban: true,
  useSchedules: true,
  useInternalChat: true,
  useCampaigns: true,
  useOpenAi: true,
  useIntegrations: true,
  useExternalApi: true,
};
const flatten = (entries: MenuEntry[]): MenuEntry[] =>
  entries.flatMap((e) => [e, ...flatten(e.children ?? [])]);
const everyEntry = () => {
  const { main, admin } = menuEntries({ profile: 'admin', super: true } as never, ALL_FLAGS, true);
  return flatten([...main, ...admin]);
};

describe.each([
  ['pt', pt],
  ['en', en],
  ['es', es],
] as const)('menu labels and page titles (%s)', (_lang, dict) => {
  test('every menu entry is known here', () => {
    for (const e of everyEntry()) expect(Object.keys(PAGE_TITLE), e.key).toContain(e.key);
  });
  test("each menu label is its page's title", () => {
    for (const [key, title] of Object.entries(PAGE_TITLE)) {
      if (!title) continue;
      expect(read(dict, `menu.${key}`), key).toBe(read(dict, title));
    }
  });
  test('no two menu entries share a label', () => {
    const labels = everyEntry()
      .filter((e) => !e.children)
      .map((e) => read(dict, `menu.${e.key}`));
    expect(new Set(labels).size).toBe(labels.length);
  });
});
