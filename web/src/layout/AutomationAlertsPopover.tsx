import { Typography } from '@mui/material';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../app/auth.js';
import { useAutomationAlerts } from '../api/automation-alerts.js';
import { AlertsPopover } from './AlertsPopover.js';

/**
 * Admins' top-bar alert (docs/automation.md "When automations fail"): shown only while an automation of
 * the company keeps failing; each row says which, how often, the last reason, and links to its screen.
 */
export function AutomationAlertsPopover() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const admin = user?.profile === 'admin';
  const { data: alerts = [] } = useAutomationAlerts(admin);
  if (!admin) return null;
  return (
    <AlertsPopover
      items={alerts}
      Icon={SmartToyOutlinedIcon}
      label={t('automationAlerts.title')}
      buttonLabel={t('automationAlerts.button', { count: alerts.length })}
      testId="automation-alerts"
      itemTestId="automation-alert"
      itemKey={(a) => `${a.source}-${a.sourceId}`}
      path={(a) => (a.source === 'prompt' ? '/prompts' : '/queue-integration')}
      title={(a) => a.name}
      details={(a) => (
        <>
          <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
            {t('automationAlerts.failures', {
              count: a.failures,
              kind: t(`tickets.automation.kind.${a.kind}`, { defaultValue: a.kind }),
            })}
          </Typography>
          <Typography variant="body2" color="error" sx={{ overflowWrap: 'anywhere' }}>
            {t('automationAlerts.last', { error: a.lastError })}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {t('automationAlerts.since', {
              when: new Date(a.since).toLocaleString(i18n.language),
            })}
          </Typography>
        </>
      )}
    />
  );
}
