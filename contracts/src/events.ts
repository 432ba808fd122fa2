/**
 * Real-time event names and payloads (docs/product.md#calls). Event names carry the company id, as the spec's
 * client listens for them; rooms are chosen by the server, never by the client.
 */
export type EntityAction<K extends string, T> =
  ({ action: 'create' | 'update' } & Record<K, T>) | { action: 'delete'; [key: string]: unknown };

export const companyEvent = (companyId: number, entity: CompanyEntity): string =>
  `company-${companyId}-${entity}`;

export const COMPANY_ENTITIES = [
  'user',
  'settings',
  'auth',
  'whatsapp',
  'whatsappSession',
  'ticket',
  'appMessage',
  'contact',
  'queue',
  'tag',
  'quickMessage',
  'schedule',
  'campaign',
  'contactList',
  'contactListItem',
  'announcement',
  'chat',
  'file',
  'prompt',
  'queueIntegration',
  'payment',
  'company',
  'simulator',
  'webhook',
] as const;
export type CompanyEntity = (typeof COMPANY_ENTITIES)[number];

/** Room names. Only the server builds and joins them. */
export const rooms = {
  company: (companyId: number) => `company-${companyId}`,
  admins: (companyId: number) => `company-${companyId}-admins`,
  user: (companyId: number, userId: number) => `company-${companyId}-user-${userId}`,
  session: (sessionId: string) => `session-${sessionId}`,
  notification: (companyId: number) => `company-${companyId}-notification`,
  ticketStatus: (companyId: number, status: string) => `company-${companyId}-tickets-${status}`,
  ticket: (companyId: number, ticketId: number) => `company-${companyId}-ticket-${ticketId}`,
  platform: () => 'platform-super',
};

/** Client → server events. */
export const CLIENT_EVENTS = {
  join: 'join',
  leave: 'leave',
  ready: 'ready',
  joinChatBox: 'joinChatBox',
  leaveChatBox: 'leaveChatBox',
  joinTickets: 'joinTickets',
  leaveTickets: 'leaveTickets',
  joinNotification: 'joinNotification',
  leaveNotification: 'leaveNotification',
  userStatus: 'userStatus',
} as const;

/** Sent to a socket whose token is no longer valid: the client refreshes or reloads. */
export const SESSION_EXPIRED_EVENT = 'sessionExpired';

export interface AuthEventPayload {
  action: 'update';
  user: { id: number };
  /** The session that stays valid; every other session of the user has ended. */
  sessionId: string;
}
