import { Box, Paper, Tab, Tabs } from '@mui/material';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isSuper } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useSetting } from '../../api/settings.js';
import { PageHeader } from '../../components/PageHeader.js';
import { OptionsTab } from './OptionsTab.js';
import { SchedulesTab } from './SchedulesTab.js';
import { CompaniesTab } from './CompaniesTab.js';
import { PlansTab } from './PlansTab.js';
import { HelpsTab } from './HelpsTab.js';
import { WebhooksTab } from './WebhooksTab.js';
import { PrivacySettingsTab } from '../privacy/PrivacySettingsTab.js';
import { PRIVACY_NS } from '../privacy/privacy-i18n.js';
import { WhaticketImportTab } from '../whaticket-import/WhaticketImportTab.js';
import { WHATICKET_NS } from '../whaticket-import/whaticket-import-i18n.js';

type TabName =
  'options' | 'schedules' | 'webhooks' | 'privacy' | 'companies' | 'plans' | 'helps' | 'whaticket';

/**
 * Settings (docs/product.md#screens): options always; opening hours when the schedule type is "company";
 * companies, plans and helps for the super user. The open tab is kept in ?tab= so it survives a reload.
 */
export default function SettingsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const scheduleType = useSetting('scheduleType');
  const tabs: TabName[] = [
    'options',
    ...(scheduleType === 'company' ? (['schedules'] as const) : []),
    // Outgoing webhooks: the company's admins (docs/webhooks.md).
    // #35 Consent, opt-out and retention (docs/privacy.md): admins.
    ...(user?.profile === 'admin' || isSuper(user) ? (['webhooks', 'privacy'] as const) : []),
    // #35.5 Import from Whaticket SaaS (docs/migration.md): the super user.
    ...(isSuper(user) ? (['companies', 'plans', 'helps', 'whaticket'] as const) : []),
  ];
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab') as TabName | null;
  const tab: TabName = requested && tabs.includes(requested) ? requested : 'options';

  const select = (next: TabName) =>
    setParams(
      (p) => {
        if (next === 'options') p.delete('tab');
        else p.set('tab', next);
        return p;
      },
      { replace: true },
    );

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2 }}>
      <PageHeader title={t('settings.title')} />
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <Tabs
          value={tab}
          onChange={(_e, v: TabName) => select(v)}
          variant="scrollable"
          scrollButtons="auto"
          aria-label={t('settings.title')}
          sx={{ borderBottom: 1, borderColor: 'divider', px: 1 }}
        >
          {tabs.map((name) => (
            <Tab
              key={name}
              value={name}
              label={
                name === 'privacy'
                  ? t('tab', { ns: PRIVACY_NS })
                  : name === 'whaticket'
                    ? t('tab', { ns: WHATICKET_NS })
                    : t(`settings.tabs.${name}`)
              }
              id={`settings-tab-${name}`}
            />
          ))}
        </Tabs>
        <Box role="tabpanel" aria-labelledby={`settings-tab-${tab}`} sx={{ p: { xs: 1.5, sm: 3 } }}>
          {tab === 'options' && <OptionsTab />}
          {tab === 'schedules' && <SchedulesTab />}
          {tab === 'webhooks' && <WebhooksTab />}
          {tab === 'privacy' && <PrivacySettingsTab />}
          {tab === 'companies' && <CompaniesTab />}
          {tab === 'plans' && <PlansTab />}
          {tab === 'helps' && <HelpsTab />}
          {tab === 'whaticket' && <WhaticketImportTab />}
        </Box>
      </Paper>
    </Box>
  );
}
