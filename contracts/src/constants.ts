export const APP_VERSION = '6.0.0';
export const LANGUAGES = ['pt', 'en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'pt';

export const TRIAL_DAYS = 3;
export const DEFAULT_SIGNUP_PLAN_ID = 7;
export const SUBSCRIPTION_WARNING_DAYS = 5;
/** The app blocks one day after dueDate. */
export const EXPIRY_GRACE_DAYS = 1;
export const PAGE_SIZE = 20;
export const RESET_CODE_TTL_MINUTES = 30;

export const RECURRENCES = ['MENSAL', 'BIMESTRAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'] as const;
export type Recurrence = (typeof RECURRENCES)[number];
/** How many months one recurrence period lasts: the expire action advances dueDate by this. */
export const RECURRENCE_MONTHS: Record<Recurrence, number> = {
  MENSAL: 1,
  BIMESTRAL: 2,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12,
};

export const PROFILES = ['admin', 'supervisor', 'user'] as const;
export type Profile = (typeof PROFILES)[number];

/** #30.2 An attendant's presence; routing offers tickets only to 'online'. */
export const PRESENCES = ['online', 'away', 'offline'] as const;
export type Presence = (typeof PRESENCES)[number];
