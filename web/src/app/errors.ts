import type { TFunction } from 'i18next';
import type { EnqueueSnackbar } from 'notistack';
import { ApiError } from '../api/client.js';

/**
 * docs/product.md#errors: a server code with a translation is shown as a 2 s toast; else the raw text; otherwise only
 * a console message.
 */
export function showError(err: unknown, t: TFunction, enqueue: EnqueueSnackbar) {
  if (err instanceof ApiError) {
    const key = `errors.${err.code}`;
    const translated = t(key, { defaultValue: '' });
    if (translated) return enqueue(translated, { variant: 'error', autoHideDuration: 2000 });
    if (err.message) return enqueue(err.message, { variant: 'error', autoHideDuration: 2000 });
  }
  console.error(err);
}
