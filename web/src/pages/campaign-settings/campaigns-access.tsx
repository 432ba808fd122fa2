import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import type { AuthUser } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';

/** The local flag of core §2 that reveals the campaign screens. */
export const hasCshow = (): boolean => {
  try {
    return localStorage.getItem('cshow') !== null;
  } catch {
    return false;
  }
};

/**
 * What the server allows (operations §2/§6): the plan has useCampaigns and the company has not turned
 * the campaignsEnabled setting off. The server answers ERR_NO_PERMISSION otherwise.
 */
export const companyUsesCampaigns = (user: AuthUser | null | undefined): boolean =>
  Boolean(user?.company.plan.useCampaigns) &&
  user?.company.settings.find((s) => s.key === 'campaignsEnabled')?.value !== 'false';

/** Campaign routes (contact lists, campaigns, reports, settings) exist for such companies or with cshow. */
export function CampaignsRoute({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  if (!companyUsesCampaigns(user) && !hasCshow()) return <Navigate to="/" replace />;
  return children;
}
