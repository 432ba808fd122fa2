import { useCallback } from 'react';
import { useSnackbar } from 'notistack';
import type { Macro } from '@recado/contracts';
import { useRunMacro } from '../../api/macros.js';
import { useToast } from '../../app/useToast.js';
import { useMacrosT } from './macros-i18n.js';

/**
 * Runs a macro on tickets and says how it went: a success toast, or how many tickets it ran on and why the
 * others failed (each ticket is all-or-nothing on the server).
 */
export function useMacroRunner() {
  const run = useRunMacro();
  const toast = useToast();
  const { t } = useMacrosT();
  const { enqueueSnackbar } = useSnackbar();
  const start = useCallback(
    /** Resolves with the ids the macro failed on (empty: it ran on every ticket), or null if the call failed. */
    async (macro: Macro, ticketIds: number[]): Promise<number[] | null> => {
      try {
        const { results } = await run.mutateAsync({ id: macro.id, ticketIds });
        const failed = results.filter((r) => !r.ok);
        // Several tickets (the list's selection): "48 done, 2 with errors" and the first errors.
        const many = results.length > 1;
        const summary = many
          ? t('macros:macros.ranMany', {
              name: macro.name,
              ok: results.length - failed.length,
              failed: failed.length,
            })
          : null;
        if (!failed.length) {
          enqueueSnackbar(summary ?? t('macros:macros.ran', { name: macro.name }), {
            variant: 'success',
            autoHideDuration: 3000,
          });
          return [];
        }
        const lines = failed.slice(0, 3).map((r) =>
          t('macros:macros.failedOn', {
            id: r.ticketId,
            error: t(`errors.${r.error?.code ?? 'ERR_INTERNAL'}`, {
              defaultValue: r.error?.message ?? r.error?.code,
            }),
          }),
        );
        if (failed.length > 3) lines.push('…');
        enqueueSnackbar(
          [
            summary ??
              t('macros:macros.ranSome', { ok: results.length - failed.length, total: results.length }),
            ...lines,
          ].join(' · '),
          { variant: 'warning', autoHideDuration: 8000 },
        );
        return failed.map((r) => r.ticketId);
      } catch (err) {
        toast.error(err);
        return null;
      }
    },
    [run, toast, t, enqueueSnackbar],
  );
  return { start, busy: run.isPending };
}
