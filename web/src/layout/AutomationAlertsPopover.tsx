import { Box, Stack, Typography } from '@mui/material';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../app/auth.js';
import { useAutomationAlerts } from '../api/automation-alerts.js';
import { TopBarPopover } from './TopBarPopover.js';

/**
 * Admins' top-bar alert (docs/automation.md "When automations fail"): shown only while an automation of
 * the company keeps failing; each row says which, how often, the last reason, and links to its screen.
 */
export function AutomationAlertsPopover() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const admin = user?.profile === 'admin';
  const navigate = useNavigate();
  const { data: alerts = [] } = useAutomationAlerts(admin);
  if (!admin || alerts.length === 0) return null;
  return (
    <TopBarPopover
      label={t('automationAlerts.title')}
      buttonLabel={t('automationAlerts.button', { count: alerts.length })}
      icon={<SmartToyOutlinedIcon color="error" />}
      emptyIcon={<SmartToyOutlinedIcon />}
      emptyText=""
      badge={alerts.length}
      testId="automation-alerts"
    >
      {(close) => (
        <Stack spacing={1} sx={{ p: 1.5 }} data-testid="automation-alerts-list">
          {alerts.map((a) => (
            <Box
              key={`${a.source}-${a.sourceId}`}
              component="button"
              type="button"
              onClick={() => {
                close();
                void navigate(a.source === 'prompt' ? '/prompts' : '/queue-integration');
              }}
              data-testid="automation-alert"
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
                {a.name}
              </Typography>
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
            </Box>
          ))}
        </Stack>
      )}
    </TopBarPopover>
  );
}
