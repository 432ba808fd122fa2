import type { CompanyEntity } from './events.js';

/**
 * One record type of a list screen, described once for the server's answers and events and the web's
 * hooks (web/src/api/resource.ts). GET {path}?searchParam&pageNumber answers `{ [listField]: T[], hasMore }`
 * (or a plain array / `{ [listField]: T[] }` when the list is not paged); POST {path}, PUT and DELETE
 * {path}/{id} answer the record; `company-{id}-{entity}` carries `{ action: 'create' | 'update',
 * [recordField]: T }` or `{ action: 'delete', [deleteIdField]: id }`.
 */
export interface ResourceSpec {
  path: string;
  /** The array of a list answer; null when GET {path} answers a plain array. */
  listField: string | null;
  entity: CompanyEntity;
  recordField: string;
  deleteIdField: string;
}

export const RESOURCES = {
  tag: { path: '/tags', listField: 'tags', entity: 'tag', recordField: 'tag', deleteIdField: 'tagId' },
  quickMessage: {
    path: '/quick-messages',
    listField: 'records',
    entity: 'quickMessage',
    recordField: 'record',
    deleteIdField: 'id',
  },
  macro: {
    path: '/macros',
    listField: 'records',
    entity: 'macro',
    recordField: 'record',
    deleteIdField: 'id',
  },
  fileList: {
    path: '/files',
    listField: 'files',
    entity: 'file',
    recordField: 'fileList',
    deleteIdField: 'fileId',
  },
  prompt: {
    path: '/prompt',
    listField: 'prompts',
    entity: 'prompt',
    recordField: 'prompt',
    deleteIdField: 'promptId',
  },
  queueIntegration: {
    path: '/queueIntegration',
    listField: 'queueIntegrations',
    entity: 'queueIntegration',
    recordField: 'queueIntegration',
    deleteIdField: 'integrationId',
  },
  contactList: {
    path: '/contact-lists',
    listField: 'records',
    entity: 'contactList',
    recordField: 'contactList',
    deleteIdField: 'contactListId',
  },
  user: { path: '/users', listField: 'users', entity: 'user', recordField: 'user', deleteIdField: 'userId' },
  queue: { path: '/queue', listField: null, entity: 'queue', recordField: 'queue', deleteIdField: 'queueId' },
  campaign: {
    path: '/campaigns',
    listField: 'records',
    entity: 'campaign',
    recordField: 'record',
    deleteIdField: 'id',
  },
  /** Internal chat: only members hear `company-{id}-chat` (also new-message, with the message). */
  chat: {
    path: '/chats',
    listField: 'records',
    entity: 'chat',
    recordField: 'chat',
    deleteIdField: 'chatId',
  },
  announcement: {
    path: '/announcements',
    listField: 'records',
    entity: 'announcement',
    recordField: 'record',
    deleteIdField: 'id',
  },
  /** Settings → Webhooks (admins; the events go to the company's admins room). */
  webhook: {
    path: '/webhooks',
    listField: null,
    entity: 'webhook',
    recordField: 'webhook',
    deleteIdField: 'webhookId',
  },
} as const satisfies Record<string, ResourceSpec>;
export type ResourceName = keyof typeof RESOURCES;
