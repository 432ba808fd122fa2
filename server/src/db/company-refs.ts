import { and, eq, inArray } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ErrorCode } from '@recado/contracts';
import { AppError } from '../http/errors.js';
import type { Db, Tx } from './client.js';
import {
  contactLists,
  contacts,
  files,
  flows,
  prompts,
  queueIntegrations,
  queues,
  tags,
  tickets,
  users,
  whatsapps,
} from './schema/index.js';

type Owned = PgTable & { id: PgColumn; companyId: PgColumn };

/**
 * The records a request body may point at, each with the answer when it is not the caller company's own
 * (a missing id and another company's id answer the same, so nothing tells them apart).
 */
const REFS = {
  prompt: { table: prompts, code: 'ERR_NOT_FOUND', status: 404, message: 'Prompt not found' },
  integration: { table: queueIntegrations, code: 'ERR_NO_INTEGRATION_FOUND', status: 404 },
  queue: { table: queues, code: 'ERR_NO_QUEUE_FOUND', status: 404 },
  user: { table: users, code: 'ERR_NO_USER_FOUND', status: 404 },
  whatsapp: { table: whatsapps, code: 'ERR_NO_WAPP_FOUND', status: 404 },
  contact: { table: contacts, code: 'ERR_NO_CONTACT_FOUND', status: 404 },
  ticket: { table: tickets, code: 'ERR_NO_TICKET_FOUND', status: 404 },
  tag: { table: tags, code: 'ERR_NO_TAG_FOUND', status: 404 },
  contactList: { table: contactLists, code: 'ERR_NO_CONTACT_LIST_FOUND', status: 404 },
  file: { table: files, code: 'ERR_NO_FILE_FOUND', status: 404 },
  flow: { table: flows, code: 'ERR_NO_FLOW_FOUND', status: 404 },
} satisfies Record<string, { table: Owned; code: ErrorCode; status: number; message?: string }>;

export type CompanyRef = keyof typeof REFS;

/**
 * Checks that every id a body names belongs to the caller's company (issue: a company pointing its
 * records at another company's prompt). `null`/`undefined` are "not set" and pass. One query per kind.
 */
export async function assertCompanyRefs(
  db: Db | Tx,
  companyId: number,
  refs: Partial<Record<CompanyRef, number | readonly number[] | null | undefined>>,
): Promise<void> {
  for (const [kind, value] of Object.entries(refs) as [CompanyRef, number | number[] | null | undefined][]) {
    if (value === null || value === undefined) continue;
    const ids = [...new Set(Array.isArray(value) ? value : [value])];
    if (!ids.length) continue;
    const ref = REFS[kind];
    const table = ref.table as Owned;
    const found = await (db as Db)
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.companyId, companyId), inArray(table.id, ids)));
    if (found.length !== ids.length)
      throw new AppError(ref.code, ref.status, 'message' in ref ? ref.message : undefined);
  }
}
