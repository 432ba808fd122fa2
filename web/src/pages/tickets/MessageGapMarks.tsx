import { Box, Tooltip, Typography } from '@mui/material';
import HistoryIcon from '@mui/icons-material/History';
import type { MessageView } from '@recado/contracts';
import { useGapT } from '../connections/gap-i18n.js';

type Marked = Pick<MessageView, 'data' | 'fromMe'>;

/** #33.5 Who wrote a group's message (their WhatsApp name), above its text. */
export function GroupSender({ message }: { message: Marked }) {
  const name = message.data?.participantName;
  if (message.fromMe || typeof name !== 'string' || !name) return null;
  return (
    <Typography
      variant="caption"
      data-testid="message-participant"
      sx={{ display: 'block', fontWeight: 700, color: 'secondary.main' }}
    >
      {name}
    </Typography>
  );
}

/** #33.3 A message recovered after an outage: a small line above it (its time is the original one). */
export function RecoveredMark({ message, color }: { message: Marked; color: string }) {
  const { t } = useGapT();
  if (message.data?.recovered !== true) return null;
  return (
    <Tooltip title={t('recoveredMarkHelp')}>
      <Box
        component="span"
        data-testid="message-recovered"
        sx={{
          display: 'inline-flex',
          alignItems: 'center',
          gap: 0.25,
          fontSize: 11,
          color,
          fontStyle: 'italic',
        }}
      >
        <HistoryIcon sx={{ fontSize: 13 }} />
        {t('recoveredMark')}
      </Box>
    </Tooltip>
  );
}
