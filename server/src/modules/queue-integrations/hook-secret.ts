import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { queueIntegrations } from '../../db/schema/index.js';
import type { SecretBox } from '../../lib/crypto.js';

const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/**
 * The secret an n8n / webhook integration's POSTs are signed with (docs/automation.md, the same scheme as the
 * outgoing webhooks): made on first use (the hook's first POST or an admin's first look), sealed at rest;
 * `regenerate` replaces it. Null when the integration is not the company's.
 */
export async function integrationHookSecret(
  db: Db,
  box: SecretBox,
  companyId: number,
  id: number,
  opts: { regenerate?: boolean } = {},
): Promise<string | null> {
  const mine = and(eq(queueIntegrations.id, id), eq(queueIntegrations.companyId, companyId));
  if (opts.regenerate) {
    const secret = newSecret();
    const [r] = await db
      .update(queueIntegrations)
      .set({ hookSecretSealed: box.seal(secret) })
      .where(mine)
      .returning({ id: queueIntegrations.id });
    return r ? secret : null;
  }
  const read = async () =>
    (await db.select({ sealed: queueIntegrations.hookSecretSealed }).from(queueIntegrations).where(mine))[0];
  const row = await read();
  if (!row) return null;
  if (row.sealed) return box.open(row.sealed);
  // First use: one conditional statement, so two callers at once end with the same secret.
  const secret = newSecret();
  const [made] = await db
    .update(queueIntegrations)
    .set({ hookSecretSealed: box.seal(secret) })
    .where(and(mine, isNull(queueIntegrations.hookSecretSealed)))
    .returning({ id: queueIntegrations.id });
  if (made) return secret;
  const again = await read();
  return again?.sealed ? box.open(again.sealed) : null;
}
