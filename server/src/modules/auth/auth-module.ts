import type { AppModule } from '../app-module.js';
import { authRoutes, type AuthRouteOptions } from './auth-routes.js';

/** Sign-in, refresh, signup and password reset: before any session, with their own rate limits. */
export const authModule = (o: AuthRouteOptions): AppModule => ({ name: 'auth', openRoutes: [authRoutes(o)] });
