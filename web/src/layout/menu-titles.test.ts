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
  // The live view's title is the menu label itself.
  live: null,
  tickets: 'tickets.title',
  kanban: 'kanban.title',
  quickMessages: 'quickMessages.title',
  // #32.1 Its own namespace (pages/macros/i18n): the page title is the menu label in each language.
  macros: null,
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
  // The SLA screen's texts are their own namespace (pages/sla/i18n): its title is "SLA" in every language.
  sla: null,
  // #32.7 Its own namespace (pages/custom-fields/i18n): the page title is the menu label in each language.
  customFields: null,
  // The flow screens' texts are their own namespace (pages/flows/i18n); flow-i18n.test.ts checks the title.
  flows: null,
  users: 'users.title',
  messagesApi: null,
  settings: 'settings.title',
  // #32.6 Its own namespace (pages/audit/i18n): the page title is the menu label in each language.
  auditLog: null,
  // #32.3 Its own namespace (pages/closing/closing-i18n.ts): the page title is the menu label in each language.
  closingReasons: null,
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
  useFlows: true,
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
