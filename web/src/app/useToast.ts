import { useSnackbar } from 'notistack';
import { useTranslation } from 'react-i18next';
import { useCallback } from 'react';
import { showError } from './errors.js';

/** Toasts for pages: success(key) and error(err) through i18n. */
export function useToast() {
  const { enqueueSnackbar } = useSnackbar();
  const { t } = useTranslation();
  const success = useCallback(
    (key: string, opts?: Record<string, unknown>) =>
      enqueueSnackbar(t(key, opts), { variant: 'success', autoHideDuration: 3000 }),
    [enqueueSnackbar, t],
  );
  const info = useCallback(
    (key: string, opts?: Record<string, unknown>) =>
      enqueueSnackbar(t(key, opts), { variant: 'info', autoHideDuration: 3000 }),
    [enqueueSnackbar, t],
  );
  const warning = useCallback(
    (key: string, opts?: Record<string, unknown>) =>
      enqueueSnackbar(t(key, opts), { variant: 'warning', autoHideDuration: 5000 }),
    [enqueueSnackbar, t],
  );
  const error = useCallback((err: unknown) => showError(err, t, enqueueSnackbar), [enqueueSnackbar, t]);
  return { success, info, warning, error };
}
