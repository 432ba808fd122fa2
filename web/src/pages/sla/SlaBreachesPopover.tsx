import { Box, Stack, Typography } from '@mui/material';
import TimerOffOutlinedIcon from '@mui/icons-material/TimerOffOutlined';
import { useNavigate } from 'react-router';
import { useAuth } from '../../app/auth.js';
import { useSlaBreaches } from '../../api/sla.js';
import { TopBarPopover } from '../../layout/TopBarPopover.js';
import { useSlaT } from './sla-i18n.js';

/**
 * Admins' and supervisors' top-bar alert (#30.5): the last week's SLA breaches on tickets still open, live
 * from `company-{id}-slaBreach`; each row opens its ticket. Hidden while there is none.
 */
export function SlaBreachesPopover() {
  const { t, i18n } = useSlaT();
  const { user } = useAuth();
  const watches = user?.profile === 'admin' || user?.profile === 'supervisor';
  const navigate = useNavigate();
  const { data: breaches = [] } = useSlaBreaches(Boolean(watches));
  if (!watches || breaches.length === 0) return null;
  return (
    <TopBarPopover
      label={t('sla:breaches.title')}
      buttonLabel={t('sla:breaches.button', { count: breaches.length })}
      icon={<TimerOffOutlinedIcon color="error" />}
      emptyIcon={<TimerOffOutlinedIcon />}
      emptyText=""
      badge={breaches.length}
      testId="sla-breaches"
    >
      {(close) => (
        <Stack spacing={1} sx={{ p: 1.5 }} data-testid="sla-breaches-list">
          {breaches.map((b) => (
            <Box
              key={b.id}
              component="button"
              type="button"
              onClick={() => {
                close();
                void navigate(`/tickets/${b.ticketId}`);
              }}
              data-testid="sla-breach"
              sx={{
                display: 'block',
                width: '100%',
                textAlign: 'left',
                font: 'inherit',
                color: 'inherit',
                bgcolor: 'transparent',
                cursor: 'pointer',
                border: 1,
                borderLeftWidth: 4,
                borderColor: 'error.main',
                borderRadius: 2,
                p: 1.5,
                '&:hover': { bgcolor: 'action.hover' },
              }}
            >
              <Typography variant="subtitle2" sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>
                {b.contactName}
              </Typography>
              <Typography variant="body2" color="error">
                {t('sla:chip.breachedKind', { kind: t(`sla:kind.${b.kind}`) })}
              </Typography>
              <Typography variant="caption" color="text.secondary">
                {new Date(b.breachedAt).toLocaleString(i18n.language)}
              </Typography>
            </Box>
          ))}
        </Stack>
      )}
    </TopBarPopover>
  );
}
