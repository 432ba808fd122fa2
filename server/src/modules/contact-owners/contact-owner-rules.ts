import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { isTicketManager } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { settings, tickets, userQueues, users } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';

const invalid = (message: string) =>
  new AppError('ERR_VALIDATION', 400, `ownerId: ${message}`, { fields: [{ path: 'ownerId', message }] });

/**
 * #30.4 A contact's owner must be a user of the contact's company who may see the contact's tickets: an admin
 * or supervisor, or an attendant in every queue the contact's tickets are in. Otherwise 400 naming ownerId.
 */
export async function assertContactOwner(
  db: Db,
  companyId: number,
  ownerId: number | null | undefined,
  contactId?: number,
) {
  if (ownerId === null || ownerId === undefined) return;
  const [owner] = await db
    .select({ id: users.id, profile: users.profile, super: users.super })
    .from(users)
    .where(and(eq(users.id, ownerId), eq(users.companyId, companyId)));
  if (!owner) throw invalid('not a user of this company');
  if (isTicketManager(owner) || contactId === undefined) return;
  const needed = await db
    .selectDistinct({ queueId: tickets.queueId })
    .from(tickets)
    .where(
      and(eq(tickets.companyId, companyId), eq(tickets.contactId, contactId), isNotNull(tickets.queueId)),
    );
  if (!needed.length) return;
  const held = await db
    .select({ queueId: userQueues.queueId })
    .from(userQueues)
    .where(
      and(
        eq(userQueues.userId, ownerId),
        inArray(
          userQueues.queueId,
          needed.map((n) => n.queueId!),
        ),
      ),
    );
  if (held.length < needed.length) throw invalid("no access to the contact's queues");
}

/** A company setting is 'enabled' (the contact owner switches live in settings). */
export async function settingEnabled(db: Db, companyId: number, key: string) {
  const [row] = await db
    .select({ value: settings.value })
    .from(settings)
    .where(and(eq(settings.companyId, companyId), eq(settings.key, key)));
  return row?.value === 'enabled';
}

/** Which of these e-mails are users of the company (the contacts import's owner column): e-mail → id. */
export async function ownersByEmail(db: Db, companyId: number, emails: string[]) {
  if (!emails.length) return new Map<string, number>();
  const rows = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(
      and(
        eq(users.companyId, companyId),
        inArray(
          sql`lower(${users.email})`,
          emails.map((e) => e.toLowerCase()),
        ),
      ),
    );
  return new Map(rows.map((r) => [r.email.toLowerCase(), r.id]));
}
