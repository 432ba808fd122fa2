import type { TFunction } from 'i18next';

/**
 * Zod issues as i18n keys. Passed to zodResolver as the per-parse error map, so every field error of a
 * form carries a translation key instead of zod's English text. Messages set in a schema itself (a
 * refine's text) win over this map; `fieldErrorText` translates those through `custom`.
 */
export const i18nIssues = {
  error: (iss: { code: string; input?: unknown; format?: string }) => {
    if (iss.input === '' || iss.input === undefined || iss.input === null) return 'common.required';
    switch (iss.code) {
      case 'too_small':
        return 'common.tooShort';
      case 'too_big':
        return 'common.tooLong';
      case 'invalid_format':
        return iss.format === 'email' ? 'common.invalidEmail' : undefined;
      default:
        return undefined;
    }
  },
};

/** The translated text of a field error, or undefined. `custom` maps schema messages to i18n keys. */
export function fieldErrorText(
  t: TFunction,
  error: { message?: string } | undefined,
  custom: Record<string, string> = {},
): string | undefined {
  if (!error?.message) return undefined;
  const key = custom[error.message] ?? error.message;
  return t(key, { defaultValue: error.message });
}
