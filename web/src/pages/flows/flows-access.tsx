import type { ReactNode } from 'react';
import { can } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { PlanRefusal } from '../../app/guards.js';

/**
 * The flow screens (list and editor) are for admins (inside the router's PlanRoute of useFlows): an attendant
 * gets the one refusal ("not allowed", then /) and none of the screens' requests go out. Small on purpose: the
 * router (main chunk) imports it, the screens stay in their own chunks.
 */
export function FlowsRoute({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  if (!can(user, 'admin-menu:view') && !user?.super) return <PlanRefusal message="common.superOnly" />;
  return children;
}
