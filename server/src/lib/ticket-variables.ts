import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { customFieldText } from '@recado/contracts';
import { contacts, tickets } from '../db/schema/index.js';

/** `{{protocol}}` (or `{{ticket.protocol}}`), any case, spaces inside the braces allowed. */
const PROTOCOL = /\{\{\s*(?:ticket\.)?protocol\s*\}\}/gi;

/**
 * #32.4 The ticket variables every text sent on a ticket may carry (docs/productivity.md "Protocol
 * numbers"): greetings, bot texts, quick messages, the closing message, macros and flows all go out through
 * the message service's deliver, which fills them here once. Other `{{…}}` stay as written.
 */
export function fillTicketVariables(text: string, vars: { protocol: string }): string {
  return text.replace(PROTOCOL, () => vars.protocol);
}

export const hasTicketVariables = (text: string): boolean => text.search(PROTOCOL) !== -1;

/** #32.7 `{{contact.custom.<key>}}` and `{{ticket.custom.<key>}}`: custom field values (docs/productivity.md). */
const CUSTOM = /\{\{\s*(contact|ticket)\.custom\.([A-Za-z][A-Za-z0-9_]*)\s*\}\}/gi;
export const hasCustomFieldVariables = (text: string): boolean => text.search(CUSTOM) !== -1;
/** The custom field variables filled (an unset field is ''). */
export function fillCustomFieldVariables(
  text: string,
  values: { contact: Record<string, unknown>; ticket: Record<string, unknown> },
): string {
  return text.replace(CUSTOM, (_m, entity: string, key: string) =>
    customFieldText(values[entity.toLowerCase() as 'contact' | 'ticket'][key.toLowerCase()]),
  );
}

/** The text with the ticket's variables, reading the protocol when the caller's row does not carry it. */
export async function withTicketVariables(
  db: Db,
  companyId: number,
  ticket: { id: number; protocol?: string | null },
  text: string,
): Promise<string> {
  if (hasCustomFieldVariables(text)) {
    const [r] = await db
      .select({ ticket: tickets.customFields, contact: contacts.customFields })
      .from(tickets)
      .innerJoin(contacts, eq(contacts.id, tickets.contactId))
      .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, companyId)));
    text = fillCustomFieldVariables(text, { contact: r?.contact ?? {}, ticket: r?.ticket ?? {} });
  }
  if (!hasTicketVariables(text)) return text;
  let protocol = ticket.protocol ?? '';
  if (!protocol) {
    const [r] = await db
      .select({ protocol: tickets.protocol })
      .from(tickets)
      .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, companyId)));
    protocol = r?.protocol ?? '';
  }
  return fillTicketVariables(text, { protocol });
}
