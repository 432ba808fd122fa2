import type { AnnouncementEvent } from './announcements.js';
import type { AutomationAlertEvent } from './automation.js';
import type { PaymentEvent } from './billing.js';
import type { CampaignEvent } from './campaigns.js';
import type { ChatEvent } from './chats.js';
import type { Company } from './companies.js';
import type { SimulatorMessageView, Whatsapp } from './connections.js';
import type { SlaBreachEvent } from './sla.js';
import type { ConnectionAlertEvent } from './connection-health.js';
import type { ContactListEvent, ContactListItemEvent } from './contact-lists.js';
import type { ContactEvent } from './contacts.js';
import type { FileListEvent } from './files.js';
import type { PromptEvent } from './prompts.js';
import type { QueueIntegrationEvent } from './queue-integrations.js';
import type { QueueEvent } from './queues.js';
import type { QuickMessageEvent } from './quick-messages.js';
import type { MacroEvent } from './macros.js';
import type { ScheduleEvent } from './schedules.js';
import type { Setting } from './settings.js';
import type { TagEvent } from './tags.js';
import type { FlowEvent } from './flows.js';
import type { AppMessageEvent, TicketEvent, TicketView } from './tickets.js';
import type { UserView } from './users.js';
import type { Webhook } from './webhooks.js';
import type { LiveEvent, PresenceEvent } from './live.js';

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
  'automationAlert',
  'presence',
  'live',
  'slaBreach',
  'connectionAlert',
  'ticketWoken',
  'ticketPin',
  'flow',
  'macro',
] as const;
export type CompanyEntity = (typeof COMPANY_ENTITIES)[number];

/** Room names. Only the server builds and joins them. */
export const rooms = {
  company: (companyId: number) => `company-${companyId}`,
  admins: (companyId: number) => `company-${companyId}-admins`,
  /** Admins and supervisors (and super users): presence changes (#30.2). */
  supervisors: (companyId: number) => `company-${companyId}-supervisors`,
  /** The live view's pushes (#30.8): joined with join('live') by admins and supervisors. */
  live: (companyId: number) => `company-${companyId}-live`,
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
  /** #30.2 No activity in the browser for the company's away time / activity again. */
  presenceIdle: 'presenceIdle',
  presenceActive: 'presenceActive',
} as const;

/** Sent to a socket whose token is no longer valid: the client refreshes or reloads. */
export const SESSION_EXPIRED_EVENT = 'sessionExpired';

export interface AuthEventPayload {
  action: 'update';
  user: { id: number };
  /** The session that stays valid; every other session of the user has ended. */
  sessionId: string;
}

export type UserEvent =
  { action: 'create' | 'update'; user: UserView } | { action: 'delete'; userId: number };
export type SettingEvent = { action: 'update'; setting: Setting };
export type WhatsappEvent =
  { action: 'update'; whatsapp: Whatsapp } | { action: 'delete'; whatsappId: number };
/** A connection's session changed (status, QR code): the connection's view, newest first by updatedAt. */
export type WhatsappSessionEvent = {
  action: 'update';
  session: Pick<Whatsapp, 'id' | 'status' | 'qrcode' | 'retries' | 'updatedAt'> & Partial<Whatsapp>;
};
export type CompanyEvent = { action: 'update'; company: Company } | { action: 'delete'; companyId: number };
/** The simulated phone's conversation: to admins and to the sockets following it. */
export type SimulatorEvent = {
  action: 'message' | 'update';
  whatsappId: number;
  message: SimulatorMessageView;
};
export type WebhookChangeEvent =
  { action: 'create' | 'update'; webhook: Webhook } | { action: 'delete'; webhookId: number };

/**
 * What `company-{id}-{entity}` carries, per entity: the server's emit helpers take only these payloads
 * (server/src/realtime/events.ts) and the web's useCompanyEvent hands them to its listeners.
 */
export interface ServerEvents {
  user: UserEvent;
  settings: SettingEvent;
  auth: AuthEventPayload;
  whatsapp: WhatsappEvent;
  whatsappSession: WhatsappSessionEvent;
  ticket: TicketEvent;
  appMessage: AppMessageEvent;
  contact: ContactEvent;
  /** #32.9 The user pinned or unpinned a ticket (their own room only). */
  ticketPin: { ticketId: number; pinned: boolean };
  queue: QueueEvent;
  tag: TagEvent;
  quickMessage: QuickMessageEvent;
  macro: MacroEvent;
  schedule: ScheduleEvent;
  campaign: CampaignEvent;
  contactList: ContactListEvent;
  contactListItem: ContactListItemEvent;
  announcement: AnnouncementEvent;
  chat: ChatEvent;
  file: FileListEvent;
  prompt: PromptEvent;
  queueIntegration: QueueIntegrationEvent;
  payment: PaymentEvent;
  company: CompanyEvent;
  simulator: SimulatorEvent;
  webhook: WebhookChangeEvent;
  automationAlert: AutomationAlertEvent;
  presence: PresenceEvent;
  live: LiveEvent;
  slaBreach: SlaBreachEvent;
  /** #33.1 A connection's outage was told to the admins, or it came back (docs/connection-health.md). */
  connectionAlert: ConnectionAlertEvent;
  ticketWoken: TicketWokenEvent;
  /** A flow was created, changed, published or deleted (docs/flows.md#api): the flow list stays live. */
  flow: FlowEvent;
}

/**
 * #30.7 A snoozed ticket woke (its time came, the customer wrote, or a user woke it): to its attendant's
 * browsers, which show it in the top bar's notifications.
 */
export type TicketWokenEvent = {
  action: 'woken';
  ticket: TicketView;
  reason: 'time' | 'reply' | 'manual';
};
