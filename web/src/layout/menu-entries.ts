import { can, type PermissionSubject, type PlanFlag } from '@recado/contracts';

/** One side-menu entry; `key` names both its label (menu.{key}) and its icon. */
export interface MenuEntry {
  key: string;
  to: string;
  /** Other paths that light this entry up (a ticket under /tickets, a list's items under its list). */
  match?: RegExp;
  children?: MenuEntry[];
}

export interface MenuSections {
  main: MenuEntry[];
  admin: MenuEntry[];
}

/**
 * The side menu of docs/product.md#screens: who sees what depends on the profile, the super flag and the plan flags.
 * `cshow` is the local flag that also reveals the campaign entries.
 */
export function menuEntries(
  user: PermissionSubject | null | undefined,
  plan: Partial<Record<PlanFlag, boolean>>,
  cshow: boolean,
): MenuSections {
  const main: MenuEntry[] = [];
  const admin: MenuEntry[] = [];
  const isAdmin = can(user, 'admin-menu:view');
  if (can(user, 'dashboard:view')) main.push({ key: 'dashboard', to: '/' });
  main.push({ key: 'tickets', to: '/tickets', match: /^\/tickets(\/|$)/ });
  if (plan.useKanban) main.push({ key: 'kanban', to: '/kanban' });
  main.push({ key: 'quickMessages', to: '/quick-messages' });
  main.push({ key: 'contacts', to: '/contacts' });
  if (plan.useSchedules) main.push({ key: 'schedules', to: '/schedules' });
  main.push({ key: 'tags', to: '/tags' });
  if (plan.useInternalChat) main.push({ key: 'chats', to: '/chats', match: /^\/chats(\/|$)/ });
  main.push({ key: 'helps', to: '/helps' });
  main.push({ key: 'todolist', to: '/todolist' });

  if (isAdmin) {
    if (plan.useCampaigns || cshow)
      admin.push({
        key: 'campaigns',
        to: '/campaigns',
        children: [
          { key: 'campaignsList', to: '/campaigns', match: /^\/(campaigns|campaign\/[^/]+\/report)\/?$/ },
          { key: 'contactLists', to: '/contact-lists', match: /^\/contact-lists(\/|$)/ },
          { key: 'campaignsConfig', to: '/campaigns-config' },
        ],
      });
    if (user?.super) admin.push({ key: 'announcements', to: '/announcements' });
    if (plan.useOpenAi) admin.push({ key: 'prompts', to: '/prompts' });
    if (plan.useIntegrations) admin.push({ key: 'queueIntegration', to: '/queue-integration' });
    admin.push({ key: 'connections', to: '/connections' });
    admin.push({ key: 'files', to: '/files' });
    admin.push({ key: 'queues', to: '/queues' });
    admin.push({ key: 'users', to: '/users' });
    if (plan.useExternalApi) admin.push({ key: 'messagesApi', to: '/messages-api' });
    admin.push({ key: 'settings', to: '/settings' });
    admin.push({ key: 'invoices', to: '/financeiro' });
  }
  return { main, admin };
}

/** Whether an entry (or one of its children) is the current route. */
export function isActive(entry: MenuEntry, pathname: string): boolean {
  if (entry.children) return entry.children.some((c) => isActive(c, pathname));
  if (entry.match) return entry.match.test(pathname);
  return pathname === entry.to || pathname === `${entry.to}/`;
}

/** Under 600 px the greeting shows at most 10 characters of the name (docs/product.md#screens). */
export const shortName = (name: string, narrow: boolean) =>
  narrow && name.length > 10 ? `${name.slice(0, 10)}…` : name;
