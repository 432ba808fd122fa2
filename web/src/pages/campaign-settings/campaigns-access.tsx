import type { ReactNode } from 'react';
import { Alert, Box } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { AuthUser } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { PlanRefusal } from '../../app/guards.js';

/** The local flag of docs/campaigns.md that reveals the campaign screens. */
export const hasCshow = (): boolean => {
  try {
    return localStorage.getItem('cshow') !== null;
  } catch {
    return false;
  }
};

/**
 * What the server allows (docs/campaigns.md): the plan has useCampaigns and the company has not turned
 * the campaignsEnabled setting off. The server answers ERR_NO_PERMISSION otherwise.
 */
export const companyUsesCampaigns = (user: AuthUser | null | undefined): boolean =>
  Boolean(user?.company.plan.useCampaigns) &&
  user?.company.settings.find((s) => s.key === 'campaignsEnabled')?.value !== 'false';

/**
 * Campaign routes (contact lists, campaigns, reports, settings): the screen for companies that use
 * campaigns. Otherwise the one plan refusal (PlanRefusal) — except with the cshow flag, which reveals the
 * screens: they then say why there is nothing to do (no plan, or turned off in the settings) and send no
 * request the server would refuse.
 */
export function CampaignsRoute({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const { t } = useTranslation();
  if (companyUsesCampaigns(user)) return children;
  if (!hasCshow()) return <PlanRefusal />;
  const why = user?.company.plan.useCampaigns ? 'campaigns.disabledInSettings' : 'campaigns.noPlan';
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 } }}>
      <Alert severity="info" data-testid="campaigns-unavailable">
        {t(why)}
      </Alert>
    </Box>
  );
}
