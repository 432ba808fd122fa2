import { Chip } from '@mui/material';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { CampaignStatus } from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useToast } from '../../app/useToast.js';

const STATUS_COLOR: Record<CampaignStatus, 'default' | 'info' | 'warning' | 'error' | 'success'> = {
  INATIVA: 'default',
  PROGRAMADA: 'info',
  EM_ANDAMENTO: 'warning',
  CANCELADA: 'error',
  FINALIZADA: 'success',
};

export function CampaignStatusChip({ status }: { status: CampaignStatus }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      color={STATUS_COLOR[status] ?? 'default'}
      variant={status === 'INATIVA' ? 'outlined' : 'filled'}
      label={t(`campaigns.status.${status}`)}
      data-testid="campaign-status"
      data-status={status}
    />
  );
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The value of an <input type="datetime-local"> for a Date (local time, minutes). */
export const toLocalInput = (d: Date) =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
export const fromLocalInput = (s: string): Date | null => {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(s);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  return Number.isNaN(d.getTime()) ? null : d;
};

/** Error toasts: the campaign codes have their own texts; cancel/restart failures show the server's message. */
export function useCampaignErrors() {
  const toast = useToast();
  return useCallback(
    (err: unknown) => {
      if (err instanceof ApiError && /^ERR_(CAMPAIGN_|NO_CAMPAIGN_FOUND)/.test(err.code)) {
        toast.warning(`campaigns.errors.${err.code}`, { defaultValue: err.message });
        return;
      }
      toast.error(err);
    },
    [toast],
  );
}

/**
 * What a select shows: the stored id once its option is there, '' until then (the options load after the
 * dialog opens; an id without its option is MUI's "out-of-range value"). The form keeps the id meanwhile.
 */
export const inRange = (v: number | '', options: { id: number }[] | undefined): number | '' =>
  v !== '' && options?.some((o) => o.id === v) ? v : '';
