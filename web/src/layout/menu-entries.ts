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
  // #30.8 Under the dashboard: the supervisor's live view (admins and supervisors).
  if (can(user, 'live:view')) main.push({ key: 'live', to: '/live' });
  main.push({ key: 'tickets', to: '/tickets', match: /^\/tickets(\/|$)/ });
  if (plan.useKanban) main.push({ key: 'kanban', to: '/kanban' });
  main.push({ key: 'quickMessages', to: '/quick-messages' });
  // #32.1 Macros: everyone has personal ones; admins share them with the company.
  main.push({ key: 'macros', to: '/macros' });
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
    // #30.5 SLA policies (docs/metrics.md "SLA").
    admin.push({ key: 'sla', to: '/sla' });
    // #32.7 Custom fields of contacts and tickets (docs/productivity.md "Custom fields").
    admin.push({ key: 'customFields', to: '/custom-fields' });
    // #32.3 Closing reasons, the reason mode and the protocol pattern (docs/productivity.md).
    admin.push({ key: 'closingReasons', to: '/closing-reasons' });
    if (plan.useFlows) admin.push({ key: 'flows', to: '/flows', match: /^\/flows(\/|$)/ });
    admin.push({ key: 'users', to: '/users' });
    if (plan.useExternalApi) admin.push({ key: 'messagesApi', to: '/messages-api' });
    admin.push({ key: 'settings', to: '/settings' });
    // #32.6 The audit log (docs/audit.md).
    admin.push({ key: 'auditLog', to: '/audit-log' });
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
