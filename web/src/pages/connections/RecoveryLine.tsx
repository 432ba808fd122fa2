import { Tooltip, Typography } from '@mui/material';
import HistoryIcon from '@mui/icons-material/History';
import type { Whatsapp } from '@recado/contracts';
import { outageLength, useGapT } from './gap-i18n.js';

/** #33.3 "12 mensagens recuperadas após 3 h offline": the connection's last outage that recovered messages. */
export function RecoveryLine({ recovery }: { recovery: Whatsapp['recovery'] }) {
  const { t, i18n } = useGapT();
  if (!recovery) return null;
  const from = new Date(recovery.startedAt);
  const to = new Date(recovery.endedAt);
  const when = (d: Date) => d.toLocaleString(i18n.language, { dateStyle: 'short', timeStyle: 'short' });
  const duration = outageLength(t, to.getTime() - from.getTime());
  return (
    <Tooltip title={t('recoveredHelp', { from: when(from), to: when(to) })}>
      <Typography
        variant="caption"
        data-testid="connection-recovery"
        sx={{ display: 'flex', alignItems: 'center', gap: 0.5, mt: 0.5, color: 'text.secondary' }}
      >
        <HistoryIcon sx={{ fontSize: 15 }} />
        {t('recovered', { count: recovery.count, duration })}
      </Typography>
    </Tooltip>
  );
}
