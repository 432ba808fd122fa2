import { Typography } from '@mui/material';
import PortableWifiOffOutlinedIcon from '@mui/icons-material/PortableWifiOffOutlined';
import { useAuth } from '../../../app/auth.js';
import { useConnectionAlerts } from '../../../api/connection-health.js';
import { useDateFormat } from '../../../i18n/format.js';
import { AlertsPopover } from '../../../layout/AlertsPopover.js';
import { formatOutage, useHealthT } from './health-i18n.js';

/**
 * Admins' top-bar alert (#33.1): connections down longer than the company's threshold, and those back in the
 * last hour with the outage's length, live from `company-{id}-connectionAlert`; a row opens the connection's
 * health. Hidden while there is none.
 */
export function ConnectionAlertsPopover() {
  const { t } = useHealthT();
  const f = useDateFormat();
  const { user } = useAuth();
  const admin = user?.profile === 'admin';
  const { data: alerts = [] } = useConnectionAlerts(admin);
  if (!admin) return null;
  return (
    <AlertsPopover
      items={alerts}
      Icon={PortableWifiOffOutlinedIcon}
      label={t('alerts.title')}
      buttonLabel={t('alerts.button', { count: alerts.length })}
      testId="connection-alerts"
      itemTestId="connection-alert"
      itemKey={(a) => a.id}
      path={(a) => `/connections?health=${a.whatsappId}`}
      title={(a) => a.name}
      tone={(a) => (a.endedAt ? 'success' : 'error')}
      details={(a) =>
        a.endedAt ? (
          <Typography variant="body2" sx={{ color: 'success.main' }} data-state="back">
            {t('alerts.back', { duration: formatOutage(a.seconds) })}
          </Typography>
        ) : (
          <Typography variant="body2" color="error" data-state="down">
            {t('alerts.down', { when: f.dateTime(a.startedAt), duration: formatOutage(a.seconds) })}
          </Typography>
        )
      }
    />
  );
}
