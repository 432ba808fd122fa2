import { useEffect, type ReactNode } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useSnackbar } from 'notistack';
import { useTranslation } from 'react-i18next';
import { Box, CircularProgress } from '@mui/material';
import type { PlanFlag } from '@recado/contracts';
import { useAuth } from './auth.js';
import { landingFor, loginPathFor } from './landing.js';

export function FullPageSpinner() {
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '60vh' }}>
      <CircularProgress />
    </Box>
  );
}

/**
 * Private routes: an unauthenticated visitor (or one whose session ended) goes to /login, which brings them
 * back here afterwards; after a deliberate logout the login page remembers nothing.
 */
export function RequireAuth() {
  const { user, loading, loggedOut } = useAuth();
  const location = useLocation();
  if (loading) return <FullPageSpinner />;
  if (!user) return <Navigate to={loggedOut ? '/login' : loginPathFor(location)} replace />;
  return <Outlet />;
}

/**
 * Public routes (/login, /signup, /forgetpsw): an authenticated visitor goes to the page `?next=` names
 * (validated: a path of this site) or to their home (landing.ts).
 */
export function PublicOnly() {
  const { user, loading } = useAuth();
  const location = useLocation();
  if (loading) return <FullPageSpinner />;
  if (user)
    return <Navigate to={landingFor(user, new URLSearchParams(location.search).get('next'))} replace />;
  return <Outlet />;
}

/** The plan flags of the signed-in user's company. */
export function usePlanFlag(flag: PlanFlag): boolean {
  const { user } = useAuth();
  return Boolean(user?.company.plan[flag]);
}

/** How long the refusal shows before the visitor is taken to / (docs/product.md#roles). */
export const PLAN_REFUSAL_REDIRECT_MS = 1000;

/**
 * The one refusal of a plan-gated screen (docs/product.md#roles, #errors): the spec's message, once (a keyed,
 * de-duplicated toast: a second mount or a second guard shows nothing more), then / after 1 s. The
 * screen itself is not rendered, so none of its requests go out.
 */
export function PlanRefusal({ message = 'common.noPlanAccess' }: { message?: string } = {}) {
  const { t } = useTranslation();
  const { enqueueSnackbar } = useSnackbar();
  const navigate = useNavigate();
  useEffect(() => {
    enqueueSnackbar(t(message), {
      variant: 'error',
      key: 'plan-refusal',
      preventDuplicate: true,
      autoHideDuration: 3000,
    });
    const timer = window.setTimeout(() => void navigate('/', { replace: true }), PLAN_REFUSAL_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [enqueueSnackbar, navigate, t, message]);
  return null;
}

/** Screens of the platform owner (announcements): others get the refusal and go to / after 1 s. */
export function SuperRoute({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  return user?.super ? children : <PlanRefusal message="common.superOnly" />;
}

/** Every plan-gated route goes through here: its screen when the company's plan has `flag`, else the refusal. */
export function PlanRoute({ flag, children }: { flag: PlanFlag; children: ReactNode }) {
  return usePlanFlag(flag) ? children : <PlanRefusal />;
}
