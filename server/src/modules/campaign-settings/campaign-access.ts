import { and, eq } from 'drizzle-orm';
import { can } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { settings } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { planHas } from '../companies/company-queries.js';

/**
 * docs/campaigns.md: campaign features (campaigns, contact lists, campaign settings) exist for a company
 * whose plan has useCampaigns and whose `campaignsEnabled` setting is not "false" (the setting is what
 * the spec's client turns into its local `cshow` flag). Anything else answers ERR_NO_PERMISSION.
 */
export async function campaignsAllowed(db: Db, companyId: number): Promise<boolean> {
  if (!(await planHas(db, companyId, 'useCampaigns'))) return false;
  const [setting] = await db
    .select({ value: settings.value })
    .from(settings)
    .where(and(eq(settings.companyId, companyId), eq(settings.key, 'campaignsEnabled')));
  return setting?.value !== 'false';
}

export const requireCampaigns = async (db: Db, t: Tenant): Promise<void> => {
  if (!(await campaignsAllowed(db, t.companyId))) throw new AppError('ERR_NO_PERMISSION', 403);
};

/** Campaign administration is in the admin menu: writes are for admins (and the platform's super users). */
export const requireCampaignManager = (t: Tenant): void => {
  if (!can(t, 'admin-menu:view') && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
};
