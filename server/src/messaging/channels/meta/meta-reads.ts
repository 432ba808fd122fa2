import { and, eq, inArray, lte } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { contactIdentities, messages } from '../../../db/schema/index.js';
import type { ConnectionRef } from '../../session-manager.js';
import type { MetaChannelKind } from './meta-config.js';

/**
 * Messenger's read receipt names no message, only a watermark: every message the page sent the customer up to
 * then was seen. The provider ids of this connection's sent-not-yet-read messages to that customer (by their
 * identity), up to the watermark.
 */
export const metaSentUpTo =
  (db: Db, ref: ConnectionRef, kind: MetaChannelKind) =>
  async (customer: string, watermark: Date): Promise<string[]> => {
    const rows = await db
      .select({ providerId: messages.providerId })
      .from(messages)
      .innerJoin(
        contactIdentities,
        and(
          eq(contactIdentities.contactId, messages.contactId),
          eq(contactIdentities.companyId, ref.companyId),
          eq(contactIdentities.kind, kind),
          eq(contactIdentities.value, customer),
        ),
      )
      .where(
        and(
          eq(messages.companyId, ref.companyId),
          eq(messages.whatsappId, ref.id),
          eq(messages.fromMe, true),
          inArray(messages.ack, [1, 2]),
          lte(messages.createdAt, watermark),
        ),
      )
      .limit(500);
    return rows.map((r) => r.providerId).filter((id): id is string => Boolean(id));
  };
