import { describe, expect, test } from 'vitest';
import { isActive, menuEntries, shortName } from './menu-entries.js';

const keys = (s: { key: string }[]) => s.map((e) => e.key);
const allFlags = {
  useCampaigns: true,
  useKanban: true,
  useOpenAi: true,
  useIntegrations: true,
  useSchedules: true,
  useInternalChat: true,
  useExternalApi: true,
  useFlows: true,
};

describe('side menu entries', () => {
  test('an attendant sees no dashboard and no administration', () => {
    const { main, admin } = menuEntries({ profile: 'user' }, allFlags, false);
    expect(keys(main)).not.toContain('dashboard');
    expect(keys(main)).not.toContain('live');
    expect(keys(main)).toContain('tickets');
    expect(admin).toEqual([]);
  });
  test('a supervisor sees the live view, but no dashboard and no administration (#30.8)', () => {
    const { main, admin } = menuEntries({ profile: 'supervisor' }, allFlags, false);
    expect(keys(main).slice(0, 2)).toEqual(['live', 'tickets']);
    expect(keys(main)).not.toContain('dashboard');
    expect(admin).toEqual([]);
  });
  test('plan flags hide their entries', () => {
    const { main, admin } = menuEntries({ profile: 'admin' }, {}, false);
    expect(keys(main)).toEqual([
      'dashboard',
      'live',
      'tickets',
      'quickMessages',
      'macros',
      'contacts',
      'tags',
      'helps',
      'todolist',
    ]);
    expect(keys(admin)).toEqual([
      'connections',
      'files',
      'queues',
      'sla',
      'customFields',
      'closingReasons',
      'users',
      'settings',
      'auditLog',
      'invoices',
    ]);
  });
  test('everything for a super admin with a full plan; announcements only for super users', () => {
    const full = menuEntries({ profile: 'admin', super: true }, allFlags, false);
    expect(keys(full.main)).toEqual([
      'dashboard',
      'live',
      'tickets',
      'kanban',
      'quickMessages',
      'macros',
      'contacts',
      'schedules',
      'tags',
      'chats',
      'helps',
      'todolist',
    ]);
    expect(keys(full.admin)).toEqual([
      'campaigns',
      'announcements',
      'prompts',
      'queueIntegration',
      'connections',
      'files',
      'queues',
      'sla',
      'customFields',
      'closingReasons',
      'flows',
      'users',
      'messagesApi',
      'settings',
      'auditLog',
      'invoices',
    ]);
    expect(keys(menuEntries({ profile: 'admin' }, allFlags, false).admin)).not.toContain('announcements');
  });
  test('the cshow flag shows campaigns without the plan flag', () => {
    const { admin } = menuEntries({ profile: 'admin' }, {}, true);
    expect(keys(admin[0]!.children!)).toEqual(['campaignsList', 'contactLists', 'campaignsConfig']);
  });
  test('active route', () => {
    const { main, admin } = menuEntries({ profile: 'admin' }, allFlags, true);
    const find = (k: string) => [...main, ...admin].find((e) => e.key === k)!;
    expect(isActive(find('dashboard'), '/')).toBe(true);
    expect(isActive(find('dashboard'), '/tickets')).toBe(false);
    expect(isActive(find('tickets'), '/tickets/abc')).toBe(true);
    expect(isActive(find('tags'), '/tags')).toBe(true);
    expect(isActive(find('campaigns'), '/contact-lists/3/contacts')).toBe(true);
    expect(isActive(find('campaigns'), '/campaign/3/report')).toBe(true);
    expect(isActive(find('campaigns'), '/connections')).toBe(false);
  });
});

test('the greeting shortens long names on narrow screens only', () => {
  expect(shortName('Maria Aparecida', true)).toBe('Maria Apar…');
  expect(shortName('Maria Aparecida', false)).toBe('Maria Aparecida');
  expect(shortName('Ana Admin', true)).toBe('Ana Admin');
});
