import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import {
  ForgotPasswordParams,
  AuthAnswer,
  AuthUser,
  MessageAnswer,
  LoginInput,
  ResetPasswordInput,
  SignupAnswer,
  SignupInput,
} from '@recado/contracts';
import type { AuthService, Issued } from './auth-service.js';
import type { CompanyService } from '../companies/company-service.js';
import type { Authenticate } from '../../http/auth-hooks.js';
import { requireAuth } from '../../http/auth-hooks.js';
import { access } from '../../http/access.js';

export const REFRESH_COOKIE = 'jrt';
/** "This browser signed in to this account before": lets it past the per-account limit (docs/security.md). */
export const DEVICE_COOKIE = 'jdv';
const DEVICE_COOKIE_DAYS = 365;

export interface AuthRouteOptions {
  auth: AuthService;
  companies: CompanyService;
  authenticate: Authenticate;
  secureCookies: boolean;
  refreshTtlSeconds: number;
  /** Requests per 5 minutes and address for signup, reset codes and resets (failed logins: the throttle). */
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
      if (issued.device)
        reply.setCookie(DEVICE_COOKIE, issued.device, {
          httpOnly: true,
          sameSite: 'strict',
          secure: o.secureCookies,
          path: '/api/auth/login',
          maxAge: DEVICE_COOKIE_DAYS * 86400,
        });
      return { token: issued.token, user: issued.user };
    };
    // Per client address (req.ip: X-Forwarded-For counts only from TRUST_PROXY peers).
    const perAddress = { max: o.loginLimit, timeWindow: '5 minutes' };

    // Failed logins are limited by the auth service's throttle (per address, account and known browser).
    app.post(
      '/auth/login',
      { config: access.public, schema: { response: { 200: AuthAnswer }, body: LoginInput } },
      async (req, reply) =>
        answer(
          reply,
          await o.auth.login(req.body.email, req.body.password, {
            userAgent: req.headers['user-agent'],
            ip: req.ip,
            device: req.cookies[DEVICE_COOKIE],
          }),
        ),
    );
    app.post(
      '/auth/refresh_token',
      { config: access.public, schema: { noBody: true, response: { 200: AuthAnswer } } },
      async (req, reply) => answer(reply, await o.auth.refresh(req.cookies[REFRESH_COOKIE])),
    );
    app.delete(
      '/auth/logout',
      {
        config: access.user,
        onRequest: requireAuth(o.authenticate),
        schema: { response: { 200: MessageAnswer } },
      },
      async (req, reply) => {
        await o.auth.logout(req.tenant);
        reply.clearCookie(REFRESH_COOKIE, { path: '/api/auth' });
        return { message: 'Logged out' };
      },
    );
    app.get(
      '/auth/me',
      {
        config: access.user,
        onRequest: requireAuth(o.authenticate),
        schema: { response: { 200: AuthUser } },
      },
      (req) => o.auth.authUser(req.tenant.companyId, req.tenant.userId),
    );

    app.post(
      '/companies/cadastro',
      {
        schema: { response: { 201: SignupAnswer }, body: SignupInput },
        config: { ...access.public, rateLimit: perAddress },
      },
      async (req, reply) => {
        const { company, userId } = await o.companies.signup(req.body);
        // The new admin is signed in at once, as a login would (refresh cookie + access token).
        const issued = await o.auth.signInCreated(company.id, userId, {
          userAgent: req.headers['user-agent'],
        });
        setCookie(reply, issued);
        return reply.status(201).send({ ...company, token: issued.token, user: issued.user });
      },
    );
    app.post(
      '/forgetpassword/:email',
      // Per address here; per e-mail, the service sends at most 3 codes an hour.
      {
        schema: { noBody: true, response: { 200: MessageAnswer }, params: ForgotPasswordParams },
        config: { ...access.public, rateLimit: perAddress },
      },
      (req) => o.auth.forgotPassword(req.params.email),
    );
    // Deliberate change from the spec: e-mail, code and password travel in the body, never in the path.
    app.post(
      '/resetpasswords',
      // Per address here; each code dies after five wrong tries.
      {
        schema: { response: { 200: MessageAnswer }, body: ResetPasswordInput },
        config: { ...access.public, rateLimit: perAddress },
      },
      (req) => o.auth.resetPassword(req.body),
    );
  };
