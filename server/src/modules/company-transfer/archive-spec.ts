import { SEALED_SETTINGS } from '@recado/contracts';

/** The archive's format name and version (docs/migration.md "Recado archive format"). */
export const ARCHIVE_FORMAT = 'recado-company-archive';
export const ARCHIVE_VERSION = 1;

/**
 * One table of the archive: which rows are the company's, how they are paged, what never leaves the install,
 * and how an import writes them back (new ids, references remapped). The list is in dependency order: a
 * table comes after every table it points to, so an import can remap each reference as it goes.
 */
export interface TableSpec {
  /** The table, and `tables/<name>.jsonl` in the archive. */
  name: string;
  /** The company's rows: an SQL condition on alias `t`, where `$company` is the company's id. */
  scope: string;
  /** Keyset pagination columns (unique, ordered). */
  key: string[];
  /** Columns never exported (secrets, password hashes, tokens, another install's sessions). */
  omit?: string[];
  /** A serial `id` that an import replaces with a new one. */
  id?: boolean;
  /** Column → the table whose ids it holds (remapped on import; a reference the archive lacks becomes null). */
  refs?: Record<string, string>;
  /** A column pointing into the same table (a quoted message, a parent option): set once the table is in. */
  self?: string;
  /** Values an import forces (things of the other install: integrations, prompts, sessions). */
  reset?: Record<string, unknown>;
  /** Columns holding media store paths (`{companyId}/…`): their files go in the archive under media/. */
  media?: string[];
}

const own = 't.company_id = $company';
const sealed = SEALED_SETTINGS.map((k) => `'${k.replace(/'/g, "''")}'`).join(', ');

export const TABLES: TableSpec[] = [
  { name: 'companies', scope: 't.id = $company', key: ['id'], id: true },
  { name: 'settings', scope: `${own} and t.key not in (${sealed})`, key: ['key'] },
  { name: 'privacy_settings', scope: own, key: ['company_id'] },
  { name: 'campaign_settings', scope: own, key: ['id'], id: true },
  { name: 'ticket_protocol_counters', scope: own, key: ['company_id'] },
  { name: 'custom_field_definitions', scope: own, key: ['id'], id: true },
  {
    name: 'queues',
    scope: own,
    key: ['id'],
    id: true,
    reset: { integration_id: null, prompt_id: null, rr_last_user_id: null },
  },
  {
    name: 'queue_options',
    scope: own,
    key: ['id'],
    id: true,
    refs: { queue_id: 'queues' },
    self: 'parent_id',
  },
  {
    name: 'whatsapps',
    scope: own,
    key: ['id'],
    id: true,
    omit: ['token', 'qrcode', 'channel_config', 'api_token_hash', 'api_token_sealed', 'lease_owner'],
    refs: { transfer_queue_id: 'queues' },
    reset: {
      status: 'DISCONNECTED',
      retries: 0,
      prompt_id: null,
      integration_id: null,
      flow_id: null,
      lease_expires_at: null,
    },
  },
  {
    name: 'whatsapp_queues',
    scope: 't.whatsapp_id in (select id from whatsapps where company_id = $company)',
    key: ['whatsapp_id', 'queue_id'],
    refs: { whatsapp_id: 'whatsapps', queue_id: 'queues' },
  },
  {
    name: 'users',
    scope: own,
    key: ['id'],
    id: true,
    omit: ['password_hash'],
    refs: { whatsapp_id: 'whatsapps' },
    // No usable password: argon2 never verifies '!', so each user chooses one with "forgot password".
    reset: { password_hash: '!', super: false, online: false, presence_manual: false },
  },
  {
    name: 'user_queues',
    scope: 't.user_id in (select id from users where company_id = $company)',
    key: ['user_id', 'queue_id'],
    refs: { user_id: 'users', queue_id: 'queues' },
  },
  { name: 'tags', scope: own, key: ['id'], id: true, refs: { user_id: 'users' } },
  {
    name: 'quick_messages',
    scope: own,
    key: ['id'],
    id: true,
    refs: { user_id: 'users' },
    media: ['media_path'],
  },
  { name: 'contacts', scope: own, key: ['id'], id: true, refs: { owner_id: 'users' } },
  {
    name: 'contact_custom_fields',
    scope: 't.contact_id in (select id from contacts where company_id = $company)',
    key: ['id'],
    id: true,
    refs: { contact_id: 'contacts' },
  },
  { name: 'contact_identities', scope: own, key: ['id'], id: true, refs: { contact_id: 'contacts' } },
  {
    name: 'tickets',
    scope: own,
    key: ['id'],
    id: true,
    omit: ['uuid'],
    refs: {
      contact_id: 'contacts',
      whatsapp_id: 'whatsapps',
      queue_id: 'queues',
      user_id: 'users',
      queue_option_id: 'queue_options',
      snoozed_by: 'users',
    },
    reset: { integration_id: null, prompt_id: null, closing_reason_id: null },
  },
  {
    name: 'ticket_tags',
    scope: 't.ticket_id in (select id from tickets where company_id = $company)',
    key: ['ticket_id', 'tag_id'],
    refs: { ticket_id: 'tickets', tag_id: 'tags' },
  },
  {
    name: 'ticket_notes',
    scope: own,
    key: ['id'],
    id: true,
    refs: { ticket_id: 'tickets', contact_id: 'contacts', user_id: 'users' },
  },
  {
    name: 'messages',
    scope: own,
    key: ['id'],
    id: true,
    refs: { ticket_id: 'tickets', contact_id: 'contacts', whatsapp_id: 'whatsapps', user_id: 'users' },
    self: 'quoted_msg_id',
    media: ['media_url'],
    // Generated from body (search_norm, migration 0067): the importing database computes its own.
    omit: ['body_search'],
  },
  { name: 'contact_lists', scope: own, key: ['id'], id: true },
  {
    name: 'contact_list_items',
    scope: own,
    key: ['id'],
    id: true,
    refs: { contact_list_id: 'contact_lists' },
  },
  {
    name: 'schedules',
    scope: own,
    key: ['id'],
    id: true,
    refs: {
      contact_id: 'contacts',
      ticket_id: 'tickets',
      user_id: 'users',
      whatsapp_id: 'whatsapps',
      sent_ticket_id: 'tickets',
    },
    reset: { claimed_at: null },
    media: ['media_path'],
  },
  {
    name: 'campaigns',
    scope: own,
    key: ['id'],
    id: true,
    omit: ['dispatch_token'],
    refs: { whatsapp_id: 'whatsapps', contact_list_id: 'contact_lists', tag_id: 'tags' },
    reset: { file_list_id: null },
    media: ['media_path'],
  },
  {
    name: 'campaign_shippings',
    scope: own,
    key: ['id'],
    id: true,
    refs: {
      campaign_id: 'campaigns',
      contact_list_item_id: 'contact_list_items',
      contact_id: 'contacts',
      message_id: 'messages',
    },
    reset: { claimed_at: null },
  },
];

export const tableFile = (name: string) => `tables/${name}.jsonl`;
export const MEDIA_INDEX = 'media/index.jsonl';
export const MANIFEST = 'manifest.json';

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  source: { install: string; app: string };
  company: { id: number; name: string };
  createdAt: string;
  /** Per table: its file, row count, byte size and SHA-256 (hex) of the file. */
  tables: Record<string, { file: string; rows: number; bytes: number; sha256: string }>;
  /**
   * media/index.jsonl (its bytes and SHA-256): one line per media file (`path`, `bytes`, `sha256`), in the
   * order the files follow; `files` and `mediaBytes` count them.
   */
  media: { file: string; files: number; bytes: number; sha256: string; mediaBytes: number };
}
