import { z } from 'zod';
import { type Wire } from './responses.js';

/** docs/campaigns.md: the random interval between sends, in seconds (0 = none). */
export const CAMPAIGN_MESSAGE_INTERVAL_OPTIONS = [0, 5, 10, 15, 20] as const;
/** docs/campaigns.md: after how many sends the greater interval applies (0 = not defined). */
export const CAMPAIGN_LONGER_INTERVAL_AFTER_OPTIONS = [
  0, 1, 5, 10, 15, 20, 30, 40, 60, 80, 100, 120,
] as const;
/** docs/campaigns.md: the greater interval, in seconds; the same list of values. */
export const CAMPAIGN_GREATER_INTERVAL_OPTIONS = CAMPAIGN_LONGER_INTERVAL_AFTER_OPTIONS;

export const MAX_CAMPAIGN_VARIABLES = 100;

/** A variable campaigns fill in messages: `{shortcut}` becomes its content. */
export const CampaignVariable = z.object({
  key: z
    .string()
    .trim()
    .min(1)
    .max(30)
    .regex(/^[\p{L}\p{N}_-]+$/u, 'letters, digits, _ and - only'),
  value: z.string().trim().min(1).max(1000),
});
export type CampaignVariable = z.infer<typeof CampaignVariable>;

const oneOf = (values: readonly number[]) =>
  z.coerce
    .number()
    .int()
    .refine((v) => values.includes(v), { message: `one of ${values.join(', ')}` });

export interface CampaignSettingsValues {
  messageInterval: number;
  longerIntervalAfter: number;
  greaterInterval: number;
  variables: CampaignVariable[];
}

/** docs/campaigns.md: defaults 20 s, after 20 sends, 60 s, no variables. */
export const CAMPAIGN_SETTING_DEFAULTS: CampaignSettingsValues = {
  messageInterval: 20,
  longerIntervalAfter: 20,
  greaterInterval: 60,
  variables: [],
};
export const CAMPAIGN_SETTING_KEYS = Object.keys(
  CAMPAIGN_SETTING_DEFAULTS,
) as (keyof CampaignSettingsValues)[];

/** Shortcuts are unique without regard to case (docs/campaigns.md: one already present is not added again). */
export const CampaignVariables = z
  .array(CampaignVariable)
  .max(MAX_CAMPAIGN_VARIABLES)
  .superRefine((vars, ctx) => {
    const seen = new Set<string>();
    vars.forEach((v, i) => {
      const k = v.key.toLowerCase();
      if (seen.has(k))
        ctx.addIssue({ code: 'custom', path: [i, 'key'], message: 'shortcut already present' });
      seen.add(k);
    });
  });

/** POST /campaign-settings { settings }: only the keys sent change. */
export const CampaignSettingsInput = z.object({
  settings: z
    .object({
      messageInterval: oneOf(CAMPAIGN_MESSAGE_INTERVAL_OPTIONS),
      longerIntervalAfter: oneOf(CAMPAIGN_LONGER_INTERVAL_AFTER_OPTIONS),
      greaterInterval: oneOf(CAMPAIGN_GREATER_INTERVAL_OPTIONS),
      variables: CampaignVariables,
    })
    .partial()
    .strict(),
});
export type CampaignSettingsInput = z.input<typeof CampaignSettingsInput>;

/** GET /campaign-settings: key/value pairs, each value JSON-encoded (docs/campaigns.md); every key present. */
export const CampaignSetting = z
  .looseObject({
    key: z.string() as z.ZodType<keyof CampaignSettingsValues, keyof CampaignSettingsValues>,
    value: z.string(),
  })
  .meta({ id: 'CampaignSetting' });
export type CampaignSetting = Wire<typeof CampaignSetting>;

/** The key/value array as values, defaults where a key is missing or unreadable. */
export function campaignSettingsFrom(pairs: { key: string; value: unknown }[]): CampaignSettingsValues {
  const out: CampaignSettingsValues = { ...CAMPAIGN_SETTING_DEFAULTS, variables: [] };
  for (const { key, value } of pairs) {
    let v = value;
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v);
      } catch {
        continue;
      }
    }
    if (key === 'variables') {
      const parsed = z.array(CampaignVariable).safeParse(v);
      if (parsed.success) out.variables = parsed.data;
    } else if (key === 'messageInterval' || key === 'longerIntervalAfter' || key === 'greaterInterval') {
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out[key] = v;
    }
  }
  return out;
}
