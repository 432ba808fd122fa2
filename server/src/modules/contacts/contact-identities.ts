import { and, asc, eq, inArray } from 'drizzle-orm';
import type { ContactIdentity, IdentityKind } from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { contactIdentities, contacts } from '../../db/schema/index.js';

/**
 * #34 A contact's identities on channels without phone numbers (docs/channels.md "Identities"): one contact
 * per (company, kind, value), found or created atomically, and the address a reply on such a channel goes to.
 */

/** The channels whose customers are known by an identity instead of a phone number, by connection channel. */
export const IDENTITY_CHANNELS = ['telegram', 'instagram', 'messenger', 'webchat'] as const;
export type IdentityChannel = (typeof IDENTITY_CHANNELS)[number];

/** The identity kind a connection's channel addresses its customers by; null for phone-number channels. */
export const identityKindOf = (channel: string | null | undefined): IdentityChannel | null =>
  (IDENTITY_CHANNELS as readonly string[]).includes(channel ?? '') ? (channel as IdentityChannel) : null;

class Taken extends Error {}

/**
 * The contact behind an identity, created (number '', the given name) with its identity when the company has
 * none yet. Atomic: two first messages at once make one contact — the loser's insert waits for the winner's
 * commit, finds its identity, rolls its own contact back and answers the winner's.
 */
export async function contactForIdentity(
  db: Db,
  companyId: number,
  identity: { kind: IdentityKind; value: string },
  name: string,
  /** A group chat (Telegram groups on a connection whose groups open tickets). */
  isGroup = false,
): Promise<number> {
  const find = async () => {
    const [hit] = await db
      .select({ contactId: contactIdentities.contactId })
      .from(contactIdentities)
      .where(
        and(
          eq(contactIdentities.companyId, companyId),
          eq(contactIdentities.kind, identity.kind),
          eq(contactIdentities.value, identity.value),
        ),
      );
    return hit?.contactId;
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await find();
    if (found) return found;
    try {
      return await db.transaction(async (tx) => {
        const [c] = await tx
          .insert(contacts)
          .values({ companyId, name: name || identity.value, number: '', isGroup })
          .returning({ id: contacts.id });
        const [i] = await tx
          .insert(contactIdentities)
          .values({ companyId, contactId: c!.id, kind: identity.kind, value: identity.value })
          .onConflictDoNothing()
          .returning({ contactId: contactIdentities.contactId });
        if (!i) throw new Taken();
        return i.contactId;
      });
    } catch (err) {
      if (!(err instanceof Taken)) throw err;
    }
  }
  const found = await find();
  if (!found) throw new Error('identity could not be resolved');
  return found;
}

/** Adds an identity to an existing contact (no-op when the company has it already, on whichever contact). */
export async function addIdentity(
  db: Db | Tx,
  companyId: number,
  contactId: number,
  identity: { kind: IdentityKind; value: string },
): Promise<boolean> {
  const rows = await db
    .insert(contactIdentities)
    .values({ companyId, contactId, kind: identity.kind, value: identity.value })
    .onConflictDoNothing()
    .returning({ id: contactIdentities.id });
  return rows.length > 0;
}

/** The value of a contact's identity of a kind (the address a reply goes to), or null. */
export async function identityValue(
  db: Db | Tx,
  companyId: number,
  contactId: number,
  kind: IdentityKind,
): Promise<string | null> {
  const [hit] = await db
    .select({ value: contactIdentities.value })
    .from(contactIdentities)
    .where(
      and(
        eq(contactIdentities.companyId, companyId),
        eq(contactIdentities.contactId, contactId),
        eq(contactIdentities.kind, kind),
      ),
    )
    .orderBy(asc(contactIdentities.id))
    .limit(1);
  return hit?.value ?? null;
}

/** Contacts' identities, by contact id, oldest first (the contact's wire shape `identities`). */
export async function identitiesOf(
  db: Db | Tx,
  companyId: number,
  contactIds: number[],
): Promise<Map<number, ContactIdentity[]>> {
  const out = new Map<number, ContactIdentity[]>();
  if (!contactIds.length) return out;
  const rows = await db
    .select({
      contactId: contactIdentities.contactId,
      kind: contactIdentities.kind,
      value: contactIdentities.value,
    })
    .from(contactIdentities)
    .where(and(eq(contactIdentities.companyId, companyId), inArray(contactIdentities.contactId, contactIds)))
    .orderBy(asc(contactIdentities.id));
  for (const r of rows) {
    const list = out.get(r.contactId) ?? [];
    list.push({ kind: r.kind as IdentityKind, value: r.value });
    out.set(r.contactId, list);
  }
  return out;
}

/** Moves every identity of `fromIds` to `toId` (contact merge; values are unique per company, so none clash). */
export async function moveIdentities(tx: Tx, companyId: number, fromIds: number[], toId: number) {
  if (!fromIds.length) return;
  await tx
    .update(contactIdentities)
    .set({ contactId: toId })
    .where(and(eq(contactIdentities.companyId, companyId), inArray(contactIdentities.contactId, fromIds)));
}
