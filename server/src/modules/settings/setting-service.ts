import { and, eq } from 'drizzle-orm';
import { AppError } from '../../http/errors.js';
import {
  SETTING_DEFAULTS,
  SETTING_KEYS,
  SETTING_NUMBERS,
  SETTING_VALUES,
  SEALED_SETTINGS,
  SECRET_MASK,
  SUPER_ONLY_SETTINGS,
  protocolPatternProblem,
  rooms,
  type Setting,
  type SettingKey,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { settings } from '../../db/schema/index.js';
import type { Events } from '../../realtime/events.js';
import type { Tenant } from '../../http/tenant.js';
import type { SecretBox } from '../../lib/crypto.js';
import { assertPublicUrl } from '../../lib/safe-fetch.js';
import { normaliseEmailList } from '../connection-health/alert-emails.js';

/** What a client may read of a setting: a sealed secret only as the mask. */
const shown = (key: SettingKey, value: string) =>
  SEALED_SETTINGS.includes(key) ? (value ? SECRET_MASK : '') : value;

/** Stored rows override the defaults of contracts; a new company needs no setting rows at all. */
export async function readSettings(db: Db, companyId: number): Promise<Setting[]> {
  const rows = await db
    .select({ key: settings.key, value: settings.value })
    .from(settings)
    .where(eq(settings.companyId, companyId));
  const stored = new Map(rows.map((r) => [r.key, r.value]));
  return SETTING_KEYS.map((key) => ({ key, value: shown(key, stored.get(key) ?? SETTING_DEFAULTS[key]) }));
}

/** The stored value (a sealed setting as stored: sealed; open it with the secretBox). Never answer it as is. */
export async function readSetting(db: Db, companyId: number, key: SettingKey): Promise<string> {
  const [row] = await db
    .select({ value: settings.value })
    .from(settings)
    .where(and(eq(settings.companyId, companyId), eq(settings.key, key)));
  return row?.value ?? SETTING_DEFAULTS[key];
}

/** A sealed setting is answered as the mask when set, '' when not (the company's settings in /auth/me too). */
export const maskSecretSetting = <S extends { key: string; value: string }>(s: S): S =>
  (SEALED_SETTINGS as readonly string[]).includes(s.key) ? { ...s, value: s.value ? SECRET_MASK : '' } : s;

export function settingService({
  db,
  events,
  box,
  allowPrivateUrls = false,
  changed,
}: {
  db: Db;
  events: Events;
  box: SecretBox;
  allowPrivateUrls?: boolean;
  /** A setting of the company was written (billing's send check forgets a cached timezone). */
  changed?: (companyId: number, key: SettingKey) => void;
}) {
  return {
    async list(t: Tenant): Promise<Setting[]> {
      const all = await readSettings(db, t.companyId);
      // Gateway credentials are the platform owner's business, and even they see only the mask.
      return t.super ? all.map(maskSecretSetting) : all.filter((s) => !SUPER_ONLY_SETTINGS.includes(s.key));
    },
    async get(t: Tenant, key: SettingKey): Promise<Setting> {
      if (SUPER_ONLY_SETTINGS.includes(key) && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
      return { key, value: shown(key, await readSetting(db, t.companyId, key)) };
    },
    async update(t: Tenant, key: SettingKey, value: string): Promise<Setting> {
      if (SUPER_ONLY_SETTINGS.includes(key) && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
      const allowed = SETTING_VALUES[key];
      if (allowed && !allowed.includes(value))
        throw new AppError('ERR_VALIDATION', 400, `value must be one of ${allowed.join(', ')}`);
      const range = SETTING_NUMBERS[key];
      if (range) {
        const n = /^\d{1,7}$/.test(value.trim()) ? Number(value.trim()) : NaN;
        if (!(n >= range.min && n <= range.max))
          throw new AppError(
            'ERR_VALIDATION',
            400,
            `value must be a whole number from ${range.min} to ${range.max}`,
          );
        value = String(n);
      }
      if (key === 'protocolPattern') {
        // #32.4 docs/productivity.md "Protocol numbers": exactly one run of digits, the sequence.
        value = value.trim();
        const problem = protocolPatternProblem(value);
        if (problem)
          throw new AppError('ERR_VALIDATION', 400, `protocolPattern: ${problem}`, {
            fields: [{ path: 'protocolPattern', message: problem }],
          });
      }
      // #33.1 The outage alert's URL passes the outbound-URL guard (docs/outbound-urls.md); its e-mails are addresses.
      if (key === 'connectionAlertUrl' && value.trim()) {
        value = value.trim();
        assertPublicUrl(value, {
          allowPrivate: allowPrivateUrls,
          allowQuery: true,
          field: 'connectionAlertUrl',
        });
      }
      if (key === 'connectionAlertEmails') value = normaliseEmailList(value);
      if (key === 'timezone') {
        const zone = canonicalTimeZone(value);
        if (!zone) throw new AppError('ERR_VALIDATION', 400, 'unknown time zone');
        value = zone;
      }
      let stored = value;
      if (SEALED_SETTINGS.includes(key)) {
        // The mask sent back keeps the stored secret; '' clears it.
        if (value === SECRET_MASK) return { key, value: shown(key, await readSetting(db, t.companyId, key)) };
        stored = value.trim() ? box.seal(value.trim()) : '';
        value = shown(key, stored);
      }
      await db
        .insert(settings)
        .values({ companyId: t.companyId, key, value: stored })
        .onConflictDoUpdate({
          target: [settings.companyId, settings.key],
          set: { value: stored, updatedAt: new Date() },
        });
      changed?.(t.companyId, key);
      const setting = maskSecretSetting({ key, value });
      // A super-only value (a gateway token) goes to super users' sockets only, never to the whole company.
      if (SUPER_ONLY_SETTINGS.includes(key))
        events.toRoom(rooms.platform(), t.companyId, 'settings', { action: 'update', setting });
      else events.toCompany(t.companyId, 'settings', { action: 'update', setting });
      return setting;
    },
  };
}
export type SettingService = ReturnType<typeof settingService>;

/**
 * The IANA zone's canonical spelling ("america/recife" → "America/Recife"), or null. UTC offsets such as
 * "+03:00" are refused although newer ICU versions accept them: business hours need a zone with its rules.
 */
export function canonicalTimeZone(tz: string): string | null {
  if (!/^[A-Za-z][\w+-]*(\/[\w+-]+)*$/.test(tz) || tz.length > 64) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  if (resolved.toLowerCase() === tz.toLowerCase()) return resolved;
  const lower = tz.toLowerCase();
  return Intl.supportedValuesOf('timeZone').find((z) => z.toLowerCase() === lower) ?? resolved;
}
