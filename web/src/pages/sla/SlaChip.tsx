import { useEffect, useState } from 'react';
import { Chip, Tooltip } from '@mui/material';
import TimerOutlinedIcon from '@mui/icons-material/TimerOutlined';
import { SLA_KINDS, nearestDue, slaStatusOf, type TicketView } from '@recado/contracts';
import { formatSlaDuration, useSlaT } from './sla-i18n.js';

type Sla = TicketView['sla'] | undefined;

const DUE_FIELD = {
  first_response: 'firstResponseDueAt',
  next_response: 'nextResponseDueAt',
  resolution: 'resolutionDueAt',
} as const;

/**
 * The time now, renewed when the chip's text or colour changes: at the next whole minute of the countdown,
 * when it turns amber and when it falls due (a timer per chip, none while there is nothing to count).
 */
function useSlaNow(sla: Sla) {
  const [now, setNow] = useState(() => Date.now());
  const due = sla ? nearestDue(sla) : null;
  const risk = sla?.atRiskAt ? Date.parse(sla.atRiskAt) : null;
  useEffect(() => {
    if (due === null) return;
    const current = Date.now();
    const moments = [due, risk ?? Infinity].filter((m) => m > current);
    const nextMinute = current + (60_000 - (Math.abs(due - current) % 60_000)) + 5;
    const next = Math.min(nextMinute, ...moments);
    const timer = setTimeout(() => setNow(Date.now()), Math.max(50, Math.min(next - current, 60_000)));
    return () => clearTimeout(timer);
  }, [due, risk, now]);
  return now;
}

const COLORS = { ok: 'success', at_risk: 'warning', breached: 'error' } as const;

/**
 * A ticket's time left to its nearest SLA due time (docs/metrics.md "SLA"): green on time, amber when less than
 * 25% of the target is left, red once breached. Nothing without a running clock or a breach.
 */
export function SlaChip({ sla, size = 'small' }: { sla: Sla; size?: 'small' | 'medium' }) {
  const { t, i18n } = useSlaT();
  const now = useSlaNow(sla);
  const state = slaStatusOf(sla, now);
  if (!sla || !state) return null;
  const due = nearestDue(sla);
  const label =
    due === null
      ? t('sla:chip.breached')
      : due > now
        ? t('sla:chip.left', { time: formatSlaDuration(due - now, t) })
        : t('sla:chip.late', { time: formatSlaDuration(now - due, t) });
  const lines = SLA_KINDS.flatMap((k) => {
    const at = sla[DUE_FIELD[k]];
    const kind = t(`sla:kind.${k}`);
    return [
      ...(at
        ? [
            t('sla:chip.due', {
              kind,
              when: new Date(at).toLocaleString(i18n.language, { dateStyle: 'short', timeStyle: 'short' }),
            }),
          ]
        : []),
      ...(sla.breached.includes(k) ? [t('sla:chip.breachedKind', { kind })] : []),
    ];
  });
  return (
    <Tooltip
      title={lines.map((l) => (
        <div key={l}>{l}</div>
      ))}
    >
      <Chip
        size={size}
        color={COLORS[state]}
        variant={state === 'ok' ? 'outlined' : 'filled'}
        icon={<TimerOutlinedIcon />}
        label={label}
        data-testid="sla-chip"
        data-sla={state}
        aria-label={`${t('sla:chip.aria', { state: t(`sla:state.${state}`) })}: ${label}`}
        sx={{
          height: size === 'small' ? 20 : undefined,
          fontSize: 11,
          fontWeight: 600,
          '& .MuiChip-icon': { fontSize: 14 },
        }}
      />
    </Tooltip>
  );
}
