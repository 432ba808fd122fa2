import { sql } from 'drizzle-orm';
import type { ConsentReplyBlock } from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { AppError } from '../../http/errors.js';

/**
 * #35.2 Consent before the first human reply (docs/privacy.md "Consent before the first human reply"):
 * with the company's consent required, a contact asked and not yet answering (`pending`) or who refused
 * (`refused`) gets no message from a person — an attendant's reply, a template, a forward, a scheduled
 * message or the external API. The bot and flows still send (they ask the question). One indexed read.
 */
export async function consentReplyBlock(
  db: Db | Tx,
  companyId: number,
  contactId: number | null | undefined,
): Promise<ConsentReplyBlock> {
  if (!contactId) return null;
  const [row] = await executeRows<{ consent_status: string | null }>(
    db as Db,
    sql`select c.consent_status from contacts c
        join privacy_settings p on p.company_id = c.company_id and p.consent_required
        where c.id = ${contactId} and c.company_id = ${companyId}
          and c.consent_status in ('asked', 'refused')`,
  );
  if (!row) return null;
  return row.consent_status === 'asked' ? 'pending' : 'refused';
}

/** Throws 409 ERR_CONSENT_PENDING / ERR_CONSENT_REFUSED when a person may not write to the contact. */
export async function assertHumanReplyAllowed(
  db: Db | Tx,
  companyId: number,
  contactId: number | null | undefined,
) {
  const block = await consentReplyBlock(db, companyId, contactId);
  if (block === 'pending')
    throw new AppError('ERR_CONSENT_PENDING', 409, "Waiting for the contact's consent (LGPD)");
  if (block === 'refused')
    throw new AppError('ERR_CONSENT_REFUSED', 409, 'The contact refused consent (LGPD)');
}
