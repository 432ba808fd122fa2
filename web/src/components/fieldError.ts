import type { TFunction } from 'i18next';
import type { FieldError } from 'react-hook-form';

/**
 * The translated message for a react-hook-form error produced by a zod schema of contracts.
 * Zod's issue code arrives as `type`; an empty value is "required", short and long say so, a failed
 * format check is shown with `formatKey` (e-mail, time...), and a custom refinement's message is an i18n key.
 */
export function fieldErrorText(
  t: TFunction,
  error: FieldError | undefined,
  opts: { formatKey?: string; value?: unknown } = {},
): string | undefined {
  if (!error) return undefined;
  const empty = opts.value === '' || opts.value === undefined || opts.value === null;
  switch (error.type) {
    case 'too_small':
      return t(empty ? 'common.required' : 'common.tooShort');
    case 'too_big':
      return t('common.tooLong');
    case 'invalid_format':
    case 'invalid_string':
      return t(empty ? 'common.required' : (opts.formatKey ?? 'common.invalidEmail'));
    case 'invalid_type':
      return t('common.required');
    case 'custom':
      // Refinements of the screens carry an i18n key as their message.
      return t(error.message ?? 'common.required');
    default:
      return t(opts.formatKey ?? 'common.required');
  }
}
