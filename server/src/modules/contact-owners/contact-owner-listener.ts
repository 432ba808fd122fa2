import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contacts } from '../../db/schema/index.js';
import type { DomainBus } from '../../events/domain-events.js';
import { settingEnabled } from './contact-owner-rules.js';

/**
 * #30.4 With the company's contactOwnerOnResolve on, the attendant who first resolves a contact's ticket
 * becomes the contact's owner (a contact that has one keeps it).
 */
export function contactOwnerListeners(bus: DomainBus, deps: { db: Db }) {
  bus.on(
    'ticket.changed',
    async ({ companyId, after, action }) => {
      if (action !== 'close' || !after.userId || after.isGroup) return;
      if (!(await settingEnabled(deps.db, companyId, 'contactOwnerOnResolve'))) return;
      await deps.db
        .update(contacts)
        .set({ ownerId: after.userId, updatedAt: new Date() })
        .where(
          and(eq(contacts.id, after.contactId), eq(contacts.companyId, companyId), isNull(contacts.ownerId)),
        );
    },
    'contact-owners',
  );
}
