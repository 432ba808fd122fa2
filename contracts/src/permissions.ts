import type { Profile } from './constants.js';

/** Named permissions of the spec (docs/product.md#roles) plus the admin screens. One table for server and web. */
export const PERMISSIONS = {
  'dashboard:view': ['admin'],
  'ticket-options:deleteTicket': ['admin'],
  'tickets-manager:showall': ['admin', 'supervisor'],
  'tickets-manager:userFilter': ['admin'],
  'tickets-manager:peek': ['admin'],
  'connections-page:addConnection': ['admin'],
  'connections-page:actionButtons': ['admin'],
  'connections-page:editOrDeleteConnection': ['admin'],
  'user-modal:editProfile': ['admin'],
  'user-modal:editQueues': ['admin'],
  'contacts-page:deleteContact': ['admin'],
  'users:manage': ['admin'],
  'settings:manage': ['admin'],
  'queues:manage': ['admin'],
  'tags:editKanban': ['admin', 'supervisor'],
  'admin-menu:view': ['admin'],
  'prompts:manage': ['admin'],
  /** #30.8 The live view (GET /live, the live room, the menu entry). */
  'live:view': ['admin', 'supervisor'],
} as const satisfies Record<string, readonly Profile[]>;

export type Permission = keyof typeof PERMISSIONS;

export interface PermissionSubject {
  profile: Profile | string;
  super?: boolean;
}

export function can(user: PermissionSubject | null | undefined, permission: Permission): boolean {
  if (!user) return false;
  return (PERMISSIONS[permission] as readonly string[]).includes(user.profile);
}

/** Platform-owner rights: companies, plans, helps, announcements administration. */
export const isSuper = (user: PermissionSubject | null | undefined): boolean => Boolean(user?.super);
