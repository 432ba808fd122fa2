import { eq, sql } from 'drizzle-orm';
import {
  CAMPAIGN_SETTING_DEFAULTS,
  CAMPAIGN_SETTING_KEYS,
  campaignSettingsFrom,
  type CampaignSetting,
  type CampaignSettingsValues,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { campaignSettings } from '../../db/schema/index.js';
import type { Tenant } from '../../http/tenant.js';

/** The company's campaign settings as values (defaults for keys never saved): what the dispatch engine reads. */
export async function readCampaignSettings(db: Db, companyId: number): Promise<CampaignSettingsValues> {
  const rows = await db
    .select({ key: campaignSettings.key, value: campaignSettings.value })
    .from(campaignSettings)
    .where(eq(campaignSettings.companyId, companyId));
  return campaignSettingsFrom(rows);
}

/** docs/campaigns.md: key/value pairs, each value JSON-encoded, every key present. */
const asPairs = (values: CampaignSettingsValues): CampaignSetting[] =>
  CAMPAIGN_SETTING_KEYS.map((key) => ({ key, value: JSON.stringify(values[key]) }));

export function campaignSettingService({ db }: { db: Db }) {
  return {
    async list(t: Tenant): Promise<CampaignSetting[]> {
      return asPairs(await readCampaignSettings(db, t.companyId));
    },

    /** POST /campaign-settings { settings }: the keys sent are stored (as JSON values); the others stay. */
    async save(t: Tenant, input: { settings: Partial<CampaignSettingsValues> }): Promise<CampaignSetting[]> {
      const entries = Object.entries(input.settings).filter(
        ([key, value]) => value !== undefined && key in CAMPAIGN_SETTING_DEFAULTS,
      );
      if (entries.length)
        await db
          .insert(campaignSettings)
          .values(entries.map(([key, value]) => ({ companyId: t.companyId, key, value })))
          .onConflictDoUpdate({
            target: [campaignSettings.companyId, campaignSettings.key],
            set: { value: sql`excluded.value`, updatedAt: new Date() },
          });
      return asPairs(await readCampaignSettings(db, t.companyId));
    },
  };
}
export type CampaignSettingService = ReturnType<typeof campaignSettingService>;
