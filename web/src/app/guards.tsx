import { Navigate, Outlet, useLocation } from 'react-router';
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
