import { Typography } from '@mui/material';
import TimerOffOutlinedIcon from '@mui/icons-material/TimerOffOutlined';
import { useAuth } from '../../app/auth.js';
import { useSlaBreaches } from '../../api/sla.js';
import { AlertsPopover } from '../../layout/AlertsPopover.js';
import { useSlaT } from './sla-i18n.js';

/**
 * Admins' and supervisors' top-bar alert (#30.5): the last week's SLA breaches on tickets still open, live
 * from `company-{id}-slaBreach`; each row opens its ticket. Hidden while there is none.
 */
export function SlaBreachesPopover() {
  const { t, i18n } = useSlaT();
  const { user } = useAuth();
  const watches = user?.profile === 'admin' || user?.profile === 'supervisor';
  const { data: breaches = [] } = useSlaBreaches(Boolean(watches));
  if (!watches) return null;
  return (
    <AlertsPopover
      items={breaches}
      Icon={TimerOffOutlinedIcon}
      label={t('sla:breaches.title')}
      buttonLabel={t('sla:breaches.button', { count: breaches.length })}
      testId="sla-breaches"
      itemTestId="sla-breach"
      itemKey={(b) => b.id}
      path={(b) => `/tickets/${b.ticketId}`}
      title={(b) => b.contactName}
      details={(b) => (
        <>
          <Typography variant="body2" color="error">
            {t('sla:chip.breachedKind', { kind: t(`sla:kind.${b.kind}`) })}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {new Date(b.breachedAt).toLocaleString(i18n.language)}
          </Typography>
        </>
      )}
    />
  );
}
